import type { DeliveryStatus } from '../schemas.js';
import type { WebhookAttemptRow, WebhookDeliveryRow, WebhookEndpointRow } from '../tables.js';

// What webhooks ask of their database: SQL only. The sender and the fan-out decide what is due,
// what an attempt means and what to write; the store writes what it is given.

export type EndpointChanges = Partial<Omit<WebhookEndpointRow, 'id' | 'created_at' | 'created_by'>>;
export type NewDelivery = Omit<WebhookDeliveryRow, 'seq'>;
export type DeliveryChanges = Partial<
  Pick<WebhookDeliveryRow, 'status' | 'attempt_count' | 'next_attempt_at' | 'delivered_at'>
>;

export interface PendingSummary {
  endpoint_id: string;
  pending: number;
  /** created_at of the oldest pending delivery; null when none is pending. */
  oldest_pending_at: string | null;
}

export interface ItemStatus {
  work_item_id: string;
  status: string;
}

export interface WebhookStatements {
  insertEndpoint(row: WebhookEndpointRow): Promise<void>;
  /** False when the endpoint does not exist. */
  updateEndpoint(id: string, changes: EndpointChanges): Promise<boolean>;
  deleteEndpoint(id: string): Promise<boolean>;
  findEndpoint(id: string): Promise<WebhookEndpointRow | undefined>;
  /** Oldest first. */
  listEndpoints(): Promise<WebhookEndpointRow[]>;
  hasEndpoints(): Promise<boolean>;
  /** The pending deliveries of each endpoint that has any (of `endpointId` alone when given). */
  pendingSummary(endpointId?: string): Promise<PendingSummary[]>;

  /** The last event id the fan-out turned into deliveries. */
  fanOutCursor(): Promise<number>;
  /**
   * Moves the cursor from `from` to `to`; false when it is no longer at `from` (another fan-out
   * moved it first: the caller's transaction must then write nothing).
   */
  advanceFanOut(from: number, to: number): Promise<boolean>;
  itemStatuses(workItemIds: readonly string[]): Promise<ItemStatus[]>;
  /** Writes each item's status, replacing what was there. */
  saveItemStatuses(statuses: readonly ItemStatus[]): Promise<void>;
  forgetItems(workItemIds: readonly string[]): Promise<void>;
  /** Writes the deliveries in the order given; one already there for its (endpoint, event) is kept. */
  insertDeliveries(rows: readonly NewDelivery[]): Promise<void>;

  /**
   * Leases up to `limit` enabled endpoints whose oldest pending delivery is due at `now` and that
   * no other sender holds, until `leaseUntil`; two senders never hold one endpoint at once.
   */
  claimEndpoints(now: string, leaseUntil: string, limit: number): Promise<WebhookEndpointRow[]>;
  /** The endpoint's oldest pending deliveries, up to `limit`, in the order they are sent. */
  headDeliveries(endpointId: string, limit: number): Promise<WebhookDeliveryRow[]>;
  /** True while this sender's lease (`leasedUntil`) on the endpoint holds; locks the row in a transaction. */
  holdsLease(endpointId: string, leasedUntil: string): Promise<boolean>;
  releaseLease(endpointId: string, leasedUntil: string): Promise<void>;
  updateDelivery(id: string, changes: DeliveryChanges): Promise<void>;
  insertAttempt(row: Omit<WebhookAttemptRow, 'id'>): Promise<void>;

  /** Newest first, keyset-paged on seq (below `beforeSeq` when given). */
  listDeliveries(
    endpointId: string,
    status: DeliveryStatus | undefined,
    beforeSeq: number | null,
    limit: number,
  ): Promise<WebhookDeliveryRow[]>;
  /** The attempts of these deliveries, oldest first. */
  attemptsOf(deliveryIds: readonly string[]): Promise<WebhookAttemptRow[]>;
  findDelivery(endpointId: string, id: string): Promise<WebhookDeliveryRow | undefined>;
  /** Every failed delivery of the endpoint created at or after `since` made pending again, due at `at`. */
  requeueFailedSince(endpointId: string, since: string, at: string): Promise<number>;
  purgeDeliveriesBefore(at: string): Promise<number>;
}
