-- Webhooks (PostgreSQL): endpoints other systems gave us, one delivery per event that matches an
-- endpoint (written by the fan-out from the event log, src/webhooks/fan-out.ts), each attempt to
-- send it, and how far the fan-out has read the log. The sender leases an endpoint, not a row
-- (FOR UPDATE SKIP LOCKED), so one endpoint's deliveries go one at a time, in order, from one
-- instance (src/webhooks/sender.ts). Text that is sorted or compared uses COLLATE "C" as on SQLite.
CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY,
  url text NOT NULL,
  -- JSON array of event names, or ["*"]
  events text NOT NULL,
  project_id uuid,
  -- JSON array of work types, or null for every type
  types text,
  format text COLLATE "C" NOT NULL CHECK (format IN ('standard', 'slack')),
  description text,
  enabled integer NOT NULL CHECK (enabled IN (0, 1)),
  disabled_reason text COLLATE "C" CHECK (disabled_reason IN ('gone', 'failing', 'admin')),
  -- the first failure since the last success; null while it succeeds
  failing_since timestamptz,
  -- whsec_…: kept to sign with, shown only at create and rotate
  secret text NOT NULL,
  previous_secret text,
  previous_valid_until timestamptz,
  -- the sender that holds this endpoint's deliveries: nobody else sends them before this time
  claimed_until timestamptz,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

CREATE TABLE webhook_deliveries (
  -- the order of an endpoint's deliveries: the fan-out writes them in event order, one at a time
  seq bigserial PRIMARY KEY,
  -- msg_…: the webhook-id header, the same on every retry and redelivery
  id text COLLATE "C" NOT NULL UNIQUE,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  -- null for a test delivery
  event_id bigint,
  type text NOT NULL,
  -- the body as sent, kept so a retry or redelivery sends the same bytes
  body text NOT NULL,
  -- pending: waiting for its first or next attempt (next_attempt_at); failed: given up
  status text COLLATE "C" NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempt_count integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  created_at timestamptz NOT NULL,
  delivered_at timestamptz
);
-- A fan-out run again over the same events makes no second delivery.
CREATE UNIQUE INDEX webhook_deliveries_event ON webhook_deliveries (endpoint_id, event_id);
-- The head of an endpoint's queue: its oldest pending delivery.
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (endpoint_id, seq) WHERE status = 'pending';
-- The delivery log, newest first; retention by age.
CREATE INDEX webhook_deliveries_listed ON webhook_deliveries (endpoint_id, seq);
CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at);

CREATE TABLE webhook_attempts (
  id bigserial PRIMARY KEY,
  delivery_id text COLLATE "C" NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  at timestamptz NOT NULL,
  status_code integer,
  latency_ms integer NOT NULL,
  -- the first KiB of the answer
  response_body text,
  error text
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, id);

-- One row: the last event id the fan-out has turned into deliveries. Starts at the log's head, so
-- a new desk does not announce the events it held before webhooks existed.
CREATE TABLE webhook_fan_out (
  id integer PRIMARY KEY CHECK (id = 1),
  event_id bigint NOT NULL
);
INSERT INTO webhook_fan_out (id, event_id) SELECT 1, coalesce(max(id), 0) FROM events;

-- The status each work item had at the last event the fan-out read: a work.updated names the new
-- status only, and the per-status names (work.completed, …) are for changes of it.
CREATE TABLE webhook_item_status (
  work_item_id uuid PRIMARY KEY,
  status text COLLATE "C" NOT NULL
);
