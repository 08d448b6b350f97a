-- Every shape of the claim, and the wake-up timer's read, through an index of the queued items
-- only (issue 26; work_items_claimable, migration 010, serves the claim without filters). A
-- claim filtered by type or project reads, per type, the head of that type's queue; the next
-- run_after is the first entry of work_items_due. Partial indexes hold only what a claim can
-- take, so they are the cheapest path whatever the statistics say, and stay small.
CREATE INDEX work_items_claimable_type ON work_items (type, priority, created_at, id) WHERE status = 'queued';
CREATE INDEX work_items_claimable_project ON work_items (project_id, priority, created_at, id) WHERE status = 'queued';
CREATE INDEX work_items_due ON work_items (run_after) WHERE status = 'queued';
