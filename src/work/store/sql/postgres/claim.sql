WITH input AS (
      SELECT e.ord, (e.value->>'id')::uuid AS id, (e.value->>'v')::int AS from_version, s, e.value AS v
      FROM batch_elements($1::jsonb) AS e(value, ord)
      CROSS JOIN LATERAL jsonb_populate_record(NULL::work_items, e.value->'s') AS s
    ), changed AS (UPDATE work_items w SET status = (i.s).status, assigned_agent = (i.s).assigned_agent, version = (i.s).version, updated_at = (i.s).updated_at FROM input i
      WHERE w.id = i.id AND w.version = i.from_version RETURNING w.id), opened AS (INSERT INTO dispatch_log (id, work_item_id, agent, dispatched_at, completed_at, outcome, reason)
      SELECT o.id, o.work_item_id, o.agent, o.dispatched_at, o.completed_at, o.outcome, o.reason
      FROM input i CROSS JOIN LATERAL jsonb_populate_record(NULL::dispatch_log, i.v->'o') AS o WHERE i.id IN (SELECT id FROM changed)), history AS (INSERT INTO work_history (work_item_id, at, actor, role, action, changes)
    SELECT i.id, h.at, h.actor, h.role, h.action, h.changes
    FROM input i CROSS JOIN LATERAL jsonb_populate_record(NULL::work_history, i.v->'h') AS h WHERE i.id IN (SELECT id FROM changed) ORDER BY i.ord), event AS (INSERT INTO events (type, data, created_at)
    SELECT i.v->'e'->>'type', i.v->'e'->>'data', (i.v->'e'->>'at')::timestamptz FROM input i WHERE i.id IN (SELECT id FROM changed) ORDER BY i.ord) SELECT id FROM changed;
