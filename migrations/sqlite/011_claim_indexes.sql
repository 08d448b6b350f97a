-- Every shape of the claim, and the wake-up timer's read, through an index of the queued items
-- only (issue 26). With 30,000-55,000 items queued, a claim filtered by type walked
-- work_items_status_queue and checked the type row by row (12-157 ms; by project 197 ms; the
-- next run_after 120 ms), and ANALYZE did not change it. Partial indexes hold only what a claim
-- can take, so they stay small as finished items pile up; the store names them (INDEXED BY).
CREATE INDEX work_items_claimable ON work_items (priority, created_at, id) WHERE status = 'queued';
CREATE INDEX work_items_claimable_type ON work_items (type, priority, created_at, id) WHERE status = 'queued';
CREATE INDEX work_items_claimable_project ON work_items (project_id, priority, created_at, id) WHERE status = 'queued';
CREATE INDEX work_items_due ON work_items (run_after) WHERE status = 'queued';
