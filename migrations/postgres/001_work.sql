-- Work items, projects, the dispatch log and the event log (PostgreSQL).
-- Text that is sorted or compared uses COLLATE "C" so ordering matches SQLite byte for byte.

CREATE TABLE projects (
  id uuid PRIMARY KEY,
  name text COLLATE "C" NOT NULL,
  name_key text COLLATE "C" NOT NULL,
  external_ref text,
  created_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX projects_name_key ON projects (name_key);

CREATE TABLE work_items (
  id uuid PRIMARY KEY,
  type text COLLATE "C" NOT NULL,
  description text NOT NULL,
  priority integer NOT NULL CHECK (priority BETWEEN 1 AND 5),
  status text COLLATE "C" NOT NULL,
  assigned_agent text COLLATE "C",
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  completed_at timestamptz,
  outcome text,
  notes text,
  -- text, not jsonb: the payload comes back with the caller's key order, as on SQLite
  payload text,
  project_id uuid REFERENCES projects (id) ON DELETE SET NULL
);
CREATE INDEX work_items_newest ON work_items (created_at, id);
CREATE INDEX work_items_queue ON work_items (priority, created_at, id);
CREATE INDEX work_items_status_newest ON work_items (status, created_at, id);
CREATE INDEX work_items_status_queue ON work_items (status, priority, created_at, id);
CREATE INDEX work_items_agent_newest ON work_items (assigned_agent, created_at, id);
CREATE INDEX work_items_project_newest ON work_items (project_id, created_at, id);
CREATE INDEX work_items_type_newest ON work_items (type, created_at, id);

CREATE TABLE dispatch_log (
  id uuid PRIMARY KEY,
  work_item_id uuid NOT NULL REFERENCES work_items (id) ON DELETE CASCADE,
  agent text NOT NULL,
  dispatched_at timestamptz NOT NULL,
  completed_at timestamptz,
  outcome text
);
CREATE INDEX dispatch_log_item ON dispatch_log (work_item_id, dispatched_at);
CREATE UNIQUE INDEX dispatch_log_one_open ON dispatch_log (work_item_id) WHERE completed_at IS NULL;

CREATE TABLE events (
  id bigserial PRIMARY KEY,
  type text NOT NULL,
  data text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX events_created ON events (created_at);
