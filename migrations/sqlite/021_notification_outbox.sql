-- The notification outbox (SQLite): every email the desk sends is first a row here, written in
-- the commit that opened its question or review, and sent after it by the sender loop
-- (src/notify/outbox/sender.ts). A kill between the commit and the send loses nothing: the row
-- waits, and the lease (`claimed_until`) keeps two instances from sending it at once.
CREATE TABLE notifications (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('question', 'review', 'digest', 'escalation', 'test')),
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
  -- failed: the last attempt failed; retried while next_attempt_at is set, given up when it is null
  status TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  -- when the sender may next try; null once sent or given up
  next_attempt_at TEXT,
  -- the lease of the sender that holds the row: nobody else sends it before this time
  claimed_until TEXT,
  last_error TEXT,
  created_at TEXT NOT NULL,
  sent_at TEXT
);
CREATE UNIQUE INDEX notifications_message_id ON notifications (message_id);
-- The sender's due query: only rows still to send are in it.
CREATE INDEX notifications_due ON notifications (next_attempt_at) WHERE next_attempt_at IS NOT NULL;
-- Who was told about an item, oldest first; the admins' list, newest first.
CREATE INDEX notifications_item ON notifications (work_item_id, created_at, id);
CREATE INDEX notifications_created ON notifications (created_at, id);
