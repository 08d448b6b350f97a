// The event log's reading side on SQLite: one writer at a time, so a reader sees every commit and
// there is never a writer to wait for.

import { sql } from 'kysely';
import type { DatabaseHandle } from '../../../shared/db/schema.js';
import { type EventLog, type StoredEvent, logPositionOf, storedEventOf } from './port.js';

interface Reached {
  reached: number;
}

// The highest id handed out: sqlite_sequence (AUTOINCREMENT) only ever moves up, deletes and
// rollbacks included; a fresh or reset database starts it again from zero.
const REACHED = sql<Reached>`SELECT coalesce(max(seq), 0) AS reached FROM sqlite_sequence WHERE name = 'events'`;

export function createSqliteEventLog(db: DatabaseHandle): EventLog {
  return {
    async after(id, limit, maxBytes) {
      // SQLite's length counts characters, not bytes.
      const { rows } = await sql<StoredEvent>`
        SELECT id, type, data, created_at FROM (
          SELECT id, type, data, created_at, length(data) AS own, sum(length(data)) OVER (ORDER BY id) AS upto
          FROM events WHERE id > ${id} ORDER BY id LIMIT ${limit}
        ) AS page
        WHERE upto - own < ${maxBytes}
        ORDER BY id`.execute(db);
      return rows.map(storedEventOf);
    },

    async position() {
      const [latest, counter] = await Promise.all([
        db
          .selectFrom('events')
          .select((eb) => eb.fn.max('id').as('id'))
          .executeTakeFirst(),
        REACHED.execute(db),
      ]);
      return logPositionOf(latest?.id, counter.rows[0]?.reached);
    },

    async oldest() {
      const row = await db
        .selectFrom('events')
        .select((eb) => eb.fn.min('id').as('id'))
        .executeTakeFirst();
      return Number(row?.id ?? 0);
    },

    // A reader sees every commit, and ids are taken under the one write lock in commit order:
    // nothing is ever in flight below a visible id.
    async writersNow() {
      return '';
    },

    async ended() {
      return true;
    },

    async purgeBefore(at, upTo, limit) {
      let oldest = db.selectFrom('events').select('id').where('created_at', '<', at);
      if (upTo !== undefined) oldest = oldest.where('id', '<=', upTo);
      const result = await db
        .deleteFrom('events')
        .where('id', 'in', oldest.orderBy('id').limit(limit))
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
