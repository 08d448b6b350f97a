import type { Logger } from 'pino';
import type { Database } from '../shared/db/database.js';
import type { SecretBox } from '../shared/secret-box.js';
import { WEBHOOK_EVENTS } from './event-names.js';
import type { AppendEvent, TellPerson, TransportResult, UrlGuard, WebhookTransport } from './ports.js';
import { failingTooLong, judge, type Verdict } from './schedule.js';
import { headersContext, secretContext, signedHeaders } from './signing.js';
import type { WebhookStatementsOn } from './store/index.js';
import type { DeliveryChanges, EndpointChanges, WebhookStatements } from './store/port.js';
import type { WebhookDeliveryRow, WebhookEndpointRow } from './tables.js';

// The sender: leases endpoints whose oldest pending delivery is due (one sender per endpoint
// across instances) and sends each one's deliveries in order, a retry holding back only its own
// endpoint; up to `concurrency` endpoints at once, each in its own worker, so none waits on another.

export const DELIVERY_OUTCOMES = ['succeeded', 'retrying', 'failed', 'gone'] as const;
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

/** At most this many deliveries of one endpoint are sent before their outcomes are committed. */
const SEND_RUN = 50;

export interface SenderOptions {
  database: Pick<Database, 'transaction'>;
  top: WebhookStatements;
  statementsOn: WebhookStatementsOn;
  transport: WebhookTransport;
  guard: UrlGuard;
  /** Opens the endpoints' sealed signing secrets; null without AGENTDESK_SECRET_KEY. */
  secrets: SecretBox | null;
  appendEvent: AppendEvent;
  /** The endpoint's owner hears by mail that it was turned off (where mail is set up). */
  tellOwner?: TellPerson;
  now: () => Date;
  logger: Logger;
  /** Longer than a send can take (the transport's timeout), with room to spare. */
  leaseMs?: number;
  /** The transport's timeout: a send is not started when the lease would end before it could. */
  sendTimeoutMs?: number;
  concurrency?: number;
  pollMs?: number;
  /** How long stop() waits for sends under way before leaving them to their leases. */
  stopWaitMs?: number;
  /** Told of each attempt's outcome (the metrics). */
  observe?: (outcome: DeliveryOutcome) => void;
}

export interface WebhookSender {
  nudge(): void;
  /** Claims what is due and waits until every endpoint worker under way has finished; resolves with the attempts made. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

/** The owner's mail: which endpoint, why, and how to turn it back on; the URL only by its host (it can be a credential). */
function disabledNotice(endpoint: WebhookEndpointRow, at: Date): string {
  const host = new URL(endpoint.url).host;
  const why =
    endpoint.disabled_reason === 'gone'
      ? 'it answered 410 Gone, which asks senders to stop'
      : `it has failed every delivery since ${endpoint.failing_since}`;
  return [
    `The desk turned off the webhook ${endpoint.id} (to ${host}) at ${at.toISOString()}: ${why}.`,
    '',
    `Its deliveries wait. Once the receiver works again, turn it back on (PATCH /webhooks/${endpoint.id} {"enabled": true}, or Enable on the Webhooks page); what waited is then sent in order.`,
    '',
  ].join('\n');
}

/** The secrets that sign at `at`, in clear: the current one, and the previous one during its overlap. */
function secretsAt(box: SecretBox | null, endpoint: WebhookEndpointRow, at: Date): string[] {
  if (box === null) throw new Error('AGENTDESK_SECRET_KEY is not set: the webhook secret cannot be decrypted');
  const context = secretContext(endpoint.id);
  const previousSigns =
    endpoint.previous_secret !== null &&
    endpoint.previous_valid_until !== null &&
    Date.parse(endpoint.previous_valid_until) > at.getTime();
  const current = box.open(endpoint.secret, context);
  return previousSigns ? [current, box.open(endpoint.previous_secret!, context)] : [current];
}

function extraHeaders(box: SecretBox | null, endpoint: WebhookEndpointRow): Record<string, string> {
  if (endpoint.headers === null) return {};
  if (box === null) throw new Error('AGENTDESK_SECRET_KEY is not set: the webhook headers cannot be decrypted');
  return JSON.parse(box.open(endpoint.headers, headersContext(endpoint.id))) as Record<string, string>;
}

/** The writes a verdict makes on the delivery and on its endpoint. */
function changesOf(
  verdict: Verdict,
  delivery: WebhookDeliveryRow,
  endpoint: WebhookEndpointRow,
  at: Date,
): { delivery: DeliveryChanges; endpoint: EndpointChanges | null } {
  const attempt_count = delivery.attempt_count + 1;
  const iso = at.toISOString();
  switch (verdict.kind) {
    case 'succeeded':
      return {
        delivery: { status: 'succeeded', attempt_count, next_attempt_at: null, delivered_at: iso },
        endpoint: endpoint.failing_since === null ? null : { failing_since: null },
      };
    case 'gone':
      return {
        delivery: { status: 'failed', attempt_count, next_attempt_at: null },
        endpoint: {
          enabled: 0,
          disabled_reason: 'gone',
          failing_since: endpoint.failing_since ?? iso,
          updated_at: iso,
        },
      };
    case 'retry':
    case 'failed': {
      const failingSince = endpoint.failing_since ?? iso;
      const delivery_: DeliveryChanges =
        verdict.kind === 'retry'
          ? { status: 'pending', attempt_count, next_attempt_at: verdict.next_attempt_at }
          : { status: 'failed', attempt_count, next_attempt_at: null };
      if (failingTooLong(failingSince, at)) {
        return {
          delivery: delivery_,
          endpoint: { enabled: 0, disabled_reason: 'failing', failing_since: failingSince, updated_at: iso },
        };
      }
      return { delivery: delivery_, endpoint: endpoint.failing_since === null ? { failing_since: iso } : null };
    }
    default: {
      const never: never = verdict;
      throw new Error(`unknown verdict ${String(never)}`);
    }
  }
}

export function startWebhookSender({
  database,
  top,
  statementsOn,
  transport,
  guard,
  secrets,
  appendEvent,
  tellOwner = async () => false,
  now,
  logger,
  leaseMs = 60_000,
  sendTimeoutMs = 15_000,
  concurrency = 16,
  pollMs = 5_000,
  stopWaitMs = 5_000,
  observe = () => {},
}: SenderOptions): WebhookSender {
  let stopped = false;
  const active = new Map<string, Promise<number>>();
  let filling: Promise<void> | null = null;

  /** The guard's verdict as an attempt's result: null when the address may be called. */
  async function refusal(endpoint: WebhookEndpointRow): Promise<TransportResult | null> {
    try {
      // Per hold, not only at create: the allow-list or the name's address may have changed.
      await guard(new URL(endpoint.url));
      return null;
    } catch (error) {
      return {
        status_code: null,
        latency_ms: 0,
        response_body: null,
        retry_after_s: null,
        error: (error as Error).message,
      };
    }
  }

  /** One signed POST; a secret that cannot be opened fails the attempt without sending. */
  async function send(endpoint: WebhookEndpointRow, delivery: WebhookDeliveryRow, at: Date): Promise<TransportResult> {
    let headers: Record<string, string>;
    try {
      const signed = signedHeaders(secretsAt(secrets, endpoint, at), delivery.id, at, delivery.body);
      // The endpoint's own headers (an A2A push config's token and Authorization); the signed ones win.
      headers = { ...extraHeaders(secrets, endpoint), ...signed };
    } catch (error) {
      return {
        status_code: null,
        latency_ms: 0,
        response_body: null,
        retry_after_s: null,
        error: (error as Error).message,
      };
    }
    return transport(endpoint.url, headers, delivery.body);
  }

  interface Sent {
    delivery: WebhookDeliveryRow;
    result: TransportResult;
    at: Date;
    verdict: Verdict;
    changes: ReturnType<typeof changesOf>;
  }

  /** Records a run of attempts in one transaction while the lease holds; false when it was lost. */
  async function record(endpointId: string, leasedUntil: string, sent: Sent[]): Promise<boolean> {
    return database.transaction(async (tx) => {
      const s = statementsOn(tx);
      if (!(await s.holdsLease(endpointId, leasedUntil))) return false;
      for (const { delivery, result, at, changes } of sent) {
        await s.updateDelivery(delivery.id, changes.delivery);
        await s.insertAttempt({
          delivery_id: delivery.id,
          at: at.toISOString(),
          status_code: result.status_code,
          latency_ms: result.latency_ms,
          response_body: result.response_body,
          error: result.error,
        });
        if (changes.endpoint) await s.updateEndpoint(endpointId, changes.endpoint);
      }
      return true;
    });
  }

  /**
   * Sends the endpoint's due deliveries in order while the lease allows; resolves with the attempts
   * made. Successes are recorded a run at a time (one commit for up to SEND_RUN of them): a crash
   * before that commit sends them again with the same webhook-id, which at-least-once allows.
   */
  async function work(claimed: WebhookEndpointRow): Promise<number> {
    let endpoint = claimed;
    const leasedUntil = claimed.claimed_until!;
    let attempts = 0;
    const refused = await refusal(endpoint);
    // The first send of a hold always goes (a lease shorter than the timeout still sends);
    // later ones only while a whole send fits in what is left of it.
    const fits = () => !stopped && (attempts === 0 || now().getTime() + sendTimeoutMs < Date.parse(leasedUntil));
    try {
      hold: while (fits()) {
        const head = await top.headDeliveries(endpoint.id, SEND_RUN);
        const sent: Sent[] = [];
        for (const delivery of head) {
          if (!fits()) break;
          if (delivery.next_attempt_at === null || Date.parse(delivery.next_attempt_at) > now().getTime()) break;
          const signedAt = now();
          const result = refused ?? (await send(endpoint, delivery, signedAt));
          const at = now();
          const verdict = judge(result, delivery.attempt_count + 1, at);
          const changes = changesOf(verdict, delivery, endpoint, at);
          sent.push({ delivery, result, at, verdict, changes });
          attempts += 1;
          if (changes.endpoint) endpoint = { ...endpoint, ...changes.endpoint };
          if (verdict.kind !== 'succeeded') break;
        }
        if (sent.length === 0) break;
        if (!(await record(endpoint.id, leasedUntil, sent))) {
          logger.warn(
            { webhook: endpoint.id, deliveries: sent.length },
            'webhook lease lost mid-send; they may go twice',
          );
          break;
        }
        for (const { verdict } of sent) observe(verdict.kind === 'retry' ? 'retrying' : verdict.kind);
        const last = sent.at(-1)!;
        if (endpoint.enabled === 0) {
          logger.warn({ webhook: endpoint.id, reason: endpoint.disabled_reason }, 'webhook disabled');
          await appendEvent(
            WEBHOOK_EVENTS.disabled,
            // No URL: the event stream reaches every reader, and a URL can be a credential (Slack's are).
            {
              id: endpoint.id,
              disabled_reason: endpoint.disabled_reason,
              failing_since: endpoint.failing_since,
              created_by: endpoint.created_by,
            },
            last.at.toISOString(),
          );
          await tellOwner(endpoint.created_by, 'A webhook was turned off', disabledNotice(endpoint, last.at)).catch(
            (error: unknown) =>
              logger.warn(
                { err: { message: (error as Error).message }, webhook: endpoint.id },
                'webhook owner not told',
              ),
          );
          break;
        }
        // The endpoint's next delivery waits for this one's retry: order holds per endpoint.
        if (last.verdict.kind === 'retry') break hold;
        if (head.length < SEND_RUN && sent.length === head.length) break;
      }
    } finally {
      await top.releaseLease(endpoint.id, leasedUntil).catch(() => undefined);
    }
    return attempts;
  }

  async function fill(): Promise<void> {
    const free = concurrency - active.size;
    if (free <= 0 || stopped) return;
    const at = now();
    const claimed = await top.claimEndpoints(at.toISOString(), new Date(at.getTime() + leaseMs).toISOString(), free);
    for (const endpoint of claimed) {
      const running = work(endpoint)
        .catch((error: unknown) => {
          if (!stopped) logger.error({ err: error, webhook: endpoint.id }, 'webhook sender failed');
          return 0;
        })
        .finally(() => {
          active.delete(endpoint.id);
          nudge();
        });
      active.set(endpoint.id, running);
    }
  }

  function nudge(): void {
    if (stopped || filling) return;
    filling = fill()
      .catch((error: unknown) => {
        if (!stopped) logger.error({ err: error }, 'webhook claim failed');
      })
      .finally(() => {
        filling = null;
      });
  }

  const timer = setInterval(nudge, pollMs);
  timer.unref();

  return {
    nudge,
    async runOnce() {
      let total = 0;
      for (;;) {
        await filling;
        await fill();
        // A nudge's claim that ran beside this one may hold what this one found taken: wait for it.
        if (filling) continue;
        if (active.size === 0) return total;
        const counts = await Promise.all(active.values());
        total += counts.reduce((a, b) => a + b, 0);
        if (counts.every((count) => count === 0)) return total;
      }
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      // A send stuck on a silent receiver must not hold the shutdown for its whole timeout.
      let wait: NodeJS.Timeout | undefined;
      await Promise.race([
        (async () => {
          await filling;
          await Promise.all(active.values());
        })(),
        new Promise((resolve) => (wait = setTimeout(resolve, stopWaitMs))),
      ]);
      clearTimeout(wait);
    },
  };
}
