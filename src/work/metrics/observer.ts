import type { WorkStatus } from '../items/statuses.js';

// What the work service tells whoever watches it (the metrics) as items move. One small port,
// so the service knows nothing of Prometheus, and a second watcher is one more implementation.
// Every method is called after the change committed, must be cheap, and must never throw.

export const LEASE_EXPIRY_OUTCOMES = { requeued: 'requeued', failed: 'failed' } as const;
export type LeaseExpiryOutcome = (typeof LEASE_EXPIRY_OUTCOMES)[keyof typeof LEASE_EXPIRY_OUTCOMES];

export interface WorkObserver {
  /** A claim handed an item of `type` to an agent. */
  claimed(type: string): void;
  /** An item of `type` reached a final status, by a request or by the lease sweep. */
  finished(type: string, status: Extract<WorkStatus, 'completed' | 'failed' | 'cancelled'>): void;
  /** The lease on an item of `type` ran out: it went back to the queue, or failed (no attempts left). */
  leaseExpired(type: string, outcome: LeaseExpiryOutcome): void;
}

export const NO_OBSERVER: WorkObserver = { claimed: () => {}, finished: () => {}, leaseExpired: () => {} };
