-- A question or review mail whose question closed (answered by another way, or moot) before the
-- sender took it is not sent: `skipped`, with the reason in last_error.
ALTER TABLE notifications DROP CONSTRAINT notifications_status_check;
ALTER TABLE notifications
  ADD CONSTRAINT notifications_status_check CHECK (status IN ('pending', 'sent', 'failed', 'skipped'));
