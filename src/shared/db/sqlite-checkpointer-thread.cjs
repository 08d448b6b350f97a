// The SQLite checkpointer thread (sqlite-checkpointer.ts starts it): its own connection to the
// database file, copying the WAL back into the database with PASSIVE checkpoints, which never
// wait for a lock and never block a writer. A checkpoint fsyncs the WAL and then the database
// file; here that wait stalls this thread only, never the service's event loop.
//
// Under a steady stream of writes a PASSIVE checkpoint never reaches the end of the log, so the
// log never starts over and the file grows without end. So once the log holds more than
// `maxBytes`, this thread asks the main thread to hold its writers ('hold'); once it says none
// is in a transaction ('held'), a RESTART checkpoint copies the rest back and waits, at most
// `restartWaitMs`, for readers still on the old log; then the writers go on ('release') and the
// next commit starts the log from its beginning. A reader of another process that outlasts the
// wait makes the attempt fail ('busy'): it is tried again `retryMs` later.
// CommonJS and plain JavaScript, so the same file runs from src/ (tests) and dist/ (the build).
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const Database = require('better-sqlite3');

const db = new Database(workerData.path, { timeout: workerData.busyTimeoutMs, fileMustExist: true });
// The checkpoint's syncs follow this connection's setting: FULL (NORMAL would do as well).
db.pragma('synchronous = FULL');
db.pragma('wal_autocheckpoint = 0');
const pageSize = Number(db.pragma('page_size', { simple: true }));
/** A WAL frame: its 24-byte header and one page; the file starts with a 32-byte header. */
const frameBytes = pageSize + 24;

let checkpoints = 0;
/** The hold asked for and not yet released; null while none is. */
let hold = null;
let holds = 0;
/** No new hold is asked for before this time (after a RESTART that readers held up). */
let retryAt = 0;
/** RESTART attempts that failed since the log was last under its bound. */
let failedRestarts = 0;
/** The log's frames at the last RESTART that finished, until a commit starts the log over. */
let resetAt = null;

function report(kind, outcome, result) {
  const logBytes = result && result.log >= 0 ? 32 + result.log * frameBytes : null;
  parentPort.postMessage({
    type: 'checkpointed',
    kind,
    outcome,
    busy: result ? result.busy : 1,
    log: result ? result.log : -1,
    checkpointed: result ? result.checkpointed : -1,
    stuck: logBytes !== null && workerData.maxBytes > 0 && logBytes > workerData.maxBytes && failedRestarts > 0,
  });
  return logBytes;
}

function run(mode) {
  try {
    return db.pragma(`wal_checkpoint(${mode})`)[0];
  } catch (error) {
    // A full disk (the database file cannot grow), an I/O error: tried again next time.
    return { error: error.code ?? error.message };
  }
}

function checkpoint() {
  const result = run('PASSIVE');
  if (result.error) report('passive', 'failed', null);
  else {
    const overBytes = workerData.maxBytes > 0 && 32 + result.log * frameBytes > workerData.maxBytes;
    if (!overBytes) failedRestarts = 0;
    report('passive', result.checkpointed === result.log ? 'done' : 'partial', result);
    // A PASSIVE that copied back all it saw proves nothing: commits made meanwhile are past it.
    // After a RESTART the log is the same until the next commit starts it over: no new hold.
    if (resetAt !== null && result.log !== resetAt) resetAt = null;
    const over = overBytes && resetAt === null;
    if (over && hold === null && Date.now() >= retryAt) {
      hold = ++holds;
      parentPort.postMessage({ type: 'hold', id: hold });
    }
  }
  // Fault injection for the checkpointer-death test (TEST_SQLITE_CHECKPOINTER_EXIT_AFTER): in a
  // worker, process.exit ends this thread only.
  if (workerData.exitAfter !== null && ++checkpoints >= workerData.exitAfter) process.exit(1);
}

function restart(id) {
  if (id !== hold) return;
  // The busy handler waits for readers still on the old log, and for another process's writer.
  db.pragma(`busy_timeout = ${workerData.restartWaitMs}`);
  const result = run('RESTART');
  db.pragma(`busy_timeout = ${workerData.busyTimeoutMs}`);
  const done = !result.error && result.busy === 0;
  if (done) {
    failedRestarts = 0;
    resetAt = result.log;
  } else {
    failedRestarts += 1;
    retryAt = Date.now() + workerData.retryMs;
  }
  report('restart', result.error ? 'failed' : done ? 'done' : 'busy', result.error ? null : result);
  hold = null;
  parentPort.postMessage({ type: 'release', id });
}

// Also on a timer: writes the main thread does not count, and the last ones before a lull.
const timer = setInterval(checkpoint, workerData.intervalMs);

parentPort.on('message', (message) => {
  if (message === 'checkpoint') checkpoint();
  else if (message.type === 'held') restart(message.id);
  // The main thread stopped holding before the RESTART began (its bound ran out): later.
  else if (message.type === 'expired' && message.id === hold) {
    hold = null;
    failedRestarts += 1;
    retryAt = Date.now() + workerData.retryMs;
  } else if (message === 'stop') {
    clearInterval(timer);
    db.close();
    parentPort.close();
  }
});

parentPort.postMessage({ type: 'ready' });
