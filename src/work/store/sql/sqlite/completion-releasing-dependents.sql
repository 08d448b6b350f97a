update "work_items" set "status" = ?, "outcome" = ?, "completed_at" = ?, "version" = ?, "updated_at" = ? where "id" = ? and "version" = ? and "link_version" = ?;

update "dispatch_log" set "completed_at" = ?, "outcome" = ?, "reason" = ? where "work_item_id" = ? and "completed_at" is null;

insert into "work_history" ("at", "actor", "role", "action", "changes", "work_item_id") values (?, ?, ?, ?, ?, ?);

insert into "events" ("type", "data", "created_at") values (?, ?, ?) returning "id";

UPDATE work_items SET waiting_on = waiting_on - 1, version = version + 1, updated_at = ?
            WHERE id IN (SELECT item_id FROM work_dependencies WHERE depends_on_id = ?) RETURNING *;

insert into "events" ("type", "data", "created_at") values (?, ?, ?) returning "id";
