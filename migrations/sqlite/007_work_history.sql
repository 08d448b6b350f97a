-- The audit trail (SQLite): every change to a work item, who made it and what changed, kept as
-- long as the item.
CREATE TABLE work_history (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  work_item_id TEXT NOT NULL REFERENCES work_items (id) ON DELETE CASCADE,
  at TEXT NOT NULL,
  actor TEXT NOT NULL,
  role TEXT NOT NULL,
  action TEXT NOT NULL,
  -- {"field": {"from": …, "to": …}, …} as JSON text
  changes TEXT NOT NULL
);
CREATE INDEX work_history_item ON work_history (work_item_id, id);
