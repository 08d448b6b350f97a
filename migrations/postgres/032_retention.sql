-- Retention: the one archiving pass that may run at a time across instances (a lease), and where
-- its unfinished batch began in its archive file, so a crashed batch is cut back and written again.
CREATE TABLE archive_ledger (
  slot integer PRIMARY KEY CHECK (slot = 1),
  holder text NOT NULL,
  lease_until timestamptz NOT NULL,
  file text,
  file_offset bigint
);

-- The pass reads final items oldest change first; the index holds only those.
CREATE INDEX work_items_final_changed ON work_items (updated_at, id)
  WHERE status IN ('completed', 'failed', 'cancelled');
