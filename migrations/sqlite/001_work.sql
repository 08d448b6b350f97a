-- Work items, projects, the dispatch log and the event log (SQLite).
-- Times are ISO 8601 UTC strings with milliseconds: they sort as text in time order.

CREATE TABLE projects (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  -- lower-cased name, computed by the service: uniqueness ignoring case the same on every store
  name_key TEXT NOT NULL,
  external_ref TEXT,
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX projects_name_key ON projects (name_key);

CREATE TABLE work_items (
  id TEXT PRIMARY KEY,
  type TEXT NOT NULL,
  description TEXT NOT NULL,
  priority INTEGER NOT NULL CHECK (priority BETWEEN 1 AND 5),
  status TEXT NOT NULL,
  assigned_agent TEXT,
  created_by TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  completed_at TEXT,
  outcome TEXT,
  notes TEXT,
  payload TEXT,
  project_id TEXT REFERENCES projects (id) ON DELETE SET NULL
);
-- One index per filter, each ending in the sort keys so a page is an index range.
CREATE INDEX work_items_newest ON work_items (created_at, id);
CREATE INDEX work_items_queue ON work_items (priority, created_at, id);
CREATE INDEX work_items_status_newest ON work_items (status, created_at, id);
CREATE INDEX work_items_status_queue ON work_items (status, priority, created_at, id);
CREATE INDEX work_items_agent_newest ON work_items (assigned_agent, created_at, id);
CREATE INDEX work_items_project_newest ON work_items (project_id, created_at, id);
CREATE INDEX work_items_type_newest ON work_items (type, created_at, id);

CREATE TABLE dispatch_log (
  id TEXT PRIMARY KEY,
  work_item_id TEXT NOT NULL REFERENCES work_items (id) ON DELETE CASCADE,
  agent TEXT NOT NULL,
  dispatched_at TEXT NOT NULL,
  completed_at TEXT,
  outcome TEXT
);
CREATE INDEX dispatch_log_item ON dispatch_log (work_item_id, dispatched_at);
-- At most one open dispatch per item, whatever the application does.
CREATE UNIQUE INDEX dispatch_log_one_open ON dispatch_log (work_item_id) WHERE completed_at IS NULL;

CREATE TABLE events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  type TEXT NOT NULL,
  data TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX events_created ON events (created_at);
