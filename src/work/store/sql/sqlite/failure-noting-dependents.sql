update "work_items" set "status" = ?, "outcome" = ?, "completed_at" = ?, "version" = ?, "updated_at" = ? where "id" = ? and "version" = ? and "link_version" = ?;

update "dispatch_log" set "completed_at" = ?, "outcome" = ?, "reason" = ? where "work_item_id" = ? and "completed_at" is null;

insert into "work_history" ("at", "actor", "role", "action", "changes", "work_item_id") values (?, ?, ?, ?, ?, ?);

insert into "events" ("type", "data", "created_at") values (?, ?, ?) returning "id";

UPDATE work_items SET version = version + 1, updated_at = ?, comment_count = comment_count + 1
            WHERE id IN (SELECT item_id FROM work_dependencies WHERE depends_on_id = ?) AND status NOT IN (?, ?) RETURNING *;

INSERT INTO work_comments (id, work_item_id, author, role, kind, body, links, created_at)
          VALUES (lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' ||
  substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))), ?, ?, ?, 'note', ?, '[]', ?);

insert into "events" ("type", "data", "created_at") values (?, ?, ?) returning "id";
