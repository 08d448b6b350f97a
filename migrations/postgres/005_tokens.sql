-- Identity and access (PostgreSQL): API tokens, browser sessions, the per-token classify budget.
-- No secret is ever stored: a token or a session id is kept only as the hex SHA-256 of it.

CREATE TABLE tokens (
  id text PRIMARY KEY,
  name text NOT NULL,
  role text NOT NULL CHECK (role IN ('viewer', 'agent', 'intake', 'admin')),
  -- the agent name an agent token acts as; only agent tokens have one, and they must
  agent text CHECK ((role = 'agent') = (agent IS NOT NULL)),
  secret_hash text NOT NULL,
  created_at timestamptz NOT NULL,
  -- who created it: a token's name, or "cli" for `agentdesk token create`
  created_by text NOT NULL,
  expires_at timestamptz,
  last_used_at timestamptz,
  revoked_at timestamptz
);
-- Every request looks its token up by the hash of what it presented.
CREATE UNIQUE INDEX tokens_secret_hash ON tokens (secret_hash);
CREATE INDEX tokens_created ON tokens (created_at, id);

-- A browser's sign-in: the cookie holds a random id, the row its hash and the credential it
-- was exchanged for (a token id, or "env:…" for AGENTDESK_ADMIN_TOKEN), so revoking the token
-- ends its sessions too.
CREATE TABLE sessions (
  id_hash text PRIMARY KEY,
  credential text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX sessions_credential ON sessions (credential);
CREATE INDEX sessions_expires ON sessions (expires_at);

-- POST /classify calls per credential per minute (window_start is the minute, ISO 8601).
CREATE TABLE classify_budget (
  credential text NOT NULL,
  window_start text NOT NULL,
  used integer NOT NULL CHECK (used >= 0),
  PRIMARY KEY (credential, window_start)
);
CREATE INDEX classify_budget_window ON classify_budget (window_start);
