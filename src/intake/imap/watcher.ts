// Watches one IMAP mailbox: connect, open the folder, take in every message past the cursor, then
// IDLE until the server announces mail (or the poll interval passes, in case IDLE missed it), and
// again. Any failure shows on the mailbox as `error` with the reason, and the watcher reconnects.

import { ImapFlow } from 'imapflow';
import type { Logger } from 'pino';
import { LeaseLost } from '../errors.js';
import { COMMIT_BATCH, runOrdered } from '../ordered.js';
import { ClassificationUnavailable, type IncomingMessage, type Pipeline } from '../pipeline.js';
import type { IntakeStore } from '../store/port.js';
import type { MailboxRow, MailboxState } from '../tables.js';
import { cleanText } from '../clean-text.js';
import { ConnectionFailure } from '../failure.js';
import { type HostGuard, normalizeHost } from '../host-guard.js';
import { type ImapTarget, type Timeouts, checkHost, describeFailure, imapOptions, imapTarget } from './connection.js';

export interface WatcherDeps {
  mailboxId: string;
  owner: string;
  store: IntakeStore;
  pipeline: Pipeline;
  /** The mailbox's secret in clear; throws when it cannot be opened. */
  openSecret: (row: MailboxRow) => string;
  logger: Logger;
  pollIntervalMs: number;
  reconnectMaxMs: number;
  concurrency: number;
  timeouts: Timeouts;
  /** Where mailbox hosts may connect to (host-guard.ts). */
  guard: HostGuard;
}

export interface Watcher {
  /** Look at the folder now (the mailbox changed, or a test wants it). */
  poke(): void;
  /** False once it ended by itself (its lease was lost). */
  running(): boolean;
  stop(): Promise<void>;
}

/** UIDs fetched and processed per round: bounds the memory a large backfill takes. */
const CHUNK = 50;
/** More new messages than this at once is a backfill, and shows progress on the mailbox. */
const BACKFILL_THRESHOLD = 20;
/** A message larger than this is cut: the classifier reads the first few thousand characters anyway. */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
const RECONNECT_MIN_MS = 500;

function sleepUnless(ms: number, wake: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))), wake]).finally(() =>
    clearTimeout(timer),
  );
}

export function startImapWatcher(deps: WatcherDeps): Watcher {
  const log = deps.logger.child({ mailbox: deps.mailboxId });
  let stopped = false;
  let signal!: () => void;
  let wakeUp = new Promise<void>((resolve) => (signal = resolve));
  let client: ImapFlow | null = null;

  const wake = () => signal();
  const rearm = () => {
    wakeUp = new Promise<void>((resolve) => (signal = resolve));
  };

  async function setState(state: MailboxState, extra: { error?: string; synced?: boolean } = {}): Promise<void> {
    const kept = await deps.store.setState(deps.mailboxId, deps.owner, {
      state,
      at: new Date().toISOString(),
      ...extra,
    });
    if (!kept) throw new LeaseLost(deps.mailboxId);
  }

  async function current(): Promise<MailboxRow> {
    const row = await deps.store.findMailbox(deps.mailboxId);
    if (!row) throw new LeaseLost(deps.mailboxId);
    return row;
  }

  /** Where to start in a folder seen for the first time, or again after a UIDVALIDITY change. */
  async function startingPoint(imap: ImapFlow, row: MailboxRow, uidNext: number, resync: boolean): Promise<number> {
    const from = row.since ?? (resync ? row.created_at : null);
    if (from === null) return uidNext - 1;
    const found = await imap.search({ since: new Date(from) }, { uid: true });
    const uids = Array.isArray(found) ? found : [];
    return uids.length > 0 ? Math.min(...uids) - 1 : uidNext - 1;
  }

  async function fetchChunk(
    imap: ImapFlow,
    uids: number[],
    uidValidity: number,
    backfill: boolean,
    skipKnown: boolean,
    row: MailboxRow,
  ): Promise<IncomingMessage[]> {
    let wanted = uids;
    if (skipKnown) {
      // After a UIDVALIDITY change: envelopes first, and only unknown messages are downloaded.
      const envelopes = await imap.fetchAll(uids.join(','), { uid: true, envelope: true }, { uid: true });
      // Cleaned as mime.ts cleans the Message-ID (clean-text.ts), so that the keys compare.
      const keyOf = (message: (typeof envelopes)[number]) => cleanText(message.envelope?.messageId ?? '').trim();
      const known = await deps.store.knownMessageKeys(
        row.id,
        envelopes.map(keyOf).filter((id) => id !== ''),
      );
      wanted = envelopes.filter((message) => !known.has(keyOf(message))).map((message) => message.uid);
      if (wanted.length === 0) return [];
    }
    const fetched = await imap.fetchAll(
      wanted.join(','),
      { uid: true, internalDate: true, source: { maxLength: MAX_MESSAGE_BYTES } },
      { uid: true },
    );
    return fetched
      .filter((message) => message.source !== undefined)
      .sort((a, b) => a.uid - b.uid)
      .map((message) => ({
        source: 'imap' as const,
        source_ref: `imap:${uidValidity}:${message.uid}`,
        raw: message.source!,
        received_at: message.internalDate ? new Date(message.internalDate).toISOString() : null,
        uid: message.uid,
        backfill,
      }));
  }

  /**
   * Takes in every message past the cursor. The folder is selected again first: a folder
   * deleted and made again under the open session is only seen that way (a new UIDVALIDITY).
   * The cursor is UIDVALIDITY and the last UID whose outcome is stored; the pipeline moves it in the
   * same transaction as the outcome. When UIDVALIDITY changes the old UIDs mean nothing: the folder
   * is read again from the mailbox's start date, and messages already in the log (by Message-ID)
   * are passed over without being downloaded or classified again.
   */
  async function sync(imap: ImapFlow, target: ImapTarget): Promise<void> {
    let box;
    try {
      box = await imap.mailboxOpen(target.folder);
    } catch (error) {
      throw describeFailure(error, target, imap.usable ? 'folder' : 'session');
    }
    const uidValidity = Number(box.uidValidity);
    let row = await current();
    let resync = false;
    if (row.uid_validity === null || row.uid_validity !== uidValidity || row.last_uid === null) {
      resync = row.uid_validity !== null && row.uid_validity !== uidValidity;
      if (resync)
        log.warn({ was: row.uid_validity, now: uidValidity }, 'UIDVALIDITY changed; reading the folder again');
      const start = await startingPoint(imap, row, box.uidNext, resync);
      if (!(await deps.store.resetCursor(row.id, deps.owner, uidValidity, start, new Date().toISOString())))
        throw new LeaseLost(row.id);
      row = await current();
    }
    const last = row.last_uid ?? 0;
    const found = await imap.search({ uid: `${last + 1}:*` }, { uid: true });
    const uids = (Array.isArray(found) ? found : []).filter((uid) => uid > last).sort((a, b) => a - b);
    if (uids.length === 0) return;
    const backfill = uids.length > BACKFILL_THRESHOLD;
    if (backfill) {
      await deps.store.addBackfill(row.id, uids.length, new Date().toISOString());
      log.info({ messages: uids.length }, 'backfill started');
    }
    const chunks: number[][] = [];
    for (let start = 0; start < uids.length; start += CHUNK) chunks.push(uids.slice(start, start + CHUNK));
    // The next chunk downloads while this one is classified and written.
    const download = (chunk: number[]) => {
      const fetching = current().then((fresh) => fetchChunk(imap, chunk, uidValidity, backfill, resync, fresh));
      fetching.catch(() => undefined);
      return fetching;
    };
    let next = download(chunks[0]!);
    for (const [index, chunk] of chunks.entries()) {
      if (stopped) break;
      const messages = await next;
      if (index + 1 < chunks.length) next = download(chunks[index + 1]!);
      row = await current();
      await runOrdered(
        messages,
        deps.concurrency,
        COMMIT_BATCH,
        (message) => deps.pipeline.prepare(row, message),
        async (batch) => {
          await deps.pipeline.commit(
            row,
            deps.owner,
            batch.map(({ item, prepared }) => ({ message: item, prepared })),
          );
        },
        () => stopped,
      );
      // Messages passed over (known, expunged) still move the cursor past this chunk.
      if (!stopped && !(await deps.store.moveCursor(row.id, deps.owner, chunk.at(-1)!))) throw new LeaseLost(row.id);
      if (backfill)
        log.info({ done: Math.min((index + 1) * CHUNK, uids.length), total: uids.length }, 'backfill progress');
    }
    // A download started for a chunk that will not be processed is left to finish on its own.
    await next.catch(() => undefined);
  }

  async function connectAndWatch(): Promise<void> {
    const row = await current();
    const target = imapTarget(row);
    await setState('connecting');
    let secret: string;
    try {
      secret = deps.openSecret(row);
    } catch (error) {
      throw new ConnectionFailure('secret', (error as Error).message);
    }
    await checkHost(deps.guard, normalizeHost(target.host) ?? target.host);
    const imap = new ImapFlow(imapOptions(target, secret, deps.guard, deps.timeouts));
    client = imap;
    let lastError: unknown = null;
    imap.on('error', (error: unknown) => {
      lastError = error;
      wake();
    });
    imap.on('close', wake);
    imap.on('exists', wake);
    try {
      await imap.connect();
    } catch (error) {
      throw describeFailure(error, target, 'connect');
    }
    log.info({ host: target.host, folder: target.folder }, 'mailbox connected');
    while (!stopped) {
      rearm();
      await setState('syncing');
      try {
        await sync(imap, target);
      } catch (error) {
        if (error instanceof ClassificationUnavailable && imap.usable) {
          // The mail server is fine: wait, then try the same messages again on this connection.
          log.warn({ reason: error.message }, 'classification failed; retrying after a pause');
          await setState('error', { error: error.message });
          await sleepUnless(backoff(), wakeUp);
          continue;
        }
        if (error instanceof LeaseLost || error instanceof ConnectionFailure || imap.usable) throw error;
        throw describeFailure(lastError ?? error, target, 'session');
      }
      await setState('idle', { synced: true });
      attempt = 0;
      await sleepUnless(deps.pollIntervalMs, wakeUp);
      if (!imap.usable && !stopped) {
        throw describeFailure(
          lastError ?? Object.assign(new Error('the server closed the connection'), { code: 'EConnectionClosed' }),
          target,
          'session',
        );
      }
    }
  }

  let attempt = 0;
  let ended = false;
  /** The next wait: doubling from half a second to the configured maximum, with jitter. */
  const backoff = (): number => {
    const delay = Math.min(deps.reconnectMaxMs, RECONNECT_MIN_MS * 2 ** attempt) * (0.75 + Math.random() * 0.5);
    attempt += 1;
    return delay;
  };
  const done = (async () => {
    while (!stopped) {
      try {
        await connectAndWatch();
      } catch (error) {
        if (error instanceof LeaseLost) {
          log.info('mailbox lease lost; watcher stops');
          return;
        }
        if (stopped) break;
        const failure =
          error instanceof ConnectionFailure
            ? error
            : describeFailure(error, { host: '?', port: 0, username: '?', folder: '?' }, 'connect');
        log.warn({ stage: failure.stage, reason: failure.message }, 'mailbox watcher failed; reconnecting');
        await setState('error', { error: failure.message }).catch(() => undefined);
      } finally {
        // Set inside connectAndWatch, which the compiler does not follow.
        const imap = client as ImapFlow | null;
        client = null;
        if (imap) {
          // Its closing must not cut the backoff short.
          imap.removeAllListeners('close');
          imap.removeAllListeners('exists');
          await imap.logout().catch(() => imap.close());
        }
      }
      if (stopped) break;
      rearm();
      await sleepUnless(backoff(), wakeUp);
    }
  })().finally(() => {
    ended = true;
  });

  return {
    poke: wake,
    running: () => !ended,
    async stop() {
      stopped = true;
      wake();
      client?.close();
      await done;
    },
  };
}
