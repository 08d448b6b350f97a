import { randomUUID } from 'node:crypto';
import type { Principal } from '../auth/index.js';
import { decodeCursorParts, encodeCursorParts, invalidCursor } from '../shared/http/paging.js';
import type { SecretBox } from '../shared/secret-box.js';
import { DeliveryNotFound, NoSecretKey, UnknownEventName, WebhookNotFound } from './errors.js';
import { ALL_EVENTS, WEBHOOK_EVENT_NAMES, WEBHOOK_EVENTS } from './event-names.js';
import { deliveryBody } from './matching.js';
import { UrlRefused, type UrlGuard } from './ports.js';
import {
  type CreateWebhook,
  type CreatedWebhook,
  DELIVERY_PAGE,
  type DeliveriesQuery,
  type Delivery,
  type RotatedSecret,
  type UpdateWebhook,
  type Webhook,
  type WebhookDetail,
} from './schemas.js';
import { headersContext, newMessageId, newSecret, secretContext } from './signing.js';
import type { EndpointChanges, WebhookStatements } from './store/port.js';
import type { WebhookEndpointRow } from './tables.js';
import { toDelivery, toWebhook } from './views.js';

// The admins' webhooks: endpoints and their secrets, the delivery log, and the ways to send
// again. Every write that makes a delivery due nudges the sender.

const LISTING = 'webhook-deliveries';
/** How long the previous secret still signs after a rotation. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

export interface DeliveryPage {
  deliveries: Delivery[];
  next_cursor: string | null;
}

export interface WebhookServiceDeps {
  statements: WebhookStatements;
  guard: UrlGuard;
  /** Seals the signing secrets at rest; null without AGENTDESK_SECRET_KEY, when none can be kept. */
  secrets: SecretBox | null;
  now: () => Date;
  publicUrl: string | null;
  nudge: () => void;
}

export type WebhookService = ReturnType<typeof createWebhookService>;

/** An endpoint that hears one item alone, in the scope's body: an A2A push config. */
export interface ScopedEndpoint {
  url: string;
  work_item_id: string;
  /** Sent with every delivery (sealed at rest); the signature headers win over them. */
  headers: Record<string, string>;
  /** The secret that signs; null: a new one the desk keeps to itself. */
  secret: string | null;
  created_by: string;
}

export function createWebhookService({ statements: s, guard, secrets, now, publicUrl, nudge }: WebhookServiceDeps) {
  function sealer(): SecretBox {
    if (secrets === null) throw new NoSecretKey();
    return secrets;
  }

  async function checkedUrl(raw: string): Promise<string> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new UrlRefused('is not an absolute URL');
    }
    await guard(url);
    return url.toString();
  }

  function checkedEvents(events: readonly string[]): string {
    const unknown = events.filter((name) => name !== ALL_EVENTS && !WEBHOOK_EVENT_NAMES.includes(name));
    if (unknown.length > 0) throw new UnknownEventName(unknown);
    return JSON.stringify(events.includes(ALL_EVENTS) ? [ALL_EVENTS] : [...new Set(events)]);
  }

  async function endpoint(id: string): Promise<WebhookEndpointRow> {
    const row = await s.findEndpoint(id);
    if (!row) throw new WebhookNotFound(id);
    return row;
  }

  async function withAttempts(rows: Awaited<ReturnType<WebhookStatements['listDeliveries']>>): Promise<Delivery[]> {
    const attempts = await s.attemptsOf(rows.map((row) => row.id));
    return rows.map((row) =>
      toDelivery(
        row,
        attempts.filter((attempt) => attempt.delivery_id === row.id),
      ),
    );
  }

  return {
    events: () => ({ events: [...WEBHOOK_EVENT_NAMES] }),

    async create(body: CreateWebhook, principal: Principal | null): Promise<CreatedWebhook> {
      const at = now().toISOString();
      const box = sealer();
      const id = randomUUID();
      const secret = newSecret();
      const row: WebhookEndpointRow = {
        id,
        url: await checkedUrl(body.url),
        events: checkedEvents(body.events),
        project_id: body.project_id ?? null,
        types: body.types ? JSON.stringify(body.types) : null,
        format: body.format ?? 'standard',
        description: body.description ?? null,
        enabled: 1,
        disabled_reason: null,
        failing_since: null,
        secret: box.seal(secret, secretContext(id)),
        previous_secret: null,
        previous_valid_until: null,
        claimed_until: null,
        created_by: principal?.name ?? 'anonymous',
        created_at: at,
        updated_at: at,
        work_item_id: null,
        headers: null,
      };
      await s.insertEndpoint(row);
      return { ...toWebhook(row, now()), secret };
    },

    async list(): Promise<Webhook[]> {
      const at = now();
      // The item-scoped ones are their owners' A2A push configs; an admin reaches them by id.
      return (await s.listEndpoints()).filter((row) => row.work_item_id === null).map((row) => toWebhook(row, at));
    },

    /** An endpoint for one item's status changes, checked and sealed as any other; resolves with its id. */
    async createScoped(scoped: ScopedEndpoint): Promise<string> {
      const at = now().toISOString();
      const box = sealer();
      const id = randomUUID();
      await s.insertEndpoint({
        id,
        url: await checkedUrl(scoped.url),
        events: JSON.stringify([ALL_EVENTS]),
        project_id: null,
        types: null,
        format: 'standard',
        description: `A2A push notifications of task ${scoped.work_item_id}`,
        enabled: 1,
        disabled_reason: null,
        failing_since: null,
        secret: box.seal(scoped.secret ?? newSecret(), secretContext(id)),
        previous_secret: null,
        previous_valid_until: null,
        claimed_until: null,
        created_by: scoped.created_by,
        created_at: at,
        updated_at: at,
        work_item_id: scoped.work_item_id,
        headers: box.seal(JSON.stringify(scoped.headers), headersContext(id)),
      });
      return id;
    },

    async get(id: string): Promise<WebhookDetail> {
      const row = await endpoint(id);
      const [summary] = await s.pendingSummary(id);
      return {
        ...toWebhook(row, now()),
        pending: summary?.pending ?? 0,
        oldest_pending_at: summary?.oldest_pending_at ?? null,
      };
    },

    async update(id: string, body: UpdateWebhook): Promise<Webhook> {
      await endpoint(id);
      const changes: EndpointChanges = { updated_at: now().toISOString() };
      if (body.url !== undefined) changes.url = await checkedUrl(body.url);
      if (body.events !== undefined) changes.events = checkedEvents(body.events);
      if (body.project_id !== undefined) changes.project_id = body.project_id;
      if (body.types !== undefined) changes.types = body.types === null ? null : JSON.stringify(body.types);
      if (body.format !== undefined) changes.format = body.format;
      if (body.description !== undefined) changes.description = body.description;
      if (body.enabled === true) Object.assign(changes, { enabled: 1, disabled_reason: null, failing_since: null });
      if (body.enabled === false) Object.assign(changes, { enabled: 0, disabled_reason: 'admin' });
      if (!(await s.updateEndpoint(id, changes))) throw new WebhookNotFound(id);
      if (body.enabled === true) nudge();
      return toWebhook(await endpoint(id), now());
    },

    async remove(id: string): Promise<void> {
      if (!(await s.deleteEndpoint(id))) throw new WebhookNotFound(id);
    },

    async rotate(id: string): Promise<RotatedSecret> {
      const row = await endpoint(id);
      const box = sealer();
      const at = now();
      const previousValidUntil = new Date(at.getTime() + SECRET_OVERLAP_MS).toISOString();
      const secret = newSecret();
      await s.updateEndpoint(id, {
        secret: box.seal(secret, secretContext(id)),
        previous_secret: row.secret,
        previous_valid_until: previousValidUntil,
        updated_at: at.toISOString(),
      });
      return { id, secret, previous_valid_until: previousValidUntil };
    },

    /** A webhook.test delivery to this endpoint alone, due now. */
    async test(id: string): Promise<Delivery> {
      const row = await endpoint(id);
      const at = now().toISOString();
      const event = { type: WEBHOOK_EVENTS.test, created_at: at, data: { webhook_id: id, message: 'a test event' } };
      const delivery = {
        id: newMessageId(),
        endpoint_id: id,
        event_id: null,
        type: WEBHOOK_EVENTS.test,
        body: deliveryBody(row.format, WEBHOOK_EVENTS.test, event, publicUrl),
        status: 'pending' as const,
        attempt_count: 0,
        next_attempt_at: at,
        created_at: at,
        delivered_at: null,
      };
      await s.insertDeliveries([delivery]);
      nudge();
      return toDelivery({ ...delivery, seq: 0 }, []);
    },

    async deliveries(id: string, query: DeliveriesQuery): Promise<DeliveryPage> {
      await endpoint(id);
      const limit = query.limit ?? DELIVERY_PAGE.default;
      const before = query.cursor === undefined ? null : decodeSeq(query.cursor);
      const rows = await s.listDeliveries(id, query.status, before, limit + 1);
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        deliveries: await withAttempts(page),
        next_cursor: rows.length > limit && last ? encodeCursorParts([LISTING, last.seq]) : null,
      };
    },

    /** Sends the delivery again now, with its webhook-id; a failure after it is final. */
    async redeliver(id: string, deliveryId: string): Promise<Delivery> {
      await endpoint(id);
      const row = await s.findDelivery(id, deliveryId);
      if (!row) throw new DeliveryNotFound(deliveryId);
      const at = now().toISOString();
      await s.updateDelivery(row.id, { status: 'pending', next_attempt_at: at });
      nudge();
      return (await withAttempts([{ ...row, status: 'pending', next_attempt_at: at }]))[0]!;
    },

    async recover(id: string, since: string): Promise<{ requeued: number }> {
      await endpoint(id);
      const requeued = await s.requeueFailedSince(id, new Date(since).toISOString(), now().toISOString());
      if (requeued > 0) nudge();
      return { requeued };
    },
  };
}

function decodeSeq(cursor: string): number {
  const [what, seq] = decodeCursorParts(cursor, 2);
  if (what !== LISTING || typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 1) throw invalidCursor();
  return seq;
}
