import type { Generated } from 'kysely';
import type { WorkTables } from '../work/index.js';

// Columns mirror the API's snake_case names. `rules` and `classification` are JSON text;
// `enabled` and `needs_action` are 0/1 on both stores so the two read alike.

export const MAILBOX_KINDS = ['imap', 'graph'] as const;
export type MailboxKind = (typeof MAILBOX_KINDS)[number];

export const TLS_MODES = ['none', 'starttls', 'tls'] as const;
export type TlsMode = (typeof TLS_MODES)[number];

export const AUTH_KINDS = ['password', 'xoauth2', 'client_secret'] as const;
export type AuthKind = (typeof AUTH_KINDS)[number];

/** What a mailbox's watcher is doing; `stopped` when nobody watches it (disabled, or no worker). */
export const MAILBOX_STATES = ['stopped', 'connecting', 'syncing', 'idle', 'error'] as const;
export type MailboxState = (typeof MAILBOX_STATES)[number];

export interface MailboxRow {
  id: string;
  name: string;
  kind: MailboxKind;
  host: string | null;
  port: number | null;
  tls: TlsMode | null;
  username: string | null;
  tenant_id: string | null;
  client_id: string | null;
  address: string | null;
  auth: AuthKind;
  secret: string | null;
  folder: string;
  since: string | null;
  project_id: string | null;
  enabled: number;
  rules: string;
  state: MailboxState;
  state_changed_at: string;
  last_error: string | null;
  last_error_at: string | null;
  last_sync_at: string | null;
  uid_validity: number | null;
  last_uid: number | null;
  delta_link: string | null;
  seen_count: number;
  classified_count: number;
  created_count: number;
  noted_count: number;
  failed_count: number;
  backfill_done: number;
  backfill_total: number;
  lease_owner: string | null;
  lease_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export const MESSAGE_SOURCES = ['imap', 'import', 'graph'] as const;
export type MessageSource = (typeof MESSAGE_SOURCES)[number];

/**
 * What happened to a message: a new work item, a note on the thread's item (or a reply to the
 * desk's mail that answered nothing), a reply that answered a question, only recorded (no action
 * needed, or a rule said so), a duplicate of one already handled, or a failure.
 */
export const MESSAGE_ACTIONS = ['created', 'noted', 'answered', 'recorded', 'duplicate', 'failed'] as const;
export type MessageAction = (typeof MESSAGE_ACTIONS)[number];

export interface IntakeMessageRow {
  id: string;
  mailbox_id: string;
  source: MessageSource;
  source_ref: string;
  source_hash: string;
  message_key: string;
  conversation_key: string | null;
  sender: string | null;
  subject: string | null;
  received_at: string | null;
  status: 'done' | 'failed';
  action: MessageAction;
  category: string | null;
  needs_action: number | null;
  priority: string | null;
  dedupe_status: string | null;
  fingerprint: string | null;
  classification: string | null;
  work_item_id: string | null;
  rule_index: number | null;
  error: string | null;
  created_at: string;
}

export interface UploadRow {
  id: Generated<number>;
  mailbox_id: string;
  source_ref: string;
  /** Buffer from both drivers; typed wider so the UI, which reads these types, needs no Node. */
  raw: Uint8Array;
  created_at: string;
}

export interface IntakeTables extends WorkTables {
  intake_mailboxes: MailboxRow;
  intake_messages: IntakeMessageRow;
  intake_uploads: UploadRow;
}

declare module '../shared/db/schema.js' {
  interface DatabaseSchema extends IntakeTables {}
}
