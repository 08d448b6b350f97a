-- People who are told of questions and reviews (SQLite): a profile per name (its address and
-- how it wants to hear), the watchers of projects and items, whom a question names, and a
-- project's escalation. Name lists are JSON arrays of names as text; null means none.
CREATE TABLE people (
  name TEXT PRIMARY KEY,
  email TEXT NOT NULL,
  notify TEXT NOT NULL CHECK (notify IN ('immediate', 'digest', 'off')),
  -- 'HH:MM' in `tz`, for a digest
  digest_at TEXT,
  -- an IANA zone; null: UTC
  tz TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

ALTER TABLE projects ADD COLUMN watchers TEXT;
-- how long a question or review may stay open before it is overdue; null: never
ALTER TABLE projects ADD COLUMN answer_within_s INTEGER CHECK (answer_within_s >= 60);
ALTER TABLE projects ADD COLUMN escalate_to TEXT;
ALTER TABLE work_items ADD COLUMN watchers TEXT;
-- the people a question names; null: the item's and project's watchers and its creator
ALTER TABLE work_questions ADD COLUMN to_people TEXT;
