// The event log's reading side on PostgreSQL: ids come from a sequence as events are inserted but
// become visible in commit order, so it also names the writers still running.

import { sql } from 'kysely';
import type { DatabaseHandle } from '../../../shared/db/schema.js';
import { type EventLog, type StoredEvent, logPositionOf, storedEventOf } from './port.js';

interface Reached {
  reached: number;
}

// The highest id handed out: the sequence only ever moves up, deletes and rollbacks included; a
// fresh or reset database starts it again from zero.
const REACHED = sql<Reached>`SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS reached FROM events_id_seq`;

export function createPostgresEventLog(db: DatabaseHandle): EventLog {
  return {
    async after(id, limit, maxBytes) {
      // octet_length does not even fetch the rows past the cap.
      const { rows } = await sql<StoredEvent>`
        SELECT id, type, data, created_at FROM (
          SELECT id, type, data, created_at, octet_length(data) AS own, sum(octet_length(data)) OVER (ORDER BY id) AS upto
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

    async writersNow() {
      const { rows } = await sql<{ mark: string }>`SELECT pg_current_snapshot()::text AS mark`.execute(db);
      return rows[0]!.mark;
    },

    async ended(mark) {
      // pg_xact_status is null for a transaction too old to be remembered: long finished.
      const { rows } = await sql<{ running: number }>`
        SELECT count(*)::int AS running
        FROM pg_snapshot_xip(${mark}::pg_snapshot) AS writer
        WHERE pg_xact_status(writer) = 'in progress'`.execute(db);
      return rows[0]!.running === 0;
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
