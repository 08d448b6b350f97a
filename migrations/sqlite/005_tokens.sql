-- Identity and access (SQLite): API tokens, browser sessions, the per-token classify budget.
-- No secret is ever stored: a token or a session id is kept only as the hex SHA-256 of it.

CREATE TABLE tokens (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('viewer', 'agent', 'intake', 'admin')),
  -- the agent name an agent token acts as; only agent tokens have one, and they must
  agent TEXT CHECK ((role = 'agent') = (agent IS NOT NULL)),
  secret_hash TEXT NOT NULL,
  created_at TEXT NOT NULL,
  -- who created it: a token's name, or "cli" for `agentdesk token create`
  created_by TEXT NOT NULL,
  expires_at TEXT,
  last_used_at TEXT,
  revoked_at TEXT
);
-- Every request looks its token up by the hash of what it presented.
CREATE UNIQUE INDEX tokens_secret_hash ON tokens (secret_hash);
CREATE INDEX tokens_created ON tokens (created_at, id);

-- A browser's sign-in: the cookie holds a random id, the row its hash and the credential it
-- was exchanged for (a token id, or "env:…" for AGENTDESK_ADMIN_TOKEN), so revoking the token
-- ends its sessions too.
CREATE TABLE sessions (
  id_hash TEXT PRIMARY KEY,
  credential TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX sessions_credential ON sessions (credential);
CREATE INDEX sessions_expires ON sessions (expires_at);

-- POST /classify calls per credential per minute (window_start is the minute, ISO 8601).
CREATE TABLE classify_budget (
  credential TEXT NOT NULL,
  window_start TEXT NOT NULL,
  used INTEGER NOT NULL CHECK (used >= 0),
  PRIMARY KEY (credential, window_start)
);
CREATE INDEX classify_budget_window ON classify_budget (window_start);
