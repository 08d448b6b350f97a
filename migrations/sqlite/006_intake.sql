-- Mail intake (SQLite): connected mailboxes, the log of every message they delivered, and
-- the uploads (.eml, mbox) waiting to go through the same pipeline.

CREATE TABLE intake_mailboxes (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('imap', 'graph')),
  -- IMAP
  host TEXT,
  port INTEGER,
  tls TEXT CHECK (tls IN ('none', 'starttls', 'tls')),
  username TEXT,
  -- Microsoft Graph (client credentials)
  tenant_id TEXT,
  client_id TEXT,
  address TEXT,
  -- how the secret is used: password, xoauth2 (an access token) or client_secret
  auth TEXT NOT NULL,
  -- AES-256-GCM under AGENTDESK_SECRET_KEY, bound to this row's id; never the secret in clear
  secret TEXT,
  folder TEXT NOT NULL,
  since TEXT,
  project_id TEXT REFERENCES projects (id) ON DELETE SET NULL,
  enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  -- the routing rules as JSON text, in the order they are tried
  rules TEXT NOT NULL,
  state TEXT NOT NULL,
  state_changed_at TEXT NOT NULL,
  last_error TEXT,
  last_error_at TEXT,
  last_sync_at TEXT,
  -- the cursor: IMAP UIDVALIDITY and the last UID whose outcome is stored; Graph's deltaLink
  uid_validity INTEGER,
  last_uid INTEGER,
  delta_link TEXT,
  seen_count INTEGER NOT NULL DEFAULT 0,
  classified_count INTEGER NOT NULL DEFAULT 0,
  created_count INTEGER NOT NULL DEFAULT 0,
  noted_count INTEGER NOT NULL DEFAULT 0,
  failed_count INTEGER NOT NULL DEFAULT 0,
  backfill_done INTEGER NOT NULL DEFAULT 0,
  backfill_total INTEGER NOT NULL DEFAULT 0,
  -- which instance watches the mailbox, until when (renewed while it lives)
  lease_owner TEXT,
  lease_expires_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX intake_mailboxes_created ON intake_mailboxes (created_at, id);

CREATE TABLE intake_messages (
  id TEXT PRIMARY KEY,
  mailbox_id TEXT NOT NULL REFERENCES intake_mailboxes (id) ON DELETE CASCADE,
  source TEXT NOT NULL,
  -- where this copy came from: imap:<uidvalidity>:<uid>, import:<upload>:<n>, graph:<id>
  source_ref TEXT NOT NULL,
  -- SHA-256 of the raw message: the same bytes again are the same message
  source_hash TEXT NOT NULL,
  -- Message-ID, else the source hash: what a work item is keyed by
  message_key TEXT NOT NULL,
  conversation_key TEXT,
  sender TEXT,
  subject TEXT,
  received_at TEXT,
  status TEXT NOT NULL CHECK (status IN ('done', 'failed')),
  action TEXT NOT NULL,
  category TEXT,
  needs_action INTEGER,
  priority TEXT,
  dedupe_status TEXT,
  fingerprint TEXT,
  classification TEXT,
  work_item_id TEXT REFERENCES work_items (id) ON DELETE SET NULL,
  rule_index INTEGER,
  error TEXT,
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX intake_messages_source ON intake_messages (mailbox_id, source_ref);
-- One work item per message and mailbox, whatever crashes and restarts happen around it.
CREATE UNIQUE INDEX intake_messages_one_item ON intake_messages (mailbox_id, message_key) WHERE action = 'created';
CREATE INDEX intake_messages_newest ON intake_messages (mailbox_id, created_at, id);
CREATE INDEX intake_messages_key ON intake_messages (mailbox_id, message_key);
CREATE INDEX intake_messages_hash ON intake_messages (mailbox_id, source_hash);
CREATE INDEX intake_messages_fingerprint ON intake_messages (mailbox_id, fingerprint);
CREATE INDEX intake_messages_thread ON intake_messages (mailbox_id, conversation_key);
CREATE INDEX intake_messages_item ON intake_messages (work_item_id);

-- Uploaded messages not yet through the pipeline; each row leaves with its outcome.
CREATE TABLE intake_uploads (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  mailbox_id TEXT NOT NULL REFERENCES intake_mailboxes (id) ON DELETE CASCADE,
  source_ref TEXT NOT NULL,
  raw BLOB NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX intake_uploads_mailbox ON intake_uploads (mailbox_id, id);
