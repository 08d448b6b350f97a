-- Sub-items and dependencies (issue 22). An item may have a parent (parent_id) and depend on
-- other items (work_dependencies). `waiting_on` is the number of its dependencies not yet
-- completed, kept by the same transaction as every change that moves it (a dependency
-- completing, a PATCH of depends_on), so the claim never looks at the dependencies themselves:
-- the claimable indexes hold only the queued items that wait on nothing, and stay as small,
-- and the claim as cheap, however many items wait on others.
ALTER TABLE work_items ADD COLUMN parent_id TEXT REFERENCES work_items (id);
ALTER TABLE work_items ADD COLUMN waiting_on INTEGER NOT NULL DEFAULT 0 CHECK (waiting_on >= 0);
CREATE INDEX work_items_children ON work_items (parent_id, created_at, id) WHERE parent_id IS NOT NULL;

-- item_id waits for depends_on_id. Deleting an item takes its own edges with it; an item others
-- depend on cannot be deleted (the service says which; the key is the last word in a race).
CREATE TABLE work_dependencies (
  item_id TEXT NOT NULL REFERENCES work_items (id) ON DELETE CASCADE,
  depends_on_id TEXT NOT NULL REFERENCES work_items (id),
  PRIMARY KEY (item_id, depends_on_id)
) WITHOUT ROWID;
CREATE INDEX work_dependencies_dependents ON work_dependencies (depends_on_id, item_id);

DROP INDEX work_items_claimable;
DROP INDEX work_items_claimable_type;
DROP INDEX work_items_claimable_project;
DROP INDEX work_items_due;
CREATE INDEX work_items_claimable ON work_items (priority, created_at, id) WHERE status = 'queued' AND waiting_on = 0;
CREATE INDEX work_items_claimable_type ON work_items (type, priority, created_at, id) WHERE status = 'queued' AND waiting_on = 0;
CREATE INDEX work_items_claimable_project ON work_items (project_id, priority, created_at, id) WHERE status = 'queued' AND waiting_on = 0;
CREATE INDEX work_items_due ON work_items (run_after) WHERE status = 'queued' AND waiting_on = 0;
