// Watches one Microsoft 365 mailbox: Graph has no IDLE, so a delta round runs at every poll
// interval (and at once when poked), each page's messages going through the pipeline in order.

import type { Logger } from 'pino';
import type { GraphMessage } from '../../email/index.js';
import { LeaseLost } from '../errors.js';
import { ConnectionFailure } from '../failure.js';
import { COMMIT_BATCH, runOrdered } from '../ordered.js';
import { ClassificationUnavailable, type IncomingMessage, type Pipeline } from '../pipeline.js';
import type { IntakeStore } from '../store/port.js';
import type { MailboxRow, MailboxState } from '../tables.js';
import { DeltaExpired, type GraphClient, type GraphEndpoints, createGraphClient } from './client.js';

export interface GraphWatcherDeps {
  mailboxId: string;
  owner: string;
  store: IntakeStore;
  pipeline: Pipeline;
  openSecret: (row: MailboxRow) => string;
  endpoints: GraphEndpoints;
  logger: Logger;
  pollIntervalMs: number;
  reconnectMaxMs: number;
  concurrency: number;
}

export interface GraphWatcher {
  poke(): void;
  running(): boolean;
  stop(): Promise<void>;
}

const RETRY_MIN_MS = 500;

export function graphTarget(row: MailboxRow) {
  if (row.kind !== 'graph' || row.tenant_id === null || row.client_id === null || row.address === null) {
    throw new Error(`mailbox ${row.id} is not a complete Graph mailbox`);
  }
  return { tenant_id: row.tenant_id, client_id: row.client_id, address: row.address, folder: row.folder };
}

function receivedSince(message: GraphMessage, start: string): boolean {
  const received = Date.parse(message.receivedDateTime ?? '');
  return Number.isNaN(received) || received >= Date.parse(start);
}

export function startGraphWatcher(deps: GraphWatcherDeps): GraphWatcher {
  const log = deps.logger.child({ mailbox: deps.mailboxId });
  let stopped = false;
  let ended = false;
  let attempt = 0;
  let signal!: () => void;
  let wakeUp = new Promise<void>((resolve) => (signal = resolve));
  const rearm = () => (wakeUp = new Promise<void>((resolve) => (signal = resolve)));
  const pause = (ms: number) => {
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))), wakeUp]).finally(() =>
      clearTimeout(timer),
    );
  };
  const backoff = () => Math.min(deps.reconnectMaxMs, RETRY_MIN_MS * 2 ** attempt++) * (0.75 + Math.random() * 0.5);

  async function setState(state: MailboxState, extra: { error?: string; synced?: boolean } = {}): Promise<void> {
    if (!(await deps.store.setState(deps.mailboxId, deps.owner, { state, at: new Date().toISOString(), ...extra })))
      throw new LeaseLost(deps.mailboxId);
  }

  async function current(): Promise<MailboxRow> {
    const row = await deps.store.findMailbox(deps.mailboxId);
    if (!row) throw new LeaseLost(deps.mailboxId);
    return row;
  }

  // Kept across rounds, so its token serves until it expires (the watcher restarts when the
  // mailbox's settings or secret change).
  let client: GraphClient | null = null;

  /** One delta round, page by page, until Graph gives the delta link. */
  async function round(): Promise<void> {
    let row = await current();
    client ??= createGraphClient(graphTarget(row), deps.openSecret(row), deps.endpoints);
    // Mail received before the mailbox's start (its `since`, else its creation) is not taken in.
    const start = row.since ?? row.created_at;
    let link = row.delta_link;
    for (;;) {
      let page;
      try {
        page = await client.delta(link);
      } catch (error) {
        if (!(error instanceof DeltaExpired) || link === null) throw error;
        log.warn('delta link expired; starting a fresh delta query');
        link = null;
        continue;
      }
      await setState('syncing');
      const messages: IncomingMessage[] = page.messages
        .filter(
          (message) => !('@removed' in message) && typeof message.id === 'string' && receivedSince(message, start),
        )
        .map((message: GraphMessage) => ({
          source: 'graph' as const,
          // The log's unique source keeps a message Graph sends again (a flag changed) from counting twice.
          source_ref: `graph:${message.id}`,
          raw: message,
          received_at: message.receivedDateTime ? new Date(message.receivedDateTime).toISOString() : null,
          backfill: false,
        }));
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
      if (stopped) return;
      // Saved once the page's outcomes are durable, so a restart goes on from the last page done.
      link = page.next_link ?? page.delta_link;
      if (!(await deps.store.saveDeltaLink(row.id, deps.owner, link))) throw new LeaseLost(row.id);
      if (page.next_link === null) return;
    }
  }

  const done = (async () => {
    await setState('connecting').catch(() => undefined);
    while (!stopped) {
      rearm();
      try {
        await round();
        await setState('idle', { synced: true });
        attempt = 0;
        await pause(deps.pollIntervalMs);
      } catch (error) {
        if (error instanceof LeaseLost) return;
        if (stopped) break;
        const reason =
          error instanceof ConnectionFailure || error instanceof ClassificationUnavailable
            ? error.message
            : `Graph: ${(error as Error).message}`;
        log.warn(
          { stage: error instanceof ConnectionFailure ? error.stage : 'classify', reason },
          'graph mailbox failed; retrying',
        );
        await setState('error', { error: reason }).catch(() => undefined);
        await pause(backoff());
      }
    }
  })().finally(() => {
    ended = true;
  });

  return {
    poke: () => signal(),
    running: () => !ended,
    async stop() {
      stopped = true;
      signal();
      await done;
    },
  };
}
