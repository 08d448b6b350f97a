update "work_items" set "status" = ?, "assigned_agent" = ?, "version" = ?, "updated_at" = ? where "id" = ? and "version" = ?;

insert into "dispatch_log" ("id", "work_item_id", "agent", "dispatched_at", "completed_at", "outcome", "reason") values (?, ?, ?, ?, ?, ?, ?);

insert into "work_history" ("at", "actor", "role", "action", "changes", "work_item_id") values (?, ?, ?, ?, ?, ?);

insert into "events" ("type", "data", "created_at") values (?, ?, ?) returning "id";
