-- What the classifier's provider calls cost (PostgreSQL). Nothing of the email is kept here: no
-- subject, body, sender, record key or fingerprint, only the model, the tokens and the outcome.

-- One row per provider call (a classification with its retries). Append-only, so concurrent
-- calls never wait on each other; kept as long as the dedupe records (DEDUPE_RETENTION_DAYS).
CREATE TABLE llm_calls (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at timestamptz NOT NULL,
  provider text NOT NULL,
  model text NOT NULL,
  -- ok, or the failure kind that ended in the fallback answer
  result text NOT NULL,
  -- requests sent to the provider, retries included
  attempts integer NOT NULL CHECK (attempts >= 0),
  input_tokens bigint NOT NULL CHECK (input_tokens >= 0),
  output_tokens bigint NOT NULL CHECK (output_tokens >= 0),
  latency_ms integer NOT NULL CHECK (latency_ms >= 0)
);
CREATE INDEX llm_calls_at ON llm_calls (at);

-- Totals per hour and model, written in the same statement as the call; what
-- GET /classify/usage reads, and kept for good (cost history outlives the dedupe records).
-- `shard` is the writing connection's backend pid modulo 16: concurrent transactions add to
-- different rows instead of queueing on one row lock until each commits; readers sum the shards.
CREATE TABLE llm_usage_hourly (
  hour timestamptz NOT NULL,
  provider text NOT NULL,
  model text NOT NULL,
  shard smallint NOT NULL,
  calls bigint NOT NULL DEFAULT 0,
  input_tokens bigint NOT NULL DEFAULT 0,
  output_tokens bigint NOT NULL DEFAULT 0,
  duplicates_served bigint NOT NULL DEFAULT 0,
  fallbacks bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (hour, provider, model, shard)
);
