import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { type Generated, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { type Database, openDatabase, sqlitePath } from '../../src/shared/db/database.js';
import type { CheckpointResult } from '../../src/shared/db/sqlite-checkpointer.js';
import { captureLogs } from '../support/apps.js';
import { type TestDatabase, createTestDatabase } from '../support/databases.js';

/** The table these tests write, not the app's. */
type NotesTable = { notes: { id: Generated<number>; body: string } };

// The WAL's bound (SQLITE_WAL_MAX_MB, here its least, 1 MiB). Writes never pause from the test's
// side, and readers of another connection keep a snapshot open at every moment (each a little
// later than the last), as another process's busy readers would: PASSIVE checkpoints then never
// let the log start over, and without the bound it grows with every write. With it, the writers
// are held for a RESTART checkpoint and the file is cut back. A reader that keeps one snapshot
// open makes the RESTART fail: the writes still go on, /health's source says the WAL is over its
// bound, and once the reader lets go the log is reset.

const BOUND_MB = 1;
const ROW = 'x'.repeat(2_000);
/** Rows enough to go far past the bound if nothing resets the log. */
const ROUNDS = 400;
const PER_ROUND = 16;

/** Snapshots on two connections of their own, overlapping: one is always open. `hold` keeps the first. */
const READER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const connections = [new Database(workerData.path), new Database(workerData.path)];
let stop = false;
let reads = 0;
parentPort.on('message', () => { stop = true; });
function begin(db) { db.exec('BEGIN'); db.prepare('SELECT max(id) AS n FROM notes').get(); reads += 1; }
begin(connections[0]);
let turn = 1;
function step() {
  if (stop) {
    for (const db of connections) { if (db.inTransaction) db.exec('COMMIT'); db.close(); }
    parentPort.postMessage({ reads });
    return;
  }
  if (!workerData.hold) {
    const next = connections[turn];
    const older = connections[1 - turn];
    begin(next);
    if (older.inTransaction) older.exec('COMMIT');
    turn = 1 - turn;
  } else {
    connections[1].prepare('SELECT max(id) AS n FROM notes').get();
    reads += 1;
  }
  setTimeout(step, 1);
}
parentPort.postMessage('reading');
step();
`;

function startReader(path: string, hold: boolean): { stop: () => Promise<number> } {
  const worker = new Worker(READER, {
    eval: true,
    workerData: { path, hold, module: createRequire(import.meta.url).resolve('better-sqlite3') },
  });
  const reading = new Promise((resolve) => worker.once('message', resolve));
  return {
    stop: async () => {
      await reading;
      const done = new Promise<{ reads: number }>((resolve) =>
        worker.on('message', (message) => message !== 'reading' && resolve(message)),
      );
      worker.postMessage('stop');
      return (await done).reads;
    },
  };
}

describe('the SQLite WAL bound', () => {
  let testDatabase: TestDatabase | undefined;
  let database: Database | undefined;
  afterEach(async () => {
    await database?.close();
    await testDatabase?.destroy();
    database = undefined;
  });

  async function open(holdMs?: number) {
    testDatabase = await createTestDatabase('sqlite', { sqliteWalMaxMb: BOUND_MB });
    const results: CheckpointResult[] = [];
    const holds: number[] = [];
    database = await openDatabase(testDatabase.config, {
      logger: captureLogs('warn').logger,
      checkpointer: {
        everyCommits: 2,
        intervalMs: 50,
        ...(holdMs && { holdMs }),
        onCheckpoint: (result) => results.push(result),
        onHold: (seconds) => holds.push(seconds),
      },
    });
    await sql`create table notes (id integer primary key, body text not null)`.execute(database.kysely);
    // The bound is kept by the checkpointer's thread: until its first look (a loaded host can take
    // seconds to start a thread), writes checkpoint as SQLite's default would, unbounded.
    await expect.poll(() => results.length, { timeout: 60_000, interval: 10 }).toBeGreaterThan(0);
    const path = sqlitePath(testDatabase.config.url);
    const walBytes = () => statSync(`${path}-wal`).size;
    return { db: database, path, results, holds, walBytes };
  }

  const count = async (db: Database) =>
    Number((await sql<{ n: number }>`select count(*) as n from notes`.execute(db.kysely)).rows[0]!.n);
  const writeRound = (db: Database) =>
    Promise.all(
      Array.from({ length: PER_ROUND }, () =>
        db.transaction((trx) => trx.withTables<NotesTable>().insertInto('notes').values({ body: ROW }).execute()),
      ),
    );

  it(
    'holds the WAL near its bound while readers keep reading and the writes never stop',
    { timeout: 180_000 },
    async () => {
      const { db, path, results, holds, walBytes } = await open();
      const reader = startReader(path, false);
      let largest = 0;
      let readsHere = 0;
      for (let round = 0; round < ROUNDS; round++) {
        await writeRound(db);
        // Reads on the service's own connection go on too, between and during the holds.
        readsHere +=
          Number((await sql<{ n: number }>`select max(id) as n from notes`.execute(db.kysely)).rows[0]!.n) > 0 ? 1 : 0;
        largest = Math.max(largest, walBytes());
      }
      const reads = await reader.stop();
      expect(await count(db)).toBe(ROUNDS * PER_ROUND);
      expect(reads).toBeGreaterThan(0);
      expect(readsHere).toBe(ROUNDS);
      // The bound plus the writes between two looks of the checkpointer: well under what
      // the same writes leave without it.
      const outcomes = results
        .filter((r) => r.kind === 'restart')
        .map((r) => r.outcome)
        .join(',');
      expect(
        largest,
        `largest WAL ${largest} bytes; restarts: ${outcomes}; holds: ${holds.map((h) => h.toFixed(3)).join(',')}`,
      ).toBeLessThan(6 * BOUND_MB * 1024 * 1024);
      const restarts = results.filter((result) => result.kind === 'restart' && result.outcome === 'done');
      expect(restarts.length, 'RESTART checkpoints that reset the log').toBeGreaterThanOrEqual(3);
      expect(holds.length).toBeGreaterThanOrEqual(restarts.length);
      expect(db.sqliteStatus()?.wal).toMatchObject({ boundBytes: BOUND_MB * 1024 * 1024, overBound: false });
    },
  );

  it(
    'a reader that keeps one snapshot stops the reset only while it holds it; writes go on meanwhile',
    { timeout: 180_000 },
    async () => {
      const { db, path, results, walBytes } = await open(200);
      const reader = startReader(path, true);
      const bound = BOUND_MB * 1024 * 1024;
      let rounds = 0;
      // Writes go on past the bound; the RESTART cannot finish while the snapshot is open.
      while (!(db.sqliteStatus()?.wal?.overBound ?? false)) {
        await writeRound(db);
        rounds += 1;
        if (rounds > 5_000) throw new Error('the WAL was never reported over its bound');
      }
      expect(results.some((result) => result.kind === 'restart' && result.outcome === 'busy')).toBe(true);
      expect(walBytes()).toBeGreaterThan(bound);
      await reader.stop();
      // Let go: the log is copied back and starts over (by a RESTART, or at the next commit once a
      // PASSIVE copied everything), and the file is cut back to the bound.
      await expect
        .poll(
          async () => {
            await writeRound(db);
            rounds += 1;
            return walBytes() <= bound && db.sqliteStatus()?.wal?.overBound === false;
          },
          { timeout: 60_000, interval: 20 },
        )
        .toBe(true);
      expect(await count(db)).toBe(rounds * PER_ROUND);
    },
  );
});
