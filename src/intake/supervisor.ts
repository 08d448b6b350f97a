// Which instance watches which mailbox: each mailbox has a lease on its row (owner, expiry); when
// an instance dies its leases expire and another takes them over. The same on SQLite and
// PostgreSQL, with the instances' clocks.

import { randomId } from '../shared/db/ids.js';
import type { Logger } from 'pino';
import type { IntakeConfig } from '../shared/config/config.js';
import { type Timeouts } from './imap/connection.js';
import { type GraphEndpoints } from './graph/client.js';
import type { HostGuard } from './host-guard.js';
import { startGraphWatcher } from './graph/watcher.js';
import { type Watcher, startImapWatcher } from './imap/watcher.js';
import type { Pipeline } from './pipeline.js';
import type { IntakeStore } from './store/port.js';
import type { MailboxRow } from './tables.js';
import { drainUploads } from './uploads.js';

export interface SupervisorDeps {
  store: IntakeStore;
  pipeline: Pipeline;
  openSecret: (row: MailboxRow) => string;
  config: Pick<IntakeConfig, 'pollIntervalMs' | 'leaseMs' | 'reconnectMaxMs' | 'concurrency'>;
  timeouts: Timeouts;
  graph: GraphEndpoints;
  guard: HostGuard;
  logger: Logger;
}

export interface Supervisor {
  readonly owner: string;
  start(): void;
  /** Something changed (a mailbox edited, an upload queued): look now rather than at the next tick. */
  wake(mailboxId?: string): void;
  stop(): Promise<void>;
}

interface Runner {
  watcher: Pick<Watcher, 'poke' | 'running' | 'stop'> | null;
  /** The settings the watcher was started with: a change restarts it. */
  signature: string | null;
  draining: Promise<void> | null;
  stopping: boolean;
}

function connectionSignature(row: MailboxRow): string {
  return JSON.stringify([
    row.kind,
    row.host,
    row.port,
    row.tls,
    row.username,
    row.auth,
    row.secret,
    row.folder,
    row.tenant_id,
    row.client_id,
    row.address,
  ]);
}

export function createSupervisor(deps: SupervisorDeps): Supervisor {
  const owner = randomId();
  const log = deps.logger.child({ component: 'intake', instance: owner });
  const runners = new Map<string, Runner>();
  const tickMs = Math.max(500, Math.min(5_000, Math.floor(deps.config.leaseMs / 3)));
  let timer: NodeJS.Timeout | undefined;
  let ticking: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  const poked = new Set<string>();

  async function stopRunner(id: string, runner: Runner, release: boolean): Promise<void> {
    runner.stopping = true;
    await runner.watcher?.stop();
    await runner.draining;
    runners.delete(id);
    if (release) {
      const at = new Date().toISOString();
      await deps.store.setState(id, owner, { state: 'stopped', at }).catch(() => undefined);
      await deps.store.releaseLease(id, owner).catch(() => undefined);
    }
  }

  function startDrain(row: MailboxRow, runner: Runner): void {
    if (runner.draining) return;
    runner.draining = drainUploads({
      store: deps.store,
      pipeline: deps.pipeline,
      owner,
      concurrency: deps.config.concurrency,
      logger: log,
      current: async () => (await deps.store.findMailbox(row.id)) ?? row,
      stopped: () => runner.stopping || stopped,
    })
      .catch((error: unknown) =>
        log.warn(
          { mailbox: row.id, err: { message: (error as Error).message } },
          'import paused; retried at the next tick',
        ),
      )
      .finally(() => {
        runner.draining = null;
      });
  }

  async function refresh(row: MailboxRow, runner: Runner): Promise<void> {
    const watch = row.enabled === 1;
    const signature = connectionSignature(row);
    if (runner.watcher && (!watch || signature !== runner.signature || !runner.watcher.running())) {
      await runner.watcher.stop();
      runner.watcher = null;
      if (!watch) await deps.store.setState(row.id, owner, { state: 'stopped', at: new Date().toISOString() });
    }
    if (watch && !runner.watcher) {
      runner.signature = signature;
      const common = {
        mailboxId: row.id,
        owner,
        store: deps.store,
        pipeline: deps.pipeline,
        openSecret: deps.openSecret,
        logger: log,
        pollIntervalMs: deps.config.pollIntervalMs,
        reconnectMaxMs: deps.config.reconnectMaxMs,
        concurrency: deps.config.concurrency,
      };
      runner.watcher =
        row.kind === 'imap'
          ? startImapWatcher({ ...common, timeouts: deps.timeouts, guard: deps.guard })
          : startGraphWatcher({ ...common, endpoints: deps.graph });
    } else if (poked.has(row.id)) {
      runner.watcher?.poke();
    }
    startDrain(row, runner);
  }

  /**
   * Takes or renews, in one UPDATE, the leases of the mailboxes that need watching and are free,
   * expired or already this instance's, and runs a watcher for exactly those. Every write a watcher
   * makes is fenced by its lease (store/), so one that lost its mailbox while paused writes no more.
   */
  async function tick(): Promise<void> {
    const now = Date.now();
    const mine = new Set(
      await deps.store.claimLeases(
        owner,
        new Date(now).toISOString(),
        new Date(now + deps.config.leaseMs).toISOString(),
      ),
    );
    for (const [id, runner] of runners) {
      if (!mine.has(id)) await stopRunner(id, runner, true);
    }
    for (const id of mine) {
      if (stopped) return;
      const row = await deps.store.findMailbox(id);
      if (!row) continue;
      let runner = runners.get(id);
      if (!runner) {
        runner = { watcher: null, signature: null, draining: null, stopping: false };
        runners.set(id, runner);
        log.info({ mailbox: id }, 'mailbox taken');
      }
      await refresh(row, runner);
    }
    poked.clear();
  }

  function schedule(): void {
    if (stopped) return;
    if (ticking) {
      again = true;
      return;
    }
    ticking = tick()
      .catch((error: unknown) =>
        log.warn({ err: { message: (error as Error).message } }, 'intake supervisor tick failed; retrying'),
      )
      .finally(() => {
        ticking = null;
        if (again) {
          again = false;
          schedule();
        }
      });
  }

  return {
    owner,
    start() {
      if (timer) return;
      timer = setInterval(schedule, tickMs);
      timer.unref();
      schedule();
    },
    wake(mailboxId) {
      if (mailboxId) poked.add(mailboxId);
      schedule();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await ticking;
      await Promise.all([...runners].map(([id, runner]) => stopRunner(id, runner, true)));
    },
  };
}
