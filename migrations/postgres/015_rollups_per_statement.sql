-- The rollups' deltas (009) once per statement instead of once per row.
--
-- 009's row triggers ran a PL/pgSQL call and an INSERT for every item that moved and every
-- dispatch entry that closed: three calls and six delta rows per claim → complete, about a tenth
-- of PostgreSQL's CPU in the agent loop (issue 23). The agent loop writes its changes in batches
-- (one statement moves every item a group of claims or completions took), so a trigger per
-- statement, reading the statement's old and new rows, calls once per batch and appends one
-- row per (hour, metric, status, type) it saw, as the insert trigger already does.
--
-- A trigger with transition tables cannot name columns (UPDATE OF status, type), so these fire
-- for every UPDATE of the tables and find which rows moved themselves: an update that moves
-- nothing (a heartbeat, an edit, a comment's count) costs one call that inserts nothing.

DROP TRIGGER work_stats_item_moved ON work_items;
DROP FUNCTION work_stats_item_moved();

CREATE FUNCTION work_stats_items_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH moved AS (
    SELECT n.updated_at, n.status, n.type, o.status AS old_status, o.type AS old_type
    FROM old_items o JOIN new_items n ON n.id = o.id
    WHERE o.status IS DISTINCT FROM n.status OR o.type IS DISTINCT FROM n.type
  )
  INSERT INTO work_stat_deltas (hour, metric, status, type, n)
  SELECT hour, metric, status, type, sum(n) FROM (
    SELECT date_trunc('hour', m.updated_at, 'UTC') AS hour, 'depth' AS metric, m.old_status AS status, m.old_type AS type, -1 AS n FROM moved m
    UNION ALL
    SELECT date_trunc('hour', m.updated_at, 'UTC'), 'depth', m.status, m.type, 1 FROM moved m
    UNION ALL
    SELECT date_trunc('hour', m.updated_at, 'UTC'), 'finished', m.status, m.type, 1 FROM moved m
      WHERE m.status IN ('completed', 'failed', 'cancelled') AND m.old_status <> m.status
  ) d GROUP BY hour, metric, status, type HAVING sum(n) <> 0;
  RETURN NULL;
END
$$;

CREATE TRIGGER work_stats_items_moved AFTER UPDATE ON work_items
  REFERENCING OLD TABLE AS old_items NEW TABLE AS new_items FOR EACH STATEMENT EXECUTE FUNCTION work_stats_items_moved();

DROP TRIGGER work_stats_dispatch_closed ON dispatch_log;
DROP FUNCTION work_stats_dispatch_closed();

CREATE FUNCTION work_stats_dispatches_closed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO work_stat_deltas (hour, metric, status, agent, bucket, n)
  SELECT date_trunc('hour', n.completed_at, 'UTC'), 'agent',
    CASE WHEN n.reason = 'completed' THEN 'completed' ELSE 'failed' END,
    n.agent, work_stats_lead_bucket(n.dispatched_at, n.completed_at), count(*)
  FROM old_entries o JOIN new_entries n ON n.id = o.id
  WHERE o.completed_at IS NULL AND n.completed_at IS NOT NULL AND n.reason IN ('completed', 'failed', 'lease_expired')
  GROUP BY 1, 2, 3, 4, 5;
  RETURN NULL;
END
$$;

CREATE TRIGGER work_stats_dispatches_closed AFTER UPDATE ON dispatch_log
  REFERENCING OLD TABLE AS old_entries NEW TABLE AS new_entries FOR EACH STATEMENT EXECUTE FUNCTION work_stats_dispatches_closed();
