// The SQLite writer thread (a worker_threads worker; started by sqlite-writer.ts, which holds
// the protocol's types). It owns the one connection that writes: every statement of every
// transaction, and every COMMIT with its fsync, runs here, so the service's event loop keeps
// parsing requests and writing answers while the disk flushes, and the next group commit fills.
//
// Plain JavaScript, not TypeScript, because a worker is started from a file Node can run as it
// is: the tests run the TypeScript sources through Vitest, which a worker thread does not go
// through. `npm run build:server` copies this file next to the compiled sqlite-writer.js.
//
// Messages in: arrays of requests, run in order. A request marked `pipelined` (BEGIN, SAVEPOINT,
// RELEASE, ROLLBACK TO: statements whose answer nobody reads) gets no reply, so a transaction
// costs no round trip for them; if one fails, the thread remembers the error ("poisoned") and
// every later statement fails with it, COMMIT included, until a ROLLBACK: nothing after a failed
// BEGIN or SAVEPOINT can commit. Messages out: arrays of replies, one per request not pipelined.
'use strict';

const { parentPort, workerData } = require('node:worker_threads');
const BetterSqlite3 = require('better-sqlite3');

/** Statements kept prepared: the service sends the same few dozen SQL texts over and over. */
const STATEMENT_CACHE_SIZE = 256;

const db = new BetterSqlite3(workerData.path, { timeout: workerData.busyTimeoutMs });
db.pragma('journal_mode = WAL');
// FULL makes every COMMIT fsync the WAL before it returns: a reply to a COMMIT means on disk.
db.pragma('synchronous = FULL');
db.pragma('foreign_keys = ON');

const statements = new Map();
/** @type {Error | null} */
let poisoned = null;
let commits = 0;

function prepare(text) {
  let statement = statements.get(text);
  if (!statement) {
    if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear();
    statement = db.prepare(text);
    statements.set(text, statement);
  }
  return statement;
}

const COMMIT = /^\s*commit\s*$/i;
const ROLLBACK = /^\s*rollback\s*$/i;

// Kysely's SqliteConnection, minus the BigInts (sqlite-writer.ts makes them again).
function run(text, parameters) {
  if (COMMIT.test(text)) {
    commits += 1;
    // Fault injection for test/process/writer-thread.test.ts only: die as a crash would,
    // at the worst moment, with a batch written but not committed.
    if (workerData.exitAtCommit !== null && commits >= workerData.exitAtCommit) process.exit(70);
  }
  const statement = prepare(text);
  if (statement.reader) return { rows: statement.all(parameters) };
  const { changes, lastInsertRowid } = statement.run(parameters);
  return { rows: [], changes, lastInsertRowid: Number(lastInsertRowid) };
}

/** What crosses the thread boundary of an error: the codes db.ts's mapping reads. */
function plainError(error) {
  return { message: String(error && error.message), code: error && error.code, name: error && error.name };
}

function handle(request) {
  if (request.close) {
    db.close();
    process.exit(0);
  }
  const { sql, parameters, pipelined } = request;
  if (poisoned && !ROLLBACK.test(sql)) {
    return pipelined ? undefined : { id: request.id, error: poisoned };
  }
  if (ROLLBACK.test(sql)) poisoned = null;
  try {
    const result = run(sql, parameters);
    return pipelined ? undefined : { id: request.id, result };
  } catch (error) {
    if (pipelined) {
      poisoned = plainError(error);
      return undefined;
    }
    return { id: request.id, error: plainError(error) };
  }
}

parentPort.on('message', (requests) => {
  const replies = [];
  for (const request of requests) {
    const reply = handle(request);
    if (reply) replies.push(reply);
  }
  if (replies.length > 0) parentPort.postMessage(replies);
});
