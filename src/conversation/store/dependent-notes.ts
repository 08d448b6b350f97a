import { sql } from 'kysely';
import { RANDOM_UUID_SQL } from '../../shared/db/ids.js';
import type { DependentNotes } from '../../work/index.js';

// The notes an item's end leaves on its dependents' timelines, as comments of kind `note`: the
// work store writes them in the change's own commit and asks here for the statement, since the
// comments are the conversation's table (the dependents' counter moves in the work store's update).

export const DEPENDENT_NOTES: DependentNotes = {
  async insert(db, note) {
    await sql`INSERT INTO work_comments (id, work_item_id, author, role, kind, body, links, created_at)
          VALUES (${RANDOM_UUID_SQL}, ${note.work_item_id}, ${note.author}, ${note.role}, 'note', ${note.body}, '[]', ${note.created_at})`.execute(
      db,
    );
  },

  insertAllSql({ touched, dependents, actor }) {
    return `INSERT INTO work_comments (id, work_item_id, author, role, kind, body, links, created_at)
            SELECT gen_random_uuid(), t.id, ${actor}->>'name', ${actor}->>'role', 'note', r.note, '[]', t.updated_at
            FROM ${touched} t JOIN ${dependents} r ON r.item_id = t.id`;
  },
};
