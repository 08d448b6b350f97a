// The port of dedupe's memory: what decideDedupe (../verdict.ts, where the rules live) and the service ask
// of storage. One SQL implementation per database (sqlite.ts, postgres.ts), picked by index.ts;
// nothing here imports one.

import type { Classification } from '../../categories.js';
import type { UsageEvent } from '../../usage/records.js';

export const MESSAGE_STATES = ['pending', 'done', 'failed'] as const;
export type MessageState = (typeof MESSAGE_STATES)[number];

export interface StoredMessage {
  record_key: string;
  fingerprint: string;
  state: MessageState;
  classification: Classification | null;
  updated_at: string;
}

/** A classify_messages row as both databases return it. */
export interface MessageRow {
  fingerprint: string;
  state: MessageState;
  result: string | null;
  updated_at: string;
}

/** The row as the port hands it out: a classification only for a record that is done. */
export function storedMessage(recordKey: string, row: MessageRow): StoredMessage {
  return {
    record_key: recordKey,
    fingerprint: row.fingerprint,
    state: row.state,
    classification: row.state === 'done' && row.result !== null ? (JSON.parse(row.result) as Classification) : null,
    updated_at: row.updated_at,
  };
}

/** What a claim finds when the conflict proves the record exists but it was purged in between. */
export function purgedMessage(recordKey: string, now: string): StoredMessage {
  return { record_key: recordKey, fingerprint: '', state: 'failed', classification: null, updated_at: now };
}

export interface ClaimRequest {
  thread_key: string;
  record_key: string;
  fingerprint: string;
  /** The scope and the fingerprint: the key the owner of this content is found under. */
  fingerprint_key: string;
  conversation_id: string | null;
  now: string;
  /** Recorded with the claim when the record is found done with this very content. */
  served: Extract<UsageEvent, { kind: 'duplicate' }>;
}

export interface Claim {
  /** Requests for the thread, this one included. */
  seen_count: number;
  /** The record as it was found, or undefined when this request inserted it (and owns it). */
  existing: StoredMessage | undefined;
  /**
   * Only for a record this request inserted: undefined when it became the owner of the
   * content, else the owner as found (which may be this very record: a retried request whose
   * content row outlived its record) and, when the claim could read it, the owner's record.
   */
  owner: { record_key: string; message: StoredMessage | undefined } | undefined;
  /** `served` was recorded: `existing` holds this content and its classification. */
  served: boolean;
}

/** One answer to store: see DedupeStore.saveResult. */
export interface SaveRequest {
  record_key: string;
  fingerprint: string;
  classification: Classification | null;
  now: string;
  usage?: UsageEvent;
}

export interface DedupeStore {
  /** Runs `work` in one transaction: one commit (one fsync on SQLite) for a whole decision. */
  transaction<T>(work: (store: DedupeStore) => Promise<T>): Promise<T>;
  /**
   * The first step of every decision, atomic (one commit; one round trip on PostgreSQL): counts
   * the thread; inserts the record pending, or finds it (and touches it unless pending, so it is
   * kept longer while a stuck one keeps its time); for a record it inserted, claims the content
   * (`claimFingerprint`) and reads the owner's record; and records `served` when the record it
   * found is done with this very content.
   */
  claim(request: ClaimRequest): Promise<Claim>;
  /** Gives a record new content, pending again; false when another request changed it first. */
  replaceFingerprint(recordKey: string, previous: string, next: string, now: string): Promise<boolean>;
  /**
   * Makes the record the owner of a content (`fingerprintKey`: the scope and the fingerprint);
   * returns undefined when it became the owner, else the owner as found (touched).
   */
  claimFingerprint(fingerprintKey: string, recordKey: string, now: string): Promise<string | undefined>;
  /** Hands a content from an owner that no longer holds it to a record that does; the first move wins. */
  moveFingerprint(fingerprintKey: string, from: string, to: string, now: string): Promise<void>;
  findMessage(recordKey: string): Promise<StoredMessage | undefined>;
  /**
   * Takes over a record of this content whose classification failed, or stayed pending since
   * before `staleBefore` (its classifier died); false when another request took it first.
   */
  reclaim(recordKey: string, fingerprint: string, staleBefore: string, now: string): Promise<boolean>;
  /**
   * Stores the classification of the content `fingerprint`, or marks the record failed when there
   * is none. Only while the record still holds that content: an answer for content the record no
   * longer has is dropped, and a failure never replaces an answer. True when it was stored.
   * `usage`, when given, is recorded in the same transaction whether or not the answer was
   * stored: the provider was asked either way.
   */
  saveResult(
    recordKey: string,
    fingerprint: string,
    classification: Classification | null,
    now: string,
    usage?: UsageEvent,
  ): Promise<boolean>;
  /** Records usage that comes with no write of the dedupe record (a duplicate served as it is). */
  recordUsage(usage: UsageEvent): Promise<void>;
  /**
   * Forgets everything not touched since `before`, and the per-call usage rows older than it
   * (the hourly usage totals stay); returns the number of dedupe rows removed.
   */
  purgeBefore(before: string): Promise<number>;
}

/**
 * A store that also takes whole batches, each in one statement (PostgreSQL): one round trip and
 * one commit for all. A batch may touch a row once: no two requests in it may share a thread,
 * a record or a content key (saves: a record). coalesced.ts forms such batches.
 */
export interface BatchDedupeStore extends DedupeStore {
  claimMany(requests: readonly ClaimRequest[]): Promise<Claim[]>;
  saveMany(saves: readonly SaveRequest[]): Promise<boolean[]>;
}
