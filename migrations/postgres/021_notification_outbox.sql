-- The notification outbox (PostgreSQL): every email the desk sends is first a row here, written
-- in the commit that opened its question or review, and sent after it by the sender loop
-- (src/notify/outbox/sender.ts). A kill between the commit and the send loses nothing: the row
-- waits, and the lease (`claimed_until`, taken with FOR UPDATE SKIP LOCKED) keeps two instances
-- from sending it at once. Text that is sorted or compared uses COLLATE "C" as on SQLite.
CREATE TABLE notifications (
  id uuid PRIMARY KEY,
  kind text COLLATE "C" NOT NULL CHECK (kind IN ('question', 'review', 'digest', 'escalation', 'test')),
  -- the person told, and the address the mail went to (kept as it was when written)
  person text COLLATE "C" NOT NULL,
  address text NOT NULL,
  -- null for digests and test mails; no foreign key: the record of who was told outlives nothing it names
  work_item_id uuid,
  question_id uuid,
  message_id text NOT NULL,
  subject text NOT NULL,
  text_body text NOT NULL,
  html_body text NOT NULL,
  -- {"In-Reply-To": …, "References": …, "Reply-To": …} as JSON text, kept as written
  headers text NOT NULL,
  -- failed: the last attempt failed; retried while next_attempt_at is set, given up when it is null
  status text COLLATE "C" NOT NULL CHECK (status IN ('pending', 'sent', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  -- when the sender may next try; null once sent or given up
  next_attempt_at timestamptz,
  -- the lease of the sender that holds the row: nobody else sends it before this time
  claimed_until timestamptz,
  last_error text,
  created_at timestamptz NOT NULL,
  sent_at timestamptz
);
CREATE UNIQUE INDEX notifications_message_id ON notifications (message_id);
-- The sender's due query: only rows still to send are in it.
CREATE INDEX notifications_due ON notifications (next_attempt_at) WHERE next_attempt_at IS NOT NULL;
-- Who was told about an item, oldest first; the admins' list, newest first.
CREATE INDEX notifications_item ON notifications (work_item_id, created_at, id);
CREATE INDEX notifications_created ON notifications (created_at, id);
