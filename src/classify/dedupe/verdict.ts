// The dedupe verdict, in one function with one precedence order (decideDedupe). Every key starts with the
// request's scope (scope.ts): requests in different scopes never see each other's emails, counts or answers.

import type { Classification, DedupeVerdict } from '../categories.js';
import type { DedupeStore } from './store/port.js';
import type { UsageEvent } from '../usage/records.js';

export interface DedupeInput {
  /** From `dedupeScope`: whose memory this request reads and writes. */
  scope: string;
  /** internetMessageId, else id. */
  message_key: string | null;
  /** The request's id. */
  message_id: string | null;
  conversation_id: string | null;
  fingerprint: string;
  now: string;
  /** What a duplicate answered from the store counts as (usage.ts). */
  served: Extract<UsageEvent, { kind: 'duplicate' }>;
}

export type DedupeAction =
  /** This request owns `record_key` and must classify the email. */
  | { kind: 'classify' }
  /**
   * The email's classification is (or soon will be) stored under `source_key`. `stored`: the
   * claim found it there already; `recorded`: the claim also counted the duplicate served
   * (the source is this request's own record, so there is nothing else to write).
   */
  | { kind: 'reuse'; source_key: string; stored: { classification: Classification; recorded: boolean } | null };

export interface DedupeDecision {
  verdict: DedupeVerdict;
  /** Where this email's classification is stored. */
  record_key: string;
  action: DedupeAction;
}

export function recordKeyOf(input: Pick<DedupeInput, 'scope' | 'message_key' | 'fingerprint'>): string {
  return `${input.scope}/${messagePartOf(input)}`;
}

export function threadKeyOf(
  input: Pick<DedupeInput, 'scope' | 'message_key' | 'fingerprint' | 'conversation_id'>,
): string {
  return input.conversation_id !== null
    ? `${input.scope}/conv:${input.conversation_id}`
    : `${input.scope}/msg:${messagePartOf(input)}`;
}

/** The key under which the first email with this content in this scope is found. */
export function fingerprintKeyOf(input: Pick<DedupeInput, 'scope' | 'fingerprint'>): string {
  return `${input.scope}/${input.fingerprint}`;
}

function messagePartOf(input: Pick<DedupeInput, 'message_key' | 'fingerprint'>): string {
  return input.message_key !== null ? `id:${input.message_key}` : `fp:${input.fingerprint}`;
}

/**
 * The precedence order:
 *   1. the message key was seen      → "id": duplicate if the content is the same, else updated
 *   2. the content was seen          → "fingerprint": duplicate
 *   3. the conversation was seen     → "conversation": updated
 *   4. otherwise                     → new
 * Each step is an atomic claim in the store, so two concurrent requests for one new email cannot both come
 * out "new". Steps 1, 2 and the thread count are one claim, one commit and, on PostgreSQL, one round trip;
 * only an email whose content changed under its id takes further steps.
 */
export async function decideDedupe(store: DedupeStore, input: DedupeInput): Promise<DedupeDecision> {
  const recordKey = recordKeyOf(input);
  const claim = await store.claim({
    thread_key: threadKeyOf(input),
    record_key: recordKey,
    fingerprint: input.fingerprint,
    fingerprint_key: fingerprintKeyOf(input),
    conversation_id: input.conversation_id,
    now: input.now,
    served: input.served,
  });
  const verdict = (status: DedupeVerdict['status'], matchedOn: DedupeVerdict['matched_on']): DedupeVerdict => ({
    status,
    seen_count: claim.seen_count,
    matched_on: matchedOn,
    message_id: input.message_id,
    conversation_id: input.conversation_id,
    fingerprint: input.fingerprint,
  });
  const decision = (
    status: DedupeVerdict['status'],
    matchedOn: DedupeVerdict['matched_on'],
    action: DedupeAction,
  ): DedupeDecision => ({
    verdict: verdict(status, matchedOn),
    record_key: recordKey,
    action,
  });
  const reuse = (
    sourceKey: string,
    stored: Extract<DedupeAction, { kind: 'reuse' }>['stored'] = null,
  ): DedupeAction => ({
    kind: 'reuse',
    source_key: sourceKey,
    stored,
  });

  const { existing } = claim;
  if (existing) {
    // Without a message key the record is keyed by content, so its conflict is a content match.
    const matchedOn = input.message_key !== null ? 'id' : 'fingerprint';
    if (existing.fingerprint === input.fingerprint) {
      const stored =
        claim.served && existing.classification ? { classification: existing.classification, recorded: true } : null;
      return decision('duplicate', matchedOn, reuse(recordKey, stored));
    }
    // The content changed under this id: the rest of the decision in one transaction of its own.
    return store.transaction(async (transaction) => {
      const replaced = await transaction.replaceFingerprint(
        recordKey,
        existing.fingerprint,
        input.fingerprint,
        input.now,
      );
      if (!replaced) {
        // Another request changed the content first; if it changed it to ours, we are its duplicate.
        const current = await transaction.findMessage(recordKey);
        if (current?.fingerprint === input.fingerprint) return decision('duplicate', matchedOn, reuse(recordKey));
      }
      await transaction.claimFingerprint(fingerprintKeyOf(input), recordKey, input.now);
      return decision('updated', 'id', { kind: 'classify' });
    });
  }

  const { owner } = claim;
  // An owner that is the record itself (a retried request whose content row outlived its record) is no match.
  if (owner !== undefined && owner.record_key !== recordKey) {
    const found = owner.message;
    const stored =
      found?.fingerprint === input.fingerprint && found.classification
        ? { classification: found.classification, recorded: false }
        : null;
    return decision('duplicate', 'fingerprint', reuse(owner.record_key, stored));
  }
  if (input.conversation_id !== null && claim.seen_count > 1)
    return decision('updated', 'conversation', { kind: 'classify' });
  return decision('new', 'none', { kind: 'classify' });
}
