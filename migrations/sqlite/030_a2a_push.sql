-- A2A push notification configs: each is a webhook endpoint scoped to one work item (the task),
-- so its deliveries go through the webhooks' fan-out, signing, retries and log. `headers` holds
-- the extra headers a delivery carries (the A2A token, the receiver's Authorization), sealed as
-- the secret is. The A2A side keeps the config as the client gave it (src/a2a/push.ts).
ALTER TABLE webhook_endpoints ADD COLUMN work_item_id TEXT REFERENCES work_items (id) ON DELETE CASCADE;
ALTER TABLE webhook_endpoints ADD COLUMN headers TEXT;
CREATE INDEX webhook_endpoints_item ON webhook_endpoints (work_item_id) WHERE work_item_id IS NOT NULL;

CREATE TABLE a2a_push_configs (
  task_id TEXT NOT NULL REFERENCES work_items (id) ON DELETE CASCADE,
  -- the config's id within its task, the client's or one the desk chose
  id TEXT NOT NULL,
  endpoint_id TEXT NOT NULL UNIQUE REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  url TEXT NOT NULL,
  token TEXT NOT NULL,
  -- the receiver's authentication scheme; its credentials are kept sealed in the endpoint only
  auth_scheme TEXT,
  -- the task's context and its requester (the item's creator), which a question's push needs
  context_id TEXT NOT NULL,
  requester TEXT NOT NULL,
  created_by TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (task_id, id)
);
