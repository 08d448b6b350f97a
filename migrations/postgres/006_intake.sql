-- Mail intake (PostgreSQL): connected mailboxes, the log of every message they delivered, and
-- the uploads (.eml, mbox) waiting to go through the same pipeline.

CREATE TABLE intake_mailboxes (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('imap', 'graph')),
  -- IMAP
  host text,
  port integer,
  tls text CHECK (tls IN ('none', 'starttls', 'tls')),
  username text,
  -- Microsoft Graph (client credentials)
  tenant_id text,
  client_id text,
  address text,
  -- how the secret is used: password, xoauth2 (an access token) or client_secret
  auth text NOT NULL,
  -- AES-256-GCM under AGENTDESK_SECRET_KEY, bound to this row's id; never the secret in clear
  secret text,
  folder text NOT NULL,
  since timestamptz,
  project_id uuid REFERENCES projects (id) ON DELETE SET NULL,
  enabled integer NOT NULL CHECK (enabled IN (0, 1)),
  -- the routing rules as JSON text, in the order they are tried
  rules text NOT NULL,
  state text NOT NULL,
  state_changed_at timestamptz NOT NULL,
  last_error text,
  last_error_at timestamptz,
  last_sync_at timestamptz,
  -- the cursor: IMAP UIDVALIDITY and the last UID whose outcome is stored; Graph's deltaLink
  uid_validity bigint,
  last_uid bigint,
  delta_link text,
  seen_count integer NOT NULL DEFAULT 0,
  classified_count integer NOT NULL DEFAULT 0,
  created_count integer NOT NULL DEFAULT 0,
  noted_count integer NOT NULL DEFAULT 0,
  failed_count integer NOT NULL DEFAULT 0,
  backfill_done integer NOT NULL DEFAULT 0,
  backfill_total integer NOT NULL DEFAULT 0,
  -- which instance watches the mailbox, until when (renewed while it lives)
  lease_owner text,
  lease_expires_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX intake_mailboxes_created ON intake_mailboxes (created_at, id);

CREATE TABLE intake_messages (
  id uuid PRIMARY KEY,
  mailbox_id uuid NOT NULL REFERENCES intake_mailboxes (id) ON DELETE CASCADE,
  source text NOT NULL,
  -- where this copy came from: imap:<uidvalidity>:<uid>, import:<upload>:<n>, graph:<id>
  source_ref text NOT NULL,
  -- SHA-256 of the raw message: the same bytes again are the same message
  source_hash text NOT NULL,
  -- Message-ID, else the source hash: what a work item is keyed by
  message_key text NOT NULL,
  conversation_key text,
  sender text,
  subject text,
  received_at timestamptz,
  status text NOT NULL CHECK (status IN ('done', 'failed')),
  action text NOT NULL,
  category text,
  needs_action integer,
  priority text,
  dedupe_status text,
  fingerprint text,
  classification text,
  work_item_id uuid REFERENCES work_items (id) ON DELETE SET NULL,
  rule_index integer,
  error text,
  created_at timestamptz NOT NULL
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
  id bigserial PRIMARY KEY,
  mailbox_id uuid NOT NULL REFERENCES intake_mailboxes (id) ON DELETE CASCADE,
  source_ref text NOT NULL,
  raw bytea NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX intake_uploads_mailbox ON intake_uploads (mailbox_id, id);
