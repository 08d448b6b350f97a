-- People and agents on one item (issue 21, SQLite): the `member` role, the item's conversation
-- (comments), the questions a person answers (reviews among them), and the review gate.

-- A member token is bound to a name as an agent token is. SQLite cannot change a CHECK in
-- place: the table is rebuilt with the same columns and indexes (nothing references it).
CREATE TABLE tokens_new (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('viewer', 'agent', 'member', 'intake', 'admin')),
  -- the name an agent or member token acts as; only those tokens have one, and they must
  agent TEXT CHECK ((role IN ('agent', 'member')) = (agent IS NOT NULL)),
  secret_hash TEXT NOT NULL,
  created_at TEXT NOT NULL,
  created_by TEXT NOT NULL,
  expires_at TEXT,
  last_used_at TEXT,
  revoked_at TEXT
);
INSERT INTO tokens_new (id, name, role, agent, secret_hash, created_at, created_by, expires_at, last_used_at, revoked_at)
  SELECT id, name, role, agent, secret_hash, created_at, created_by, expires_at, last_used_at, revoked_at FROM tokens;
DROP TABLE tokens;
ALTER TABLE tokens_new RENAME TO tokens;
CREATE UNIQUE INDEX tokens_secret_hash ON tokens (secret_hash);
CREATE INDEX tokens_created ON tokens (created_at, id);

-- Maintained by the comment writes, so the item view never counts rows. Booleans are 0/1 on
-- both databases (smallint on PostgreSQL): one row shape for both stores.
ALTER TABLE work_items ADD COLUMN comment_count INTEGER NOT NULL DEFAULT 0;
-- null: the project's setting
ALTER TABLE work_items ADD COLUMN review_required INTEGER CHECK (review_required IN (0, 1));
ALTER TABLE projects ADD COLUMN review_required INTEGER NOT NULL DEFAULT 0 CHECK (review_required IN (0, 1));

-- Comments are never edited; an admin may delete one (the item's history records it).
CREATE TABLE work_comments (
  id TEXT PRIMARY KEY,
  work_item_id TEXT NOT NULL REFERENCES work_items (id) ON DELETE CASCADE,
  author TEXT NOT NULL,
  role TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('note', 'progress', 'question', 'answer', 'email')),
  body TEXT NOT NULL,
  -- [{"url": …, "title": …}] as JSON text
  links TEXT NOT NULL,
  created_at TEXT NOT NULL
);
-- The timeline, oldest first, keyset-paged by (created_at, id).
CREATE INDEX work_comments_item ON work_comments (work_item_id, created_at, id);

CREATE TABLE work_questions (
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
  status TEXT NOT NULL CHECK (status IN ('open', 'answered')),
  asked_at TEXT NOT NULL,
  answer TEXT,
  option TEXT,
  answered_by TEXT,
  answered_role TEXT,
  answered_at TEXT,
  -- whether asking blocked the item, so the answer knows whether to resume it
  blocked_item INTEGER NOT NULL CHECK (blocked_item IN (0, 1))
);
-- One open question per item: the database holds the rule against two instances asking at once.
CREATE UNIQUE INDEX work_questions_one_open ON work_questions (work_item_id) WHERE status = 'open';
-- The inbox: open oldest first, answered newest first.
CREATE INDEX work_questions_open ON work_questions (asked_at, id) WHERE status = 'open';
CREATE INDEX work_questions_answered ON work_questions (answered_at, id) WHERE status = 'answered';
CREATE INDEX work_questions_item ON work_questions (work_item_id, asked_at, id);
