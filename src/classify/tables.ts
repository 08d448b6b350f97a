import type { Generated } from 'kysely';
import type { MessageState } from './dedupe/store/port.js';
import type { CallRow, USAGE_COUNTERS } from './usage/store/port.js';

// The rows of dedupe (migration 002) and LLM usage (migration 008). The stores write them with
// fixed SQL; these types are what a typed query (a test's, a report's) reads.

export interface ClassifyMessageRow {
  record_key: string;
  fingerprint: string;
  conversation_id: string | null;
  state: MessageState;
  /** The classification as JSON text, once done. */
  result: string | null;
  created_at: string;
  updated_at: string;
}

/** A content's owner: `fingerprint` holds the scoped key (the column predates scopes). */
export interface ClassifyFingerprintRow {
  fingerprint: string;
  record_key: string;
  created_at: string;
  updated_at: string;
}

export interface ClassifyThreadRow {
  thread_key: string;
  seen_count: number;
  created_at: string;
  updated_at: string;
}

export interface LlmCallTableRow extends CallRow {
  id: Generated<number>;
}

/** PostgreSQL returns its bigint counters as text. */
export type LlmUsageHourlyRow = Record<(typeof USAGE_COUNTERS)[number], number | string> & {
  hour: string;
  provider: string;
  model: string;
  shard: number;
};

export interface ClassifyTables {
  classify_messages: ClassifyMessageRow;
  classify_fingerprints: ClassifyFingerprintRow;
  classify_threads: ClassifyThreadRow;
  llm_calls: LlmCallTableRow;
  llm_usage_hourly: LlmUsageHourlyRow;
}

declare module '../shared/db/schema.js' {
  interface DatabaseSchema extends ClassifyTables {}
}
