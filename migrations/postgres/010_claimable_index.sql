-- The claim's queue order over the queued items only.
--
-- The claim walks work_items in (priority, created_at, id) order for status = 'queued'. With
-- statistics taken while nearly every item was queued (a fresh desk, a burst of submits), the
-- planner judged work_items_queue, which holds every item, as good as work_items_status_queue and
-- then filtered its way past every finished item at the head of the queue: about 7,000 rows and
-- 8 ms per claim at 8,000 items. A partial index holds only what a claim can take, so it is the
-- cheapest path whatever the statistics say, and it stays small as finished items pile up.
CREATE INDEX work_items_claimable ON work_items (priority, created_at, id) WHERE status = 'queued';
