-- A notice: mail to one person about the desk itself (the owner of a webhook the desk turned off).
ALTER TABLE notifications DROP CONSTRAINT notifications_kind_check;
ALTER TABLE notifications
  ADD CONSTRAINT notifications_kind_check CHECK (kind IN ('question', 'review', 'digest', 'escalation', 'test', 'notice'));
