-- Schedules (SQLite): recurring work. A schedule makes one work item per occurrence of its cron
-- expression in its IANA zone; next_run_at is the next occurrence in UTC, the pass's cursor.
-- name_key is the project (empty for none) and the lower-cased name: names unique per project.
-- The project's foreign key cascades: a deleted project takes its schedules (items already made
-- stay, their project_id set null by work_items' own key).
CREATE TABLE schedules (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  name_key TEXT NOT NULL,
  project_id TEXT REFERENCES projects (id) ON DELETE CASCADE,
  cron TEXT NOT NULL,
  tz TEXT NOT NULL,
  -- the item template as JSON text (type, description, priority, payload, agent, …)
  item TEXT NOT NULL,
  missed TEXT NOT NULL CHECK (missed IN ('skip', 'once', 'all')),
  max_catchup INTEGER NOT NULL,
  overlap TEXT NOT NULL CHECK (overlap IN ('skip', 'allow')),
  starts_at TEXT,
  ends_at TEXT,
  enabled INTEGER NOT NULL,
  -- why the desk disabled it (an item it could not make); null when a person did, or enabled
  disabled_reason TEXT,
  next_run_at TEXT,
  last_run_at TEXT,
  -- the lease of the pass that fires it: no other pass takes it before this time
  claimed_until TEXT,
  created_by TEXT NOT NULL,
  created_by_role TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  version INTEGER NOT NULL
);
CREATE UNIQUE INDEX schedules_name_key ON schedules (name_key);
-- The pass's due query: enabled schedules by their next occurrence.
CREATE INDEX schedules_due ON schedules (next_run_at) WHERE enabled = 1 AND next_run_at IS NOT NULL;
CREATE INDEX schedules_project ON schedules (project_id);

-- One row per occurrence a schedule reached, whether it made an item or not. The primary key is
-- the exactly-once key: the row and its item commit together, and a second insert of the same
-- occurrence (another instance, a retried commit) inserts nothing and so makes nothing.
-- Deleting a schedule drops its occurrences; the items stay (no foreign key to work_items: the
-- record outlives an item an admin deleted).
CREATE TABLE schedule_occurrences (
  schedule_id TEXT NOT NULL REFERENCES schedules (id) ON DELETE CASCADE,
  occurrence_at TEXT NOT NULL,
  work_item_id TEXT,
  outcome TEXT NOT NULL CHECK (outcome IN ('made', 'skipped_overlap', 'missed', 'run_now', 'failed')),
  reason TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (schedule_id, occurrence_at)
);
