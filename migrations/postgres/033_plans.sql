-- The claim's partial indexes say `waiting_on < 1` (the same rows: waiting_on is never negative)
-- so that, before ANALYZE, the planner prices the queue as the many rows it is: with `= 0` it
-- guessed one row in each, and a claim filtered by project or type walked work_items_claimable
-- past the whole queue. Queries keep `waiting_on = 0`, which implies the predicate.
-- work_items_due holds only the items with a run_after: the claim's `run_after IS NULL OR ...`
-- was read through it (two bitmaps, every claimable item, then a sort) for want of statistics.
DROP INDEX work_items_claimable;
DROP INDEX work_items_claimable_type;
DROP INDEX work_items_claimable_project;
DROP INDEX work_items_due;
CREATE INDEX work_items_claimable ON work_items (priority, created_at, id) WHERE status = 'queued' AND waiting_on < 1;
CREATE INDEX work_items_claimable_type ON work_items (type, priority, created_at, id) WHERE status = 'queued' AND waiting_on < 1;
CREATE INDEX work_items_claimable_project ON work_items (project_id, priority, created_at, id) WHERE status = 'queued' AND waiting_on < 1;
CREATE INDEX work_items_due ON work_items (run_after) WHERE status = 'queued' AND waiting_on < 1 AND run_after IS NOT NULL;
