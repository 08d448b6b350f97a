SELECT min(run_after) AS next FROM work_items INDEXED BY work_items_due
        WHERE status = 'queued' AND waiting_on = 0 AND run_after > ?;
