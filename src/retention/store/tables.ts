// The retention ledger (migrations/*/032_retention.sql): one row while an archiving pass runs.

export interface ArchiveLedgerRow {
  /** Always 1: the table holds at most one pass. */
  slot: number;
  holder: string;
  lease_until: string;
  /** The archive file the pass's current batch is appended to, and its size before; null between batches. */
  file: string | null;
  file_offset: number | string | null;
}

export interface RetentionTables {
  archive_ledger: ArchiveLedgerRow;
}

declare module '../../shared/db/schema.js' {
  interface DatabaseSchema extends RetentionTables {}
}
