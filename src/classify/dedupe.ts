// The dedupe verdict, in one function with one precedence order:
//   1. the message key was seen      → "id": duplicate if the content is the same, else updated
//   2. the content was seen          → "fingerprint": duplicate
//   3. the conversation was seen     → "conversation": updated
//   4. otherwise                     → new
// Each step is an atomic claim in the store, so two concurrent requests for one new email
// cannot both come out "new". Every key starts with the request's scope (scope.ts): requests
// in different scopes never see each other's emails, counts or answers.

import type { DedupeVerdict } from './categories.js';
import type { DedupeStore } from './dedupe-store.js';

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
}

export type DedupeAction =
  /** This request owns `record_key` and must classify the email. */
  | { kind: 'classify' }
  /** The email's classification is (or soon will be) stored under `source_key`. */
  | { kind: 'reuse'; source_key: string };

export interface DedupeDecision {
  verdict: DedupeVerdict;
  /** Where this email's classification is stored. */
  record_key: string;
  action: DedupeAction;
}

export function recordKeyOf(input: Pick<DedupeInput, 'scope' | 'message_key' | 'fingerprint'>): string {
  return `${input.scope}/${messagePartOf(input)}`;
}

export function threadKeyOf(input: Pick<DedupeInput, 'scope' | 'message_key' | 'fingerprint' | 'conversation_id'>): string {
  return input.conversation_id !== null ? `${input.scope}/conv:${input.conversation_id}` : `${input.scope}/msg:${messagePartOf(input)}`;
}

/** The key under which the first email with this content in this scope is found. */
export function fingerprintKeyOf(input: Pick<DedupeInput, 'scope' | 'fingerprint'>): string {
  return `${input.scope}/${input.fingerprint}`;
}

function messagePartOf(input: Pick<DedupeInput, 'message_key' | 'fingerprint'>): string {
  return input.message_key !== null ? `id:${input.message_key}` : `fp:${input.fingerprint}`;
}

export function decideDedupe(store: DedupeStore, input: DedupeInput): Promise<DedupeDecision> {
  return store.transaction((transaction) => decide(transaction, input));
}

async function decide(store: DedupeStore, input: DedupeInput): Promise<DedupeDecision> {
  const recordKey = recordKeyOf(input);
  const seenCount = await store.bumpThread(threadKeyOf(input), input.now);
  const verdict = (status: DedupeVerdict['status'], matchedOn: DedupeVerdict['matched_on']): DedupeVerdict => ({
    status,
    seen_count: seenCount,
    matched_on: matchedOn,
    message_id: input.message_id,
    conversation_id: input.conversation_id,
    fingerprint: input.fingerprint,
  });
  const decision = (status: DedupeVerdict['status'], matchedOn: DedupeVerdict['matched_on'], action: DedupeAction): DedupeDecision => ({
    verdict: verdict(status, matchedOn),
    record_key: recordKey,
    action,
  });

  const existing = await store.claimMessage(recordKey, input.fingerprint, input.conversation_id, input.now);
  if (existing) {
    // Without a message key the record is keyed by content, so its conflict is a content match.
    const matchedOn = input.message_key !== null ? 'id' : 'fingerprint';
    if (existing.fingerprint === input.fingerprint) return decision('duplicate', matchedOn, { kind: 'reuse', source_key: recordKey });
    const replaced = await store.replaceFingerprint(recordKey, existing.fingerprint, input.fingerprint, input.now);
    if (!replaced) {
      // Another request changed the content first; if it changed it to ours, we are its duplicate.
      const current = await store.findMessage(recordKey);
      if (current?.fingerprint === input.fingerprint) return decision('duplicate', matchedOn, { kind: 'reuse', source_key: recordKey });
    }
    await store.claimFingerprint(fingerprintKeyOf(input), recordKey, input.now);
    return decision('updated', 'id', { kind: 'classify' });
  }

  const owner = await store.claimFingerprint(fingerprintKeyOf(input), recordKey, input.now);
  if (owner !== undefined) return decision('duplicate', 'fingerprint', { kind: 'reuse', source_key: owner });
  if (input.conversation_id !== null && seenCount > 1) return decision('updated', 'conversation', { kind: 'classify' });
  return decision('new', 'none', { kind: 'classify' });
}
