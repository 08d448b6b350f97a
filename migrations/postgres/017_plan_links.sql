-- Two columns no client sees. `link_version` moves whenever an item gains or loses a dependent;
-- an item's end (the change that tells its dependents) is guarded on it, so a dependent added
-- while the dependency completes is counted, without moving the version its holder's If-Match
-- names. `container` (0 or 1) marks a plan's parent: never claimable (it waits on one more than
-- its dependencies), completed by the desk when its last step completes.
ALTER TABLE work_items ADD COLUMN link_version INTEGER NOT NULL DEFAULT 0;
ALTER TABLE work_items ADD COLUMN container INTEGER NOT NULL DEFAULT 0 CHECK (container IN (0, 1));
-- The open plans, for the sweep that settles one whose last step's completion a crash cut short.
CREATE INDEX work_items_open_containers ON work_items (id) WHERE container = 1 AND status = 'queued';
