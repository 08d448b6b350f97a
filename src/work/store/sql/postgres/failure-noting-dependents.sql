WITH input AS (
      SELECT e.ord, (e.value->>'id')::uuid AS id, (e.value->>'v')::int AS from_version, s, e.value AS v
      FROM batch_elements($1::jsonb) AS e(value, ord)
      CROSS JOIN LATERAL jsonb_populate_record(NULL::work_items, e.value->'s') AS s
    ), changed AS (UPDATE work_items w SET status = (i.s).status, outcome = (i.s).outcome, completed_at = (i.s).completed_at, version = (i.s).version, updated_at = (i.s).updated_at FROM input i
      WHERE w.id = i.id AND w.version = i.from_version AND w.link_version = (i.v->>'l')::int RETURNING w.id), closed AS (UPDATE dispatch_log d SET completed_at = c.completed_at, outcome = c.outcome, reason = c.reason
      FROM input i CROSS JOIN LATERAL jsonb_populate_record(NULL::dispatch_log, jsonb_build_object(
        'completed_at', i.v->'c'->'at', 'outcome', i.v->'c'->'outcome', 'reason', i.v->'c'->'reason')) AS c
      WHERE d.work_item_id = i.id AND d.completed_at IS NULL AND i.id IN (SELECT id FROM changed)), history AS (INSERT INTO work_history (work_item_id, at, actor, role, action, changes)
    SELECT i.id, h.at, h.actor, h.role, h.action, h.changes
    FROM input i CROSS JOIN LATERAL jsonb_populate_record(NULL::work_history, i.v->'h') AS h WHERE i.id IN (SELECT id FROM changed) ORDER BY i.ord), event AS (INSERT INTO events (type, data, created_at)
    SELECT i.v->'e'->>'type', i.v->'e'->>'data', (i.v->'e'->>'at')::timestamptz FROM input i WHERE i.id IN (SELECT id FROM changed) ORDER BY i.ord), dependents AS (SELECT d.item_id, count(*)::int AS n, max((i.s).updated_at) AS at,
        string_agg(i.v->>'d', E'

' ORDER BY i.ord) AS note
      FROM input i JOIN work_dependencies d ON d.depends_on_id = i.id
      WHERE i.id IN (SELECT id FROM changed) AND d.item_id NOT IN (SELECT id FROM input) GROUP BY d.item_id), touched AS (UPDATE work_items w SET comment_count = w.comment_count + 1, version = w.version + 1, updated_at = r.at
      FROM dependents r WHERE w.id = r.item_id AND w.status::text <> ALL(ARRAY(SELECT json_array_elements_text($2::json->'unless'))) RETURNING w.*), touched_event AS (INSERT INTO events (type, data, created_at)
      SELECT $2::json->>'event', json_build_object('id', t.id::text, 'type', t.type::text, 'description', t.description::text, 'priority', t.priority, 'status', t.status::text, 'assigned_agent', t.assigned_agent::text, 'created_by', t.created_by::text, 'created_at', to_char(t.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'updated_at', to_char(t.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'completed_at', to_char(t.completed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'outcome', t.outcome::text, 'notes', t.notes::text, 'payload', t.payload::json, 'project_id', t.project_id::text, 'version', t.version, 'attempts', t.attempts, 'max_attempts', t.max_attempts, 'retry_delay_s', t.retry_delay_s, 'run_after', to_char(t.run_after AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'lease_expires_at', to_char(t.lease_expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'parent_id', t.parent_id::text, 'waiting_on', t.waiting_on, 'actor', $2::json->'actor')::text, t.updated_at FROM touched t ORDER BY t.id), touched_comment AS (INSERT INTO work_comments (id, work_item_id, author, role, kind, body, links, created_at)
            SELECT gen_random_uuid(), t.id, $2::json->'actor'->>'name', $2::json->'actor'->>'role', 'note', r.note, '[]', t.updated_at
            FROM touched t JOIN dependents r ON r.item_id = t.id) SELECT id FROM changed;
