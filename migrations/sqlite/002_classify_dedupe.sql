-- Dedupe memory of the classification service (SQLite).
-- Every write is an INSERT … ON CONFLICT on one of these keys, so two requests racing on the
-- same email are decided by the unique constraint, never by a read followed by a write.

-- One row per email seen: keyed by its message key ("id:<internetMessageId or id>"), or by its
-- fingerprint ("fp:<sha256>") when it has none.
CREATE TABLE classify_messages (
  record_key TEXT PRIMARY KEY,
  fingerprint TEXT NOT NULL,
  conversation_id TEXT,
  -- pending while the first request for it is classifying; failed when every attempt failed
  state TEXT NOT NULL CHECK (state IN ('pending', 'done', 'failed')),
  -- the classification as JSON, once done
  result TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX classify_messages_updated ON classify_messages (updated_at);

-- The first email seen with a given content owns the fingerprint.
CREATE TABLE classify_fingerprints (
  fingerprint TEXT PRIMARY KEY,
  record_key TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX classify_fingerprints_updated ON classify_fingerprints (updated_at);

-- Requests seen per thread: "conv:<conversationId>", or "msg:<record_key>" without one.
CREATE TABLE classify_threads (
  thread_key TEXT PRIMARY KEY,
  seen_count INTEGER NOT NULL CHECK (seen_count > 0),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX classify_threads_updated ON classify_threads (updated_at);
