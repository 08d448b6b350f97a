-- GET /work?status=queued&type=… (and ready=true&type=…) walks the queued items of a type in
-- either order, one entry at a time (src/work/store/postgres-lists.ts): newest first needs the id
-- to break ties of created_at in the index, queue order an index of its own. Both hold queued items only.
DROP INDEX work_items_queued_type_age;
CREATE INDEX work_items_queued_type_age ON work_items (type, created_at, id) WHERE status = 'queued';
CREATE INDEX work_items_queued_type_queue ON work_items (type, priority, created_at, id) WHERE status = 'queued';
