import { sql } from 'kysely';
import type { Database } from '../../shared/db/database.js';

// The reading side of the event log, for the event hub. Writers append inside their own
// transactions through the work store; this reads what they committed and says what PostgreSQL
// knows about the writers still running, so the hub can tell a late commit from a rollback.

export interface StoredEvent {
  id: number;
  type: string;
  data: string;
  created_at: string;
}

export interface LogPosition {
  /** The newest event a reader can see now (0 when the log is empty). */
  latest: number;
  /** The highest id the log has handed out, committed or not: no event ever had a higher one. */
  reached: number;
}

export interface EventLog {
  /**
   * Committed events with ids above `id`, in id order: up to `limit` of them, and no more than
   * reach `maxBytes` of data (always at least one).
   */
  after(id: number, limit: number, maxBytes: number): Promise<StoredEvent[]>;
  position(): Promise<LogPosition>;
  /** A mark naming the transactions running now. */
  writersNow(): Promise<string>;
  /** True once every transaction named by `mark` has committed or rolled back. */
  ended(mark: string): Promise<boolean>;
  purgeBefore(at: string): Promise<number>;
}

export function createEventLog(database: Database): EventLog {
  const db = database.kysely;
  const postgres = database.dialect === 'postgres';
  return {
    async after(id, limit, maxBytes) {
      // The size cap keeps a read small when events are large: a client that drains slowly reads
      // again from the log each time, so reading far ahead of it would be wasted. PostgreSQL's
      // octet_length does not even fetch the rows past the cap; SQLite counts characters.
      const size = sql.raw(postgres ? 'octet_length(data)' : 'length(data)');
      const { rows } = await sql<StoredEvent>`
        SELECT id, type, data, created_at FROM (
          SELECT id, type, data, created_at, ${size} AS own, sum(${size}) OVER (ORDER BY id) AS upto
          FROM events WHERE id > ${id} ORDER BY id LIMIT ${limit}
        ) AS page
        WHERE upto - own < ${maxBytes}
        ORDER BY id`.execute(db);
      return rows.map((row) => ({ ...row, id: Number(row.id) }));
    },

    async position() {
      // The sequence (PostgreSQL) and sqlite_sequence (AUTOINCREMENT) only ever move up, deletes
      // and rollbacks included; a fresh or reset database starts them again from zero.
      const reached = postgres
        ? sql<{ reached: number }>`SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS reached FROM events_id_seq`
        : sql<{ reached: number }>`SELECT coalesce(max(seq), 0) AS reached FROM sqlite_sequence WHERE name = 'events'`;
      const [latest, counter] = await Promise.all([
        db
          .selectFrom('events')
          .select((eb) => eb.fn.max('id').as('id'))
          .executeTakeFirst(),
        reached.execute(db),
      ]);
      const last = Number(latest?.id ?? 0);
      return { latest: last, reached: Math.max(last, Number(counter.rows[0]?.reached ?? 0)) };
    },

    async writersNow() {
      // On SQLite a reader sees every commit, and ids are taken under the one write lock in
      // commit order: nothing is ever in flight below a visible id.
      if (!postgres) return '';
      const { rows } = await sql<{ mark: string }>`SELECT pg_current_snapshot()::text AS mark`.execute(db);
      return rows[0]!.mark;
    },

    async ended(mark) {
      if (!postgres) return true;
      // pg_xact_status is null for a transaction too old to be remembered: long finished.
      const { rows } = await sql<{ running: number }>`
        SELECT count(*)::int AS running
        FROM pg_snapshot_xip(${mark}::pg_snapshot) AS writer
        WHERE pg_xact_status(writer) = 'in progress'`.execute(db);
      return rows[0]!.running === 0;
    },

    async purgeBefore(at) {
      const result = await db.deleteFrom('events').where('created_at', '<', at).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
