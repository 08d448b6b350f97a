-- People and agents on one item (issue 21, PostgreSQL): the `member` role, the item's
-- conversation (comments), the questions a person answers (reviews among them), and the review
-- gate. Text that is sorted or compared uses COLLATE "C" so ordering matches SQLite.

-- A member token is bound to a name as an agent token is.
-- The CHECKs of 005 were unnamed (PostgreSQL named them); both are dropped by what they are.
DO $$
DECLARE c record;
BEGIN
  FOR c IN SELECT conname FROM pg_constraint WHERE conrelid = 'tokens'::regclass AND contype = 'c' LOOP
    EXECUTE format('ALTER TABLE tokens DROP CONSTRAINT %I', c.conname);
  END LOOP;
END $$;
ALTER TABLE tokens ADD CONSTRAINT tokens_role_check CHECK (role IN ('viewer', 'agent', 'member', 'intake', 'admin'));
ALTER TABLE tokens ADD CONSTRAINT tokens_agent_check CHECK ((role IN ('agent', 'member')) = (agent IS NOT NULL));

-- Maintained by the comment writes, so the item view never counts rows. Booleans are 0/1
-- (smallint) as on SQLite: one row shape for both stores.
ALTER TABLE work_items ADD COLUMN comment_count integer NOT NULL DEFAULT 0;
-- null: the project's setting
ALTER TABLE work_items ADD COLUMN review_required smallint CHECK (review_required IN (0, 1));
ALTER TABLE projects ADD COLUMN review_required smallint NOT NULL DEFAULT 0 CHECK (review_required IN (0, 1));

-- Comments are never edited; an admin may delete one (the item's history records it).
CREATE TABLE work_comments (
  id uuid PRIMARY KEY,
  work_item_id uuid NOT NULL REFERENCES work_items (id) ON DELETE CASCADE,
  author text NOT NULL,
  role text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('note', 'progress', 'question', 'answer', 'email')),
  body text NOT NULL,
  -- [{"url": …, "title": …}] as JSON text, kept as written
  links text NOT NULL,
  created_at timestamptz NOT NULL
);
-- The timeline, oldest first, keyset-paged by (created_at, id).
CREATE INDEX work_comments_item ON work_comments (work_item_id, created_at, id);

CREATE TABLE work_questions (
  id uuid PRIMARY KEY,
  work_item_id uuid NOT NULL REFERENCES work_items (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('question', 'review')),
  -- the agent the item waits with (the holder when asked), for the inbox's filter
  agent text COLLATE "C",
  asked_by text NOT NULL,
  asked_role text NOT NULL,
  question text NOT NULL,
  -- JSON array of strings, or null for a free answer
  options text,
  status text COLLATE "C" NOT NULL CHECK (status IN ('open', 'answered')),
  asked_at timestamptz NOT NULL,
  answer text,
  option text,
  answered_by text,
  answered_role text,
  answered_at timestamptz,
  -- whether asking blocked the item, so the answer knows whether to resume it
  blocked_item smallint NOT NULL CHECK (blocked_item IN (0, 1))
);
-- One open question per item: the database holds the rule against two instances asking at once.
CREATE UNIQUE INDEX work_questions_one_open ON work_questions (work_item_id) WHERE status = 'open';
-- The inbox: open oldest first, answered newest first.
CREATE INDEX work_questions_open ON work_questions (asked_at, id) WHERE status = 'open';
CREATE INDEX work_questions_answered ON work_questions (answered_at, id) WHERE status = 'answered';
CREATE INDEX work_questions_item ON work_questions (work_item_id, asked_at, id);
