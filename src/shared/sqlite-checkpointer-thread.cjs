// The SQLite checkpointer thread (sqlite-checkpointer.ts starts it): its own connection to the
// database file, copying the WAL back into the database with PASSIVE checkpoints, which never
// wait for a lock and never block a writer. A checkpoint fsyncs the WAL and then the database
// file; here that wait stalls this thread only, never the service's event loop.
// CommonJS and plain JavaScript, so the same file runs from src/ (tests) and dist/ (the build).
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const Database = require('better-sqlite3');

const db = new Database(workerData.path, { timeout: workerData.busyTimeoutMs, fileMustExist: true });
// The checkpoint's syncs follow this connection's setting: FULL (NORMAL would do as well).
db.pragma('synchronous = FULL');
db.pragma('wal_autocheckpoint = 0');

let checkpoints = 0;

function checkpoint() {
  const [result] = db.pragma('wal_checkpoint(PASSIVE)');
  parentPort.postMessage({ type: 'checkpointed', busy: result.busy, log: result.log, checkpointed: result.checkpointed });
  // Fault injection for the checkpointer-death test (TEST_SQLITE_CHECKPOINTER_EXIT_AFTER): in a
  // worker, process.exit ends this thread only.
  if (workerData.exitAfter !== null && ++checkpoints >= workerData.exitAfter) process.exit(1);
}

// Also on a timer: writes the main thread does not count, and the last ones before a lull.
const timer = setInterval(checkpoint, workerData.intervalMs);

parentPort.on('message', (message) => {
  if (message === 'checkpoint') checkpoint();
  else if (message === 'stop') {
    clearInterval(timer);
    db.close();
    parentPort.close();
  }
});

parentPort.postMessage({ type: 'ready' });
