WITH input AS (
      SELECT e.ord, (e.value->>'id')::uuid AS id, (e.value->>'v')::int AS from_version, s, e.value AS v
      FROM batch_elements($1::jsonb) AS e(value, ord)
      CROSS JOIN LATERAL jsonb_populate_record(NULL::work_items, e.value->'s') AS s
    ), changed AS (UPDATE work_items w SET status = (i.s).status, assigned_agent = (i.s).assigned_agent, version = (i.s).version, updated_at = (i.s).updated_at FROM input i
      WHERE w.id = i.id AND w.version = i.from_version RETURNING w.id), closed AS (UPDATE dispatch_log d SET completed_at = c.completed_at, outcome = c.outcome, reason = c.reason
      FROM input i CROSS JOIN LATERAL jsonb_populate_record(NULL::dispatch_log, jsonb_build_object(
        'completed_at', i.v->'c'->'at', 'outcome', i.v->'c'->'outcome', 'reason', i.v->'c'->'reason')) AS c
      WHERE d.work_item_id = i.id AND d.completed_at IS NULL AND i.id IN (SELECT id FROM changed)), history AS (INSERT INTO work_history (work_item_id, at, actor, role, action, changes)
    SELECT i.id, h.at, h.actor, h.role, h.action, h.changes
    FROM input i CROSS JOIN LATERAL jsonb_populate_record(NULL::work_history, i.v->'h') AS h WHERE i.id IN (SELECT id FROM changed) ORDER BY i.ord), event AS (INSERT INTO events (type, data, created_at)
    SELECT i.v->'e'->>'type', i.v->'e'->>'data', (i.v->'e'->>'at')::timestamptz FROM input i WHERE i.id IN (SELECT id FROM changed) ORDER BY i.ord) SELECT id FROM changed;
