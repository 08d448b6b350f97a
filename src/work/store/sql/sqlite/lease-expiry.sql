update "work_items" set "status" = ?, "assigned_agent" = ?, "version" = ?, "updated_at" = ? where "id" = ? and "version" = ?;

update "dispatch_log" set "completed_at" = ?, "outcome" = ?, "reason" = ? where "work_item_id" = ? and "completed_at" is null;

insert into "work_history" ("at", "actor", "role", "action", "changes", "work_item_id") values (?, ?, ?, ?, ?, ?);

insert into "events" ("type", "data", "created_at") values (?, ?, ?) returning "id";
