SELECT run_after AS next FROM work_items WHERE status = 'queued' AND waiting_on < 1 AND run_after > $1
          ORDER BY run_after LIMIT 1;
