import { createHash } from 'node:crypto';
import { IdempotencyKeyInFlight, IdempotencyKeyReused } from '../errors.js';
import type { WorkStore } from '../store/port.js';

// The Idempotency-Key rule of a creating route (POST /work, POST /work/plans): the first answer
// for a caller's key is stored in the same transaction as what it created, and the same key with
// the same body within the window answers it again; another body is a 422, a running first a 409.

/** How long a key is remembered. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface Once<T> {
  value: T;
  /** True when the key matched an earlier request and `value` is its answer again. */
  replayed: boolean;
}

export function createIdempotentWrites(store: WorkStore, timestamp: () => string) {
  /** Keys of this process's requests still running, so a concurrent twin is refused at once. */
  const inFlight = new Set<string>();

  /**
   * Runs `write` in one transaction with the key's record, or answers the stored result.
   * `route` names the route in the hash (null: POST /work); `scope` is the caller (keys are per caller).
   * The hash covers the route, so one key sent to two routes is a reuse, never a replay of the other
   * route's answer; POST /work's is of the body alone (its keys were stored so before plans existed,
   * and a body of /work is never a plan's).
   */
  return async function once<T>(
    route: string | null,
    scope: string,
    key: string,
    request: unknown,
    write: (tx: WorkStore, at: string) => Promise<T>,
  ): Promise<Once<T>> {
    const flight = `${scope}\n${key}`;
    if (inFlight.has(flight)) throw new IdempotencyKeyInFlight();
    inFlight.add(flight);
    try {
      const hashed = route === null ? JSON.stringify(request) : `${route}\n${JSON.stringify(request)}`;
      const requestHash = createHash('sha256').update(hashed).digest('base64url');
      return await store.transaction(async (tx) => {
        // Another instance may be running the same key: its lock says so until it commits.
        if (!(await tx.tryLockIdempotencyKey(scope, key))) throw new IdempotencyKeyInFlight();
        const at = timestamp();
        const earlier = await tx.findIdempotencyKey(scope, key);
        const windowStart = new Date(Date.parse(at) - IDEMPOTENCY_WINDOW_MS).toISOString();
        if (earlier && earlier.created_at > windowStart) {
          if (earlier.request_hash !== requestHash) throw new IdempotencyKeyReused();
          return { value: JSON.parse(earlier.response_body) as T, replayed: true };
        }
        const value = await write(tx, at);
        await tx.saveIdempotencyKey({
          scope,
          idempotency_key: key,
          request_hash: requestHash,
          response_status: 201,
          response_body: JSON.stringify(value),
          created_at: at,
        });
        return { value, replayed: false };
      });
    } finally {
      inFlight.delete(flight);
    }
  };
}
