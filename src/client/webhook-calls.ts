import { type CallOptions, type Requester } from './http.js';
import type {
  CreateWebhook,
  CreatedWebhook,
  DeliveriesQuery,
  Delivery,
  RotatedSecret,
  UpdateWebhook,
  Webhook,
  WebhookDetail,
} from '../webhooks/contract.js';

// The typed client's calls for webhooks: endpoints that hear the desk's events, their secrets and
// their delivery log. Admins only; the work client (work-client.ts) spreads these into its own.

export interface DeliveryPage {
  deliveries: Delivery[];
  /** Pass as `cursor` for the next page; null on the last one. */
  next_cursor: string | null;
}

const path = (strings: TemplateStringsArray, ...ids: string[]) =>
  strings.reduce((out, part, i) => out + part + (i < ids.length ? encodeURIComponent(ids[i] as string) : ''), '');

export function webhookCalls(request: Requester, nextCursor: (link: string | null) => string | null) {
  return {
    /** The answer carries the signing secret (`whsec_…`), which the service never shows again. */
    async createWebhook(body: CreateWebhook, call: CallOptions = {}): Promise<CreatedWebhook> {
      return (await request<CreatedWebhook>('POST', '/webhooks', { body, ...call })).body;
    },

    async listWebhooks(call: CallOptions = {}): Promise<Webhook[]> {
      return (await request<Webhook[]>('GET', '/webhooks', call)).body;
    },

    /** The endpoint, with how many deliveries wait and since when the oldest has. */
    async getWebhook(id: string, call: CallOptions = {}): Promise<WebhookDetail> {
      return (await request<WebhookDetail>('GET', path`/webhooks/${id}`, call)).body;
    },

    /** `enabled: false` disables it (reason "admin"); `enabled: true` enables it again. */
    async updateWebhook(id: string, body: UpdateWebhook, call: CallOptions = {}): Promise<Webhook> {
      return (await request<Webhook>('PATCH', path`/webhooks/${id}`, { body, ...call })).body;
    },

    async deleteWebhook(id: string, call: CallOptions = {}): Promise<void> {
      await request('DELETE', path`/webhooks/${id}`, call);
    },

    /** A new secret; the previous one still signs until `previous_valid_until`. */
    async rotateWebhookSecret(id: string, call: CallOptions = {}): Promise<RotatedSecret> {
      return (await request<RotatedSecret>('POST', path`/webhooks/${id}/rotate-secret`, call)).body;
    },

    /** Queues a `webhook.test` event to this endpoint alone. */
    async testWebhook(id: string, call: CallOptions = {}): Promise<Delivery> {
      return (await request<Delivery>('POST', path`/webhooks/${id}/test`, call)).body;
    },

    /** Newest first, each with its attempts, a page at a time (`limit` ≤ 200). */
    async listWebhookDeliveries(
      id: string,
      query: DeliveriesQuery = {},
      call: CallOptions = {},
    ): Promise<DeliveryPage> {
      const answer = await request<Delivery[]>('GET', path`/webhooks/${id}/deliveries`, { query, ...call });
      return { deliveries: answer.body, next_cursor: nextCursor(answer.headers.get('link')) };
    },

    /** Sends the delivery again, with the same `webhook-id`. */
    async redeliverWebhook(id: string, deliveryId: string, call: CallOptions = {}): Promise<Delivery> {
      return (await request<Delivery>('POST', path`/webhooks/${id}/deliveries/${deliveryId}/redeliver`, call)).body;
    },

    /** Sends again every failed delivery created since `since` (an ISO timestamp). */
    async recoverWebhookDeliveries(id: string, since: string, call: CallOptions = {}): Promise<{ requeued: number }> {
      const body = { since };
      return (await request<{ requeued: number }>('POST', path`/webhooks/${id}/recover`, { body, ...call })).body;
    },

    /** The event names an endpoint may subscribe to. */
    async listWebhookEvents(call: CallOptions = {}): Promise<string[]> {
      return (await request<{ events: string[] }>('GET', '/webhooks/events', call)).body.events;
    },
  };
}
