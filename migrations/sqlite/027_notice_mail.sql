-- A notice: mail to one person about the desk itself (the owner of a webhook the desk turned off).
-- SQLite cannot change a CHECK in place: the table is rebuilt with the same columns and indexes.
CREATE TABLE notifications_new (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('question', 'review', 'digest', 'escalation', 'test', 'notice')),
  -- the person told, and the address the mail went to (kept as it was when written)
  person TEXT NOT NULL,
  address TEXT NOT NULL,
  -- null for digests and test mails; no foreign key: the record of who was told outlives nothing it names
  work_item_id TEXT,
  question_id TEXT,
  message_id TEXT NOT NULL,
  subject TEXT NOT NULL,
  text_body TEXT NOT NULL,
  html_body TEXT NOT NULL,
  -- {"In-Reply-To": …, "References": …, "Reply-To": …} as JSON text
  headers TEXT NOT NULL,
  -- failed: the last attempt failed; retried while next_attempt_at is set, given up when it is null;
  -- skipped: its question closed before it went, never sent (last_error says why)
  status TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'failed', 'skipped')),
  attempts INTEGER NOT NULL DEFAULT 0,
  -- when the sender may next try; null once sent, skipped or given up
  next_attempt_at TEXT,
  -- the lease of the sender that holds the row: nobody else sends it before this time
  claimed_until TEXT,
  last_error TEXT,
  created_at TEXT NOT NULL,
  sent_at TEXT
);
INSERT INTO notifications_new (id, kind, person, address, work_item_id, question_id, message_id, subject, text_body, html_body, headers, status, attempts, next_attempt_at, claimed_until, last_error, created_at, sent_at)
  SELECT id, kind, person, address, work_item_id, question_id, message_id, subject, text_body, html_body, headers, status, attempts, next_attempt_at, claimed_until, last_error, created_at, sent_at FROM notifications;
DROP TABLE notifications;
ALTER TABLE notifications_new RENAME TO notifications;
CREATE UNIQUE INDEX notifications_message_id ON notifications (message_id);
CREATE INDEX notifications_due ON notifications (next_attempt_at) WHERE next_attempt_at IS NOT NULL;
CREATE INDEX notifications_item ON notifications (work_item_id, created_at, id);
CREATE INDEX notifications_created ON notifications (created_at, id);
