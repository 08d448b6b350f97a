SELECT min(run_after) AS next FROM work_items WHERE status = 'queued' AND waiting_on = 0 AND run_after > $1;
