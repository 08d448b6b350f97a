-- Dashboard numbers that stay cheap at millions of items (PostgreSQL).
--
-- Triggers on work_items and dispatch_log append one row per change to work_stat_deltas; a
-- compaction every few seconds, in every instance, moves them into per-hour rollups and current
-- counts with one DELETE … RETURNING (src/work/stats/store.ts). A read adds the deltas not yet
-- moved, so it is exact. Writers only ever insert into a table without indexes: no counter row
-- that every claim updates, so concurrent claims never queue behind each other's commit.
--
-- metric   | status                       | type | agent | bucket          | n
-- depth    | the status entered or left   | yes  |       |                 | +1 / -1
-- created  |                              | yes  |       |                 | +1
-- finished | completed, failed, cancelled | yes  |       |                 | +1
-- agent    | completed, failed            |      | yes   | lead-time bucket| +1
--
-- Hours are the change's own time cut to the hour in UTC; a delete has none, so it counts at the
-- hour it happens. Unused keys are '' so they can be part of a primary key. The lead-time bucket
-- is floor(4 * log2(milliseconds)): four buckets per doubling (lead-time.ts).

CREATE TABLE work_stat_deltas (
  hour timestamptz NOT NULL,
  metric text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL DEFAULT '',
  type text COLLATE "C" NOT NULL DEFAULT '',
  agent text COLLATE "C" NOT NULL DEFAULT '',
  bucket integer NOT NULL DEFAULT 0,
  n integer NOT NULL
);

CREATE TABLE work_stat_hourly (
  metric text COLLATE "C" NOT NULL,
  hour timestamptz NOT NULL,
  status text COLLATE "C" NOT NULL,
  type text COLLATE "C" NOT NULL,
  agent text COLLATE "C" NOT NULL,
  bucket integer NOT NULL,
  n bigint NOT NULL,
  PRIMARY KEY (metric, hour, status, type, agent, bucket)
);

-- Items by status and type as of the last compaction.
CREATE TABLE work_stat_current (
  status text COLLATE "C" NOT NULL,
  type text COLLATE "C" NOT NULL,
  n bigint NOT NULL,
  PRIMARY KEY (status, type)
);

-- The oldest queued item of each type is one probe of this (small) index.
CREATE INDEX work_items_queued_type_age ON work_items (type, created_at) WHERE status = 'queued';

CREATE FUNCTION work_stats_lead_bucket(dispatched timestamptz, completed timestamptz) RETURNS integer
LANGUAGE sql IMMUTABLE AS $$
  SELECT floor(4 * log(2::numeric, greatest(extract(epoch FROM completed - dispatched) * 1000, 1)::numeric))::integer
$$;

-- Inserts: once per statement, so a bulk load appends one row per (hour, type, status).
CREATE FUNCTION work_stats_items_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO work_stat_deltas (hour, metric, status, type, n)
  SELECT hour, metric, status, type, count(*) FROM (
    SELECT date_trunc('hour', created_at, 'UTC') AS hour, 'created' AS metric, '' AS status, type FROM new_items
    UNION ALL
    SELECT date_trunc('hour', created_at, 'UTC'), 'depth', status, type FROM new_items
    UNION ALL
    -- Only bulk loads insert finished items; the service never does.
    SELECT date_trunc('hour', coalesce(completed_at, updated_at), 'UTC'), 'finished', status, type
      FROM new_items WHERE status IN ('completed', 'failed', 'cancelled')
  ) d GROUP BY hour, metric, status, type;
  RETURN NULL;
END
$$;

CREATE TRIGGER work_stats_items_inserted AFTER INSERT ON work_items
  REFERENCING NEW TABLE AS new_items FOR EACH STATEMENT EXECUTE FUNCTION work_stats_items_inserted();

-- Moves: per row, and only when status or type changed, so heartbeats and edits cost nothing.
CREATE FUNCTION work_stats_item_moved() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  at timestamptz := date_trunc('hour', NEW.updated_at, 'UTC');
BEGIN
  IF NEW.status IN ('completed', 'failed', 'cancelled') AND OLD.status <> NEW.status THEN
    INSERT INTO work_stat_deltas (hour, metric, status, type, n) VALUES
      (at, 'depth', OLD.status, OLD.type, -1), (at, 'depth', NEW.status, NEW.type, 1), (at, 'finished', NEW.status, NEW.type, 1);
  ELSE
    INSERT INTO work_stat_deltas (hour, metric, status, type, n) VALUES
      (at, 'depth', OLD.status, OLD.type, -1), (at, 'depth', NEW.status, NEW.type, 1);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER work_stats_item_moved AFTER UPDATE OF status, type ON work_items
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.type IS DISTINCT FROM NEW.type)
  EXECUTE FUNCTION work_stats_item_moved();

-- A deleted item leaves the counts; the flow it took part in (created, finished) stays history.
CREATE FUNCTION work_stats_item_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO work_stat_deltas (hour, metric, status, type, n)
    VALUES (date_trunc('hour', now(), 'UTC'), 'depth', OLD.status, OLD.type, -1);
  RETURN NULL;
END
$$;

CREATE TRIGGER work_stats_item_deleted AFTER DELETE ON work_items
  FOR EACH ROW EXECUTE FUNCTION work_stats_item_deleted();

-- An agent's result: its dispatch entry closing as completed, failed, or with the lease run out
-- (the agent did not finish). Entries are always opened first and closed by an update.
CREATE FUNCTION work_stats_dispatch_closed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO work_stat_deltas (hour, metric, status, agent, bucket, n) VALUES (
    date_trunc('hour', NEW.completed_at, 'UTC'),
    'agent',
    CASE WHEN NEW.reason = 'completed' THEN 'completed' ELSE 'failed' END,
    NEW.agent,
    work_stats_lead_bucket(NEW.dispatched_at, NEW.completed_at),
    1
  );
  RETURN NULL;
END
$$;

CREATE TRIGGER work_stats_dispatch_closed AFTER UPDATE OF completed_at ON dispatch_log
  FOR EACH ROW WHEN (OLD.completed_at IS NULL AND NEW.completed_at IS NOT NULL AND NEW.reason IN ('completed', 'failed', 'lease_expired'))
  EXECUTE FUNCTION work_stats_dispatch_closed();

-- Backfill: what is already there, straight into the rollups. The hourly history of an
-- existing item is approximated as queued from creation until its last change, then its
-- current status; counts, created and finished are exact.
INSERT INTO work_stat_current (status, type, n)
  SELECT status, type, count(*) FROM work_items GROUP BY status, type;

INSERT INTO work_stat_hourly (metric, hour, status, type, agent, bucket, n)
  SELECT metric, hour, status, type, '', 0, sum(n) FROM (
    SELECT 'created' AS metric, date_trunc('hour', created_at, 'UTC') AS hour, '' AS status, type, 1 AS n FROM work_items
    UNION ALL
    SELECT 'finished', date_trunc('hour', coalesce(completed_at, updated_at), 'UTC'), status, type, 1
      FROM work_items WHERE status IN ('completed', 'failed', 'cancelled')
    UNION ALL
    SELECT 'depth', date_trunc('hour', created_at, 'UTC'), 'queued', type, 1 FROM work_items
    UNION ALL
    SELECT 'depth', date_trunc('hour', updated_at, 'UTC'), 'queued', type, -1 FROM work_items WHERE status <> 'queued'
    UNION ALL
    SELECT 'depth', date_trunc('hour', updated_at, 'UTC'), status, type, 1 FROM work_items WHERE status <> 'queued'
  ) d GROUP BY metric, hour, status, type;

INSERT INTO work_stat_hourly (metric, hour, status, type, agent, bucket, n)
  SELECT 'agent', date_trunc('hour', completed_at, 'UTC'),
    CASE WHEN reason = 'completed' THEN 'completed' ELSE 'failed' END, '', agent,
    work_stats_lead_bucket(dispatched_at, completed_at), count(*)
  FROM dispatch_log WHERE completed_at IS NOT NULL AND reason IN ('completed', 'failed', 'lease_expired')
  GROUP BY 2, 3, 5, 6;
