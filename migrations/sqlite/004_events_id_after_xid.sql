-- Nothing to change on SQLite: ids are taken under its one write lock, in commit order, so a
-- reader never sees a later id while an earlier one is still uncommitted. The file keeps the
-- migration numbers of the two dialects in step.
SELECT 1;
