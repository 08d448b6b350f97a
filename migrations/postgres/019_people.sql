-- People who are told of questions and reviews (PostgreSQL): a profile per name (its address and
-- how it wants to hear), the watchers of projects and items, whom a question names, and a
-- project's escalation. Name lists are JSON arrays of names as text (one row shape for both
-- stores); null means none. Names sort with COLLATE "C" so ordering matches SQLite.
CREATE TABLE people (
  name text COLLATE "C" PRIMARY KEY,
  email text NOT NULL,
  notify text NOT NULL CHECK (notify IN ('immediate', 'digest', 'off')),
  -- 'HH:MM' in `tz`, for a digest
  digest_at text,
  -- an IANA zone; null: UTC
  tz text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

ALTER TABLE projects ADD COLUMN watchers text;
-- how long a question or review may stay open before it is overdue; null: never
ALTER TABLE projects ADD COLUMN answer_within_s integer CHECK (answer_within_s >= 60);
ALTER TABLE projects ADD COLUMN escalate_to text;
ALTER TABLE work_items ADD COLUMN watchers text;
-- the people a question names; null: the item's and project's watchers and its creator
ALTER TABLE work_questions ADD COLUMN to_people text;
