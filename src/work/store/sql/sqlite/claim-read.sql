SELECT * FROM work_items INDEXED BY work_items_agent_status
          WHERE assigned_agent = ? AND status = 'dispatched' AND waiting_on = 0
          ORDER BY created_at, id LIMIT 1;

SELECT * FROM work_items INDEXED BY work_items_agent_status
          WHERE assigned_agent = ? AND status = 'dispatched' AND waiting_on = 0
          ORDER BY created_at, id LIMIT 1;

SELECT * FROM work_items INDEXED BY work_items_claimable
    WHERE status = 'queued' AND waiting_on = 0 AND (run_after IS NULL OR run_after <= ?) ORDER BY priority, created_at, id LIMIT ?;
