-- A2A: the context each task sent over A2A belongs to, so ListTasks can page a caller's tasks of
-- one context. The item keeps the same id in its payload; a row lost in a crash between the two
-- writes leaves the task in a context of its own.
CREATE TABLE a2a_contexts (
  item_id TEXT PRIMARY KEY REFERENCES work_items (id) ON DELETE CASCADE,
  context_id TEXT NOT NULL,
  created_by TEXT NOT NULL,
  created_at TEXT NOT NULL
);

CREATE INDEX a2a_contexts_by_owner ON a2a_contexts (created_by, context_id, created_at, item_id);
