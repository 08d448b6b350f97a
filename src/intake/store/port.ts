// The port of mail intake: mailboxes with their leases and cursors, the message log, and the
// uploads waiting to be read.

import type { DatabaseHandle } from '../../shared/db/schema.js';
import type { IntakeMessageRow, MailboxRow, MailboxState, MessageAction } from '../tables.js';

/** Where the store runs: the database, or a transaction another store opened. */
export type IntakeExecutor = DatabaseHandle;

/** The store on a given executor, as the database's own module builds it. */
export type IntakeStoreOn = (db: IntakeExecutor) => IntakeStore;

/** Where the previous page of the intake log ended (newest first). */
export interface MessagePosition {
  created_at: string;
  id: string;
}

export interface MessageFilter {
  status?: 'done' | 'failed';
  action?: MessageAction;
}

export type MailboxSettings = Omit<
  MailboxRow,
  | 'id'
  | 'state'
  | 'state_changed_at'
  | 'last_error'
  | 'last_error_at'
  | 'last_sync_at'
  | 'uid_validity'
  | 'last_uid'
  | 'delta_link'
  | 'seen_count'
  | 'classified_count'
  | 'created_count'
  | 'noted_count'
  | 'failed_count'
  | 'backfill_done'
  | 'backfill_total'
  | 'lease_owner'
  | 'lease_expires_at'
  | 'created_at'
>;

export interface StateChange {
  state: MailboxState;
  at: string;
  /** Set with `error`; kept (not cleared) by the other states, so the last failure stays visible. */
  error?: string;
  synced?: boolean;
}

/** What a batch of outcomes moves on the mailbox, written with the outcomes. */
export interface Advance {
  /** The highest IMAP UID now processed (the cursor only ever moves forward). */
  last_uid?: number;
  delta_link?: string;
  /** Messages newly logged, and of them: classified, items created, notes added, failed, part of a backfill. */
  seen: number;
  classified: number;
  created: number;
  noted: number;
  failed: number;
  backfill: number;
  at: string;
}

/** A log entry as the pipeline's decisions read it. */
export type LoggedMessage = Pick<
  IntakeMessageRow,
  | 'id'
  | 'source_ref'
  | 'source_hash'
  | 'message_key'
  | 'conversation_key'
  | 'fingerprint'
  | 'status'
  | 'action'
  | 'work_item_id'
  | 'created_at'
>;

/** Values to look up in the log, each on its own column; a row matching any of them is found. */
export interface LogQuery {
  source_refs?: readonly string[];
  source_hashes?: readonly string[];
  message_keys?: readonly string[];
  fingerprints?: readonly string[];
  /** Only the entries that have a work item. */
  item_conversations?: readonly string[];
}

export interface UploadToQueue {
  source_ref: string;
  raw: Buffer;
}

export interface QueuedUpload {
  id: number;
  source_ref: string;
  raw: Buffer;
}

export interface IntakeStore {
  insertMailbox(row: MailboxRow): Promise<void>;
  findMailbox(id: string): Promise<MailboxRow | undefined>;
  listMailboxes(): Promise<MailboxRow[]>;
  /** False when the mailbox does not exist. */
  updateMailbox(id: string, changes: Partial<MailboxSettings>, at: string): Promise<boolean>;
  deleteMailbox(id: string): Promise<boolean>;

  /**
   * Takes or renews, in one statement, the lease of every mailbox that has something to watch
   * (enabled, or uploads waiting) and is free, expired or already ours; answers the ids now ours.
   */
  claimLeases(owner: string, now: string, until: string): Promise<string[]>;
  releaseLease(id: string, owner: string): Promise<void>;
  /** False when the lease is no longer ours. */
  setState(id: string, owner: string, change: StateChange): Promise<boolean>;
  /** Sets the cursor outright (first connection, UIDVALIDITY change); false when the lease is lost. */
  resetCursor(
    id: string,
    owner: string,
    uidValidity: number | null,
    lastUid: number | null,
    at: string,
  ): Promise<boolean>;
  /** Adds to the backfill total, starting a new one when the last was complete. */
  addBackfill(id: string, count: number, at: string): Promise<void>;

  /**
   * The logged messages of the mailbox that match any of the values given, in one round trip:
   * what the pipeline decides a batch of messages on (log-view.ts picks among them).
   */
  findLogged(mailboxId: string, query: LogQuery): Promise<LoggedMessage[]>;
  /** Message keys among `keys` already logged for this mailbox (to skip known mail on a resync). */
  knownMessageKeys(mailboxId: string, keys: string[]): Promise<Set<string>>;
  /** Log entries, in order (one statement per slice of them). */
  insertMessages(rows: IntakeMessageRow[]): Promise<void>;
  /** Graph: where the next delta round starts (or the current one goes on); false when the lease is lost. */
  saveDeltaLink(id: string, owner: string, link: string | null): Promise<boolean>;
  /** Moves the cursor forward without counting anything; false when the lease is lost. */
  moveCursor(id: string, owner: string, lastUid: number): Promise<boolean>;
  /** Moves the cursor and the counters with an outcome; false when the lease is lost. `owner` null: no fence (uploads). */
  advance(id: string, owner: string | null, advance: Advance): Promise<boolean>;
  listMessages(
    mailboxId: string,
    filter: MessageFilter,
    after: MessagePosition | null,
    limit: number,
  ): Promise<IntakeMessageRow[]>;

  queueUploads(mailboxId: string, uploads: UploadToQueue[], at: string): Promise<void>;
  nextUploads(mailboxId: string, limit: number): Promise<QueuedUpload[]>;
  deleteUploads(ids: number[]): Promise<void>;
}
