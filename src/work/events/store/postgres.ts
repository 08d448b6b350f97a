// The event log's reading side on PostgreSQL: ids come from a sequence as events are inserted but
// become visible in commit order, so it also names the log's writers still running.

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

    // The writers are the transactions holding a write lock on this log: an INSERT takes it
    // before its id, and keeps it to the end. A snapshot would name every writing transaction of
    // the cluster, and a long one that never touches the log would hold the stream at each gap.
    async writersNow() {
      const { rows } = await sql<{ mark: string }>`
        SELECT coalesce(string_agg(DISTINCT virtualtransaction, ','), '') AS mark
        FROM pg_locks
        WHERE locktype = 'relation' AND relation = 'events'::regclass AND mode = 'RowExclusiveLock'
          AND pid <> pg_backend_pid()`.execute(db);
      return rows[0]!.mark;
    },

    async ended(mark) {
      if (mark === '') return true;
      // A transaction holds the lock on its own virtual id until it commits or rolls back.
      const { rows } = await sql<{ running: number }>`
        SELECT count(*)::int AS running
        FROM pg_locks
        WHERE locktype = 'virtualxid' AND virtualxid = ANY (string_to_array(${mark}, ','))`.execute(db);
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
