WITH req AS (
        SELECT ($1::text[])[ord] AS agent, ord FROM generate_subscripts($1::text[], 1) AS r(ord)
      ), own AS (
        SELECT req.ord, m.* FROM req CROSS JOIN LATERAL (
          SELECT * FROM work_items WHERE assigned_agent = req.agent AND status = 'dispatched' AND waiting_on = 0
          ORDER BY created_at, id LIMIT 1
        ) m
      ), head AS (SELECT * FROM work_items WHERE status = 'queued' AND waiting_on < 1 AND (run_after IS NULL OR run_after <= $2) ORDER BY priority, created_at, id LIMIT (SELECT count(*) FROM req) - (SELECT count(*) FROM own))
      SELECT c.*, (SELECT COALESCE(json_agg(json_build_object('id', d.id::text, 'work_item_id', d.work_item_id::text, 'agent', d.agent::text, 'dispatched_at', to_char(d.dispatched_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'completed_at', to_char(d.completed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'outcome', d.outcome::text, 'reason', d.reason::text)), '[]'::json) FROM dispatch_log d WHERE d.work_item_id = c.id) AS dispatch_log
      FROM (SELECT * FROM own UNION ALL SELECT NULL::bigint, h.* FROM head h) c
      ORDER BY c.ord NULLS LAST, c.priority, c.created_at, c.id;
