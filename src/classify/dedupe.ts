// The dedupe verdict, in one function with one precedence order:
//   1. the message key was seen      → "id": duplicate if the content is the same, else updated
//   2. the content was seen          → "fingerprint": duplicate
//   3. the conversation was seen     → "conversation": updated
//   4. otherwise                     → new
// Each step is an atomic claim in the store, so two concurrent requests for one new email
// cannot both come out "new". Every key starts with the request's scope (scope.ts): requests
// in different scopes never see each other's emails, counts or answers.

import type { Classification, DedupeVerdict } from './categories.js';
import type { DedupeStore } from './dedupe-store.js';
import type { UsageEvent } from './usage.js';

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
  /** A duplicate the decision served itself: the stored classification, its use already counted. */
  answered?: Classification;
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

/** A duplicate served from the store: what the store counts for it when it serves it itself. */
export type DuplicateServed = Extract<UsageEvent, { kind: 'duplicate' }>;

/**
 * The verdict, and the claims that go with it. Where the store can decide in one statement
 * (PostgreSQL), the common outcomes take one round trip, and a duplicate of an answered record
 * comes back `answered`, its use of the store already counted with `served`.
 */
export function decideDedupe(store: DedupeStore, input: DedupeInput, served?: DuplicateServed): Promise<DedupeDecision> {
  if (store.decideInOneStep && served) return decideInOneStep(store, input, served);
  return store.transaction((transaction) => decide(transaction, input));
}

type Decide = (status: DedupeVerdict['status'], matchedOn: DedupeVerdict['matched_on'], action: DedupeAction) => DedupeDecision;

function decisionsFor(input: DedupeInput, seenCount: number): Decide {
  return (status, matchedOn, action) => ({
    verdict: {
      status,
      seen_count: seenCount,
      matched_on: matchedOn,
      message_id: input.message_id,
      conversation_id: input.conversation_id,
      fingerprint: input.fingerprint,
    },
    record_key: recordKeyOf(input),
    action,
  });
}

/** A record that holds content nobody had: new, or the next email of a thread already seen. */
function firstOfContent(input: DedupeInput, seenCount: number, decision: Decide): DedupeDecision {
  if (input.conversation_id !== null && seenCount > 1) return decision('updated', 'conversation', { kind: 'classify' });
  return decision('new', 'none', { kind: 'classify' });
}

async function decideInOneStep(store: DedupeStore, input: DedupeInput, served: DuplicateServed): Promise<DedupeDecision> {
  const recordKey = recordKeyOf(input);
  const fingerprintKey = fingerprintKeyOf(input);
  const outcome = await store.decideInOneStep!(
    { recordKey, threadKey: threadKeyOf(input), fingerprintKey, fingerprint: input.fingerprint, conversationId: input.conversation_id, now: input.now },
    served,
  );
  const decision = decisionsFor(input, outcome.seenCount);
  switch (outcome.kind) {
    case 'served':
      return { ...decision('duplicate', matchedOnRecord(input), { kind: 'reuse', source_key: recordKey }), answered: outcome.classification };
    case 'created':
      return firstOfContent(input, outcome.seenCount, decision);
    case 'owned':
      return decision('duplicate', 'fingerprint', { kind: 'reuse', source_key: outcome.owner });
    case 'undecided': {
      // The thread is counted; the general path goes on from the step that did not take.
      if (!outcome.inserted) return store.transaction((transaction) => decide(transaction, input, outcome.seenCount));
      const owner = await store.claimFingerprint(fingerprintKey, recordKey, input.now);
      if (owner !== undefined) return decision('duplicate', 'fingerprint', { kind: 'reuse', source_key: owner });
      return firstOfContent(input, outcome.seenCount, decision);
    }
  }
}

/** Without a message key the record is keyed by content, so a match on it is a content match. */
function matchedOnRecord(input: DedupeInput): DedupeVerdict['matched_on'] {
  return input.message_key !== null ? 'id' : 'fingerprint';
}

/** The general path, step by step in one transaction; `counted`: the thread was counted already. */
async function decide(store: DedupeStore, input: DedupeInput, counted?: number): Promise<DedupeDecision> {
  const recordKey = recordKeyOf(input);
  const seenCount = counted ?? (await store.bumpThread(threadKeyOf(input), input.now));
  const decision = decisionsFor(input, seenCount);

  const existing = await store.claimMessage(recordKey, input.fingerprint, input.conversation_id, input.now);
  if (existing) {
    const matchedOn = matchedOnRecord(input);
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
  return firstOfContent(input, seenCount, decision);
}
