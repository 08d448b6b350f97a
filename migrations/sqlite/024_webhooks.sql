-- Webhooks (SQLite): endpoints other systems gave us, one delivery per event that matches an
-- endpoint (written by the fan-out from the event log, src/webhooks/fan-out.ts), each attempt to
-- send it, and how far the fan-out has read the log. The sender leases an endpoint, not a row,
-- so one endpoint's deliveries go one at a time and in order (src/webhooks/sender.ts).
CREATE TABLE webhook_endpoints (
  id TEXT PRIMARY KEY,
  url TEXT NOT NULL,
  -- JSON array of event names, or ["*"]
  events TEXT NOT NULL,
  project_id TEXT,
  -- JSON array of work types, or null for every type
  types TEXT,
  format TEXT NOT NULL CHECK (format IN ('standard', 'slack')),
  description TEXT,
  enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  disabled_reason TEXT CHECK (disabled_reason IN ('gone', 'failing', 'admin')),
  -- the first failure since the last success; null while it succeeds
  failing_since TEXT,
  -- whsec_…: kept to sign with, shown only at create and rotate
  secret TEXT NOT NULL,
  previous_secret TEXT,
  previous_valid_until TEXT,
  -- the sender that holds this endpoint's deliveries: nobody else sends them before this time
  claimed_until TEXT,
  created_by TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE webhook_deliveries (
  -- the order of an endpoint's deliveries: the fan-out writes them in event order
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  -- msg_…: the webhook-id header, the same on every retry and redelivery
  id TEXT NOT NULL UNIQUE,
  endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  -- null for a test delivery
  event_id INTEGER,
  type TEXT NOT NULL,
  -- the body as sent, kept so a retry or redelivery sends the same bytes
  body TEXT NOT NULL,
  -- pending: waiting for its first or next attempt (next_attempt_at); failed: given up
  status TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempt_count INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT,
  created_at TEXT NOT NULL,
  delivered_at TEXT
);
-- A fan-out run again over the same events makes no second delivery.
CREATE UNIQUE INDEX webhook_deliveries_event ON webhook_deliveries (endpoint_id, event_id);
-- The head of an endpoint's queue: its oldest pending delivery.
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (endpoint_id, seq) WHERE status = 'pending';
-- The delivery log, newest first; retention by age.
CREATE INDEX webhook_deliveries_listed ON webhook_deliveries (endpoint_id, seq);
CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at);

CREATE TABLE webhook_attempts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  delivery_id TEXT NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  at TEXT NOT NULL,
  status_code INTEGER,
  latency_ms INTEGER NOT NULL,
  -- the first KiB of the answer
  response_body TEXT,
  error TEXT
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, id);

-- One row: the last event id the fan-out has turned into deliveries. Starts at the log's head, so
-- a new desk does not announce the events it held before webhooks existed.
CREATE TABLE webhook_fan_out (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  event_id INTEGER NOT NULL
);
INSERT INTO webhook_fan_out (id, event_id) SELECT 1, coalesce(max(id), 0) FROM events;

-- The status each work item had at the last event the fan-out read: a work.updated names the new
-- status only, and the per-status names (work.completed, …) are for changes of it.
CREATE TABLE webhook_item_status (
  work_item_id TEXT PRIMARY KEY,
  status TEXT NOT NULL
);
