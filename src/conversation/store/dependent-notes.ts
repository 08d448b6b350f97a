import { sql } from 'kysely';
import type { DependentNotes } from '../../work/store/dependencies-port.js';

// The notes an item's end leaves on its dependents' timelines, as comments of kind `note`: the
// work store writes them in the change's own commit (its statement on PostgreSQL), and asks
// here for the write, since the comments are the conversation's table. The dependents' counter
// is moved by the work store's update of the dependents, in the same commit.

/** A random (version 4) UUID in SQLite's SQL, for rows written by SQL alone. */
const RANDOM_UUID_SQL = sql`lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' ||
  substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))`;

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
