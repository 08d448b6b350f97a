-- What the classifier's provider calls cost (SQLite). Nothing of the email is kept here: no
-- subject, body, sender, record key or fingerprint, only the model, the tokens and the outcome.

-- One row per provider call (a classification with its retries). Kept as long as the dedupe
-- records (DEDUPE_RETENTION_DAYS): it is the detail behind the hourly totals.
CREATE TABLE llm_calls (
  id INTEGER PRIMARY KEY,
  at TEXT NOT NULL,
  provider TEXT NOT NULL,
  model TEXT NOT NULL,
  -- ok, or the failure kind that ended in the fallback answer
  result TEXT NOT NULL,
  -- requests sent to the provider, retries included
  attempts INTEGER NOT NULL CHECK (attempts >= 0),
  input_tokens INTEGER NOT NULL CHECK (input_tokens >= 0),
  output_tokens INTEGER NOT NULL CHECK (output_tokens >= 0),
  latency_ms INTEGER NOT NULL CHECK (latency_ms >= 0)
);
CREATE INDEX llm_calls_at ON llm_calls (at);

-- Totals per hour and model, written with the call in the same transaction; what
-- GET /classify/usage reads, and kept for good (cost history outlives the dedupe records).
-- SQLite has one writer, so one row per hour and model (shard 0) is no bottleneck here.
CREATE TABLE llm_usage_hourly (
  hour TEXT NOT NULL,
  provider TEXT NOT NULL,
  model TEXT NOT NULL,
  shard INTEGER NOT NULL,
  calls INTEGER NOT NULL DEFAULT 0,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  duplicates_served INTEGER NOT NULL DEFAULT 0,
  fallbacks INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (hour, provider, model, shard)
);
