-- A completion looks up its dependents by depends_on_id (work_dependencies_dependents). When
-- many items wait on one (a plan's 10,000 steps behind its schema change), ANALYZE sees few
-- distinct values and the planner expects every lookup to return thousands of rows, so each
-- completion hashed the whole table instead (measured: a sequential scan of 10,000 edges in
-- every completion, issue 22). Dependents of one item are few in the large: the planner is
-- told so, and ANALYZE keeps the figure, whatever the graph's shape at the time.
ALTER TABLE work_dependencies ALTER COLUMN depends_on_id SET (n_distinct = -0.5);
