-- The agent loop (PostgreSQL): claims with leases, retries with backoff, versions for If-Match,
-- idempotent submits.

ALTER TABLE work_items
  -- Every change increments version: the ETag, and the guard of every conditional write.
  ADD COLUMN version integer NOT NULL DEFAULT 1,
  -- Claims made so far; the claim numbered max_attempts is the last.
  ADD COLUMN attempts integer NOT NULL DEFAULT 0,
  ADD COLUMN max_attempts integer NOT NULL DEFAULT 3 CHECK (max_attempts BETWEEN 1 AND 100),
  ADD COLUMN retry_delay_s integer NOT NULL DEFAULT 30 CHECK (retry_delay_s BETWEEN 0 AND 86400),
  -- A queued item is not claimable before run_after (null: at once).
  ADD COLUMN run_after timestamptz,
  -- Set while an agent holds the item on a lease; null when there is no lease or it is paused (blocked).
  ADD COLUMN lease_expires_at timestamptz,
  -- The length of the current lease, so a PATCH or an unblock renews it by as much.
  ADD COLUMN lease_s integer;

ALTER TABLE dispatch_log ADD COLUMN reason text;

-- The sweep finds expired leases without reading items that hold none.
CREATE INDEX work_items_lease ON work_items (lease_expires_at) WHERE lease_expires_at IS NOT NULL;
-- Clients polling for changes (updated_since), and the created_by filter.
CREATE INDEX work_items_updated ON work_items (updated_at, id);
CREATE INDEX work_items_creator_newest ON work_items (created_by, created_at, id);
-- An agent's own dispatched items come first in a claim, oldest first.
CREATE INDEX work_items_agent_status ON work_items (assigned_agent, status, created_at, id);

-- Idempotency-Key of POST /work: the first response for (caller, key), replayed for 24 hours.
CREATE TABLE idempotency_keys (
  scope text NOT NULL,
  idempotency_key text NOT NULL,
  request_hash text NOT NULL,
  response_status integer NOT NULL,
  response_body text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (scope, idempotency_key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
