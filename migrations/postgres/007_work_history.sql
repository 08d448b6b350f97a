-- The audit trail (PostgreSQL): every change to a work item, who made it and what changed, kept
-- as long as the item.
CREATE TABLE work_history (
  id bigserial PRIMARY KEY,
  work_item_id uuid NOT NULL REFERENCES work_items (id) ON DELETE CASCADE,
  at timestamptz NOT NULL,
  actor text NOT NULL,
  role text NOT NULL,
  action text NOT NULL,
  -- {"field": {"from": …, "to": …}, …} as JSON text, as the service wrote it
  changes text NOT NULL
);
CREATE INDEX work_history_item ON work_history (work_item_id, id);
