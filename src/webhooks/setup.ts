import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Config } from '../shared/config/config.js';
import type { Database } from '../shared/db/database.js';
import { createSecretBox } from '../shared/secret-box.js';
import { createEventLog } from '../work/index.js';
import { type FanOut, createFanOut } from './fan-out.js';
import { createHttpTransport } from './http-transport.js';
import { registerWebhookMetrics } from './metrics.js';
import type { AppendEvent, ScopedBody, TellPerson, UrlGuard, WebhookTransport } from './ports.js';
import { type SenderOptions, type WebhookSender, startWebhookSender } from './sender.js';
import { createWebhookService } from './service.js';
import { webhookStatementsFor } from './store/index.js';

// webhooks' parts, built once per process by the composition root (services/work.ts): the admins'
// service, the fan-out from the event log, the sender, and the retention of the delivery log.

const FAN_OUT_POLL_MS = 1_000;
const FAN_OUT_GATHER_MS = 20;
const RETENTION_EVERY_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface WebhooksDeps {
  config: Readonly<Config>;
  database: Database;
  logger: Logger;
  now: () => Date;
  metrics: Registry;
  /** Writes webhook.disabled to the event log. */
  appendEvent: AppendEvent;
  /** Mails an endpoint's owner when the desk turns it off (notify's notice). */
  tellOwner?: TellPerson;
  /**
   * The outbound guard every address passes at create and before each attempt, and the POST that
   * checks each socket; both from OUTBOUND_ALLOWED_HOSTS unless a test gives its own.
   */
  guard?: UrlGuard;
  transport?: WebhookTransport;
  sender?: Pick<SenderOptions, 'leaseMs' | 'sendTimeoutMs' | 'concurrency' | 'pollMs'>;
  /** How often the fan-out reads the log besides the nudges; tests stop the timer. */
  fanOutPollMs?: number;
  /** The body of an item-scoped endpoint's deliveries (A2A's push configs); none without it. */
  scopedBody?: ScopedBody;
}

export type Webhooks = ReturnType<typeof createWebhooks>;

export function createWebhooks({
  config,
  database,
  logger,
  now,
  metrics,
  appendEvent,
  tellOwner,
  guard: givenGuard,
  transport: givenTransport,
  sender: senderOptions = {},
  fanOutPollMs = FAN_OUT_POLL_MS,
  scopedBody = async () => null,
}: WebhooksDeps) {
  const http = createHttpTransport({ allowedHosts: config.outbound.allowedHosts, now });
  const guard = givenGuard ?? http.guard;
  const transport = givenTransport ?? http.transport;
  const statementsOn = webhookStatementsFor(database.dialect);
  const top = statementsOn(database.kysely);
  const publicUrl = config.mail.publicUrl;
  const observe = registerWebhookMetrics(metrics, top, now, logger);
  let sender: WebhookSender | null = null;
  const nudge = () => sender?.nudge();
  const fanOut: FanOut = createFanOut({
    database,
    log: createEventLog(database),
    top,
    statementsOn,
    publicUrl,
    logger,
    scopedBody,
    written: nudge,
  });
  const secrets = createSecretBox(config.intake.secretKey);
  const service = createWebhookService({ statements: top, guard, secrets, now, publicUrl, nudge });

  // One fan-out at a time in this process; a wake during one runs another after it.
  let running: Promise<unknown> = Promise.resolve();
  let queued = false;
  let stopped = false;
  function wake(): void {
    if (stopped || queued) return;
    queued = true;
    running = running.then(async () => {
      // Commits that land meanwhile join this read: one fan-out transaction for a burst, not one each.
      await new Promise((resolve) => setTimeout(resolve, FAN_OUT_GATHER_MS));
      queued = false;
      if (stopped) return;
      await fanOut.run().catch((error: unknown) => {
        if (!stopped) logger.warn({ err: { message: (error as Error).message } }, 'webhook fan-out failed');
      });
    });
  }
  const timers: NodeJS.Timeout[] = [];

  async function purge(): Promise<number> {
    const before = new Date(now().getTime() - config.webhooks.retentionDays * DAY_MS).toISOString();
    return top.purgeDeliveriesBefore(before);
  }

  return {
    service,
    /** Reads the log now and waits for it (tests; the timer and the commits call `wake`). */
    fanOut(): Promise<number> {
      // In line with the wakes: two reads at once would both act on one gap in the log.
      const run = running.then(() => fanOut.run());
      running = run.catch(() => undefined);
      return run;
    },
    /**
     * Tells the fan-out that events committed. With no endpoint to send to, the poll alone reads
     * on (it still keeps the items' statuses): a desk without webhooks pays nothing per commit.
     */
    committed(): void {
      if (fanOut.watching()) wake();
    },
    purge,
    /** The newest event the fan-out has read while any endpoint exists: the log keeps those after it. */
    async keepAbove(): Promise<number | null> {
      return (await top.hasEndpoints()) ? fanOut.cursor() : null;
    },
    start(): WebhookSender {
      if (sender) return sender;
      sender = startWebhookSender({
        database,
        top,
        statementsOn,
        transport,
        guard,
        secrets,
        appendEvent,
        ...(tellOwner && { tellOwner }),
        now,
        logger,
        observe,
        leaseMs: config.webhooks.leaseMs,
        ...senderOptions,
      });
      timers.push(setInterval(wake, fanOutPollMs));
      timers.push(
        setInterval(() => {
          purge().catch((error: unknown) =>
            logger.warn({ err: { message: (error as Error).message } }, 'webhook purge failed'),
          );
        }, RETENTION_EVERY_MS),
      );
      for (const timer of timers) timer.unref();
      wake();
      return sender;
    },
    async close(): Promise<void> {
      stopped = true;
      for (const timer of timers) clearInterval(timer);
      await running;
      await sender?.stop();
      await http.close();
    },
  };
}
