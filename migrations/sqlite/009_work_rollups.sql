-- Dashboard numbers that stay cheap at millions of items (SQLite).
--
-- Triggers on work_items and dispatch_log append one row per change to work_stat_deltas; a
-- compaction every few seconds folds them into per-hour rollups and current counts (see
-- src/work/stats/store.ts). A read adds the deltas not yet folded in, so it is exact. The
-- write path only ever appends: no row every writer updates, so nothing to queue behind.
--
-- metric   | status                       | type | agent | bucket          | n
-- depth    | the status entered or left   | yes  |       |                 | +1 / -1
-- created  |                              | yes  |       |                 | +1
-- finished | completed, failed, cancelled | yes  |       |                 | +1
-- agent    | completed, failed            |      | yes   | lead-time bucket| +1
--
-- Hours are the change's own time (ISO text cut to the hour, UTC); a delete has none, so it
-- counts at the hour it happens. Unused keys are '' so they can be part of a primary key.
-- The lead-time bucket is floor(4 * log2(milliseconds)), milliseconds computed exactly from the text: four buckets per doubling, so a
-- percentile read from the histogram is within 9% of the true one (lead-time.ts).

CREATE TABLE work_stat_deltas (
  hour TEXT NOT NULL,
  metric TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT '',
  type TEXT NOT NULL DEFAULT '',
  agent TEXT NOT NULL DEFAULT '',
  bucket INTEGER NOT NULL DEFAULT 0,
  n INTEGER NOT NULL
);

CREATE TABLE work_stat_hourly (
  metric TEXT NOT NULL,
  hour TEXT NOT NULL,
  status TEXT NOT NULL,
  type TEXT NOT NULL,
  agent TEXT NOT NULL,
  bucket INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (metric, hour, status, type, agent, bucket)
) WITHOUT ROWID;

-- Items by status and type as of the last compaction.
CREATE TABLE work_stat_current (
  status TEXT NOT NULL,
  type TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (status, type)
) WITHOUT ROWID;

-- The oldest queued item of each type is one probe of this (small) index.
CREATE INDEX work_items_queued_type_age ON work_items (type, created_at) WHERE status = 'queued';

CREATE TRIGGER work_stats_item_inserted AFTER INSERT ON work_items BEGIN
  INSERT INTO work_stat_deltas (hour, metric, status, type, n) VALUES
    (substr(NEW.created_at, 1, 13) || ':00:00.000Z', 'created', '', NEW.type, 1),
    (substr(NEW.created_at, 1, 13) || ':00:00.000Z', 'depth', NEW.status, NEW.type, 1);
  -- Only bulk loads insert finished items; the service never does.
  INSERT INTO work_stat_deltas (hour, metric, status, type, n)
    SELECT substr(coalesce(NEW.completed_at, NEW.updated_at), 1, 13) || ':00:00.000Z', 'finished', NEW.status, NEW.type, 1
    WHERE NEW.status IN ('completed', 'failed', 'cancelled');
END;

-- Heartbeats and edits leave status and type alone and add nothing.
CREATE TRIGGER work_stats_item_moved AFTER UPDATE OF status, type ON work_items
WHEN OLD.status <> NEW.status OR OLD.type <> NEW.type BEGIN
  INSERT INTO work_stat_deltas (hour, metric, status, type, n) VALUES
    (substr(NEW.updated_at, 1, 13) || ':00:00.000Z', 'depth', OLD.status, OLD.type, -1),
    (substr(NEW.updated_at, 1, 13) || ':00:00.000Z', 'depth', NEW.status, NEW.type, 1);
  INSERT INTO work_stat_deltas (hour, metric, status, type, n)
    SELECT substr(NEW.updated_at, 1, 13) || ':00:00.000Z', 'finished', NEW.status, NEW.type, 1
    WHERE NEW.status IN ('completed', 'failed', 'cancelled') AND OLD.status <> NEW.status;
END;

-- A deleted item leaves the counts; the flow it took part in (created, finished) stays history.
CREATE TRIGGER work_stats_item_deleted AFTER DELETE ON work_items BEGIN
  INSERT INTO work_stat_deltas (hour, metric, status, type, n)
    VALUES (strftime('%Y-%m-%dT%H:00:00.000Z', 'now'), 'depth', OLD.status, OLD.type, -1);
END;

-- An agent's result: its dispatch entry closing as completed, failed, or with the lease run out
-- (the agent did not finish). Entries are always opened first and closed by an update.
CREATE TRIGGER work_stats_dispatch_closed AFTER UPDATE OF completed_at ON dispatch_log
WHEN OLD.completed_at IS NULL AND NEW.completed_at IS NOT NULL AND NEW.reason IN ('completed', 'failed', 'lease_expired') BEGIN
  INSERT INTO work_stat_deltas (hour, metric, status, agent, bucket, n) VALUES (
    substr(NEW.completed_at, 1, 13) || ':00:00.000Z',
    'agent',
    CASE WHEN NEW.reason = 'completed' THEN 'completed' ELSE 'failed' END,
    NEW.agent,
    CAST(4 * log2(max(
      (strftime('%s', NEW.completed_at) - strftime('%s', NEW.dispatched_at)) * 1000
        + substr(NEW.completed_at, 21, 3) - substr(NEW.dispatched_at, 21, 3), 1)) AS INTEGER),
    1
  );
END;

-- Backfill: what is already there, straight into the rollups. The hourly history of an
-- existing item is approximated as queued from creation until its last change, then its
-- current status; counts, created and finished are exact.
INSERT INTO work_stat_current (status, type, n)
  SELECT status, type, count(*) FROM work_items GROUP BY status, type;

INSERT INTO work_stat_hourly (metric, hour, status, type, agent, bucket, n)
  SELECT metric, hour, status, type, '', 0, sum(n) FROM (
    SELECT 'created' AS metric, substr(created_at, 1, 13) || ':00:00.000Z' AS hour, '' AS status, type, 1 AS n FROM work_items
    UNION ALL
    SELECT 'finished', substr(coalesce(completed_at, updated_at), 1, 13) || ':00:00.000Z', status, type, 1
      FROM work_items WHERE status IN ('completed', 'failed', 'cancelled')
    UNION ALL
    SELECT 'depth', substr(created_at, 1, 13) || ':00:00.000Z', 'queued', type, 1 FROM work_items
    UNION ALL
    SELECT 'depth', substr(updated_at, 1, 13) || ':00:00.000Z', 'queued', type, -1 FROM work_items WHERE status <> 'queued'
    UNION ALL
    SELECT 'depth', substr(updated_at, 1, 13) || ':00:00.000Z', status, type, 1 FROM work_items WHERE status <> 'queued'
  ) GROUP BY metric, hour, status, type;

INSERT INTO work_stat_hourly (metric, hour, status, type, agent, bucket, n)
  SELECT 'agent', substr(completed_at, 1, 13) || ':00:00.000Z',
    CASE WHEN reason = 'completed' THEN 'completed' ELSE 'failed' END, '', agent,
    CAST(4 * log2(max((strftime('%s', completed_at) - strftime('%s', dispatched_at)) * 1000
      + substr(completed_at, 21, 3) - substr(dispatched_at, 21, 3), 1)) AS INTEGER), count(*)
  FROM dispatch_log WHERE completed_at IS NOT NULL AND reason IN ('completed', 'failed', 'lease_expired')
  GROUP BY 2, 3, 5, 6;
