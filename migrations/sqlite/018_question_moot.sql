-- A question whose item reached a final status (completed, failed, cancelled) while it was open
-- is closed unanswered, in the same commit: `moot`. It leaves the one-open index, the inbox and
-- the count; answering it is refused. SQLite cannot change a CHECK in place: the table is
-- rebuilt with the same columns and indexes (nothing references it).
CREATE TABLE work_questions_new (
  id TEXT PRIMARY KEY,
  work_item_id TEXT NOT NULL REFERENCES work_items (id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('question', 'review')),
  -- the agent the item waits with (the holder when asked), for the inbox's filter
  agent TEXT,
  asked_by TEXT NOT NULL,
  asked_role TEXT NOT NULL,
  question TEXT NOT NULL,
  -- JSON array of strings, or null for a free answer
  options TEXT,
  status TEXT NOT NULL CHECK (status IN ('open', 'answered', 'moot')),
  asked_at TEXT NOT NULL,
  answer TEXT,
  option TEXT,
  answered_by TEXT,
  answered_role TEXT,
  answered_at TEXT,
  -- whether asking blocked the item, so the answer knows whether to resume it
  blocked_item INTEGER NOT NULL CHECK (blocked_item IN (0, 1))
);
INSERT INTO work_questions_new (id, work_item_id, kind, agent, asked_by, asked_role, question, options, status, asked_at, answer, option, answered_by, answered_role, answered_at, blocked_item)
  SELECT id, work_item_id, kind, agent, asked_by, asked_role, question, options, status, asked_at, answer, option, answered_by, answered_role, answered_at, blocked_item FROM work_questions;
DROP TABLE work_questions;
ALTER TABLE work_questions_new RENAME TO work_questions;
CREATE UNIQUE INDEX work_questions_one_open ON work_questions (work_item_id) WHERE status = 'open';
CREATE INDEX work_questions_open ON work_questions (asked_at, id) WHERE status = 'open';
CREATE INDEX work_questions_answered ON work_questions (answered_at, id) WHERE status = 'answered';
CREATE INDEX work_questions_item ON work_questions (work_item_id, asked_at, id);
