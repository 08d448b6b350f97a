// The digests' row (migrations/*/022_digests_escalation.sql): one per person and local day a
// digest was due, written in the commit that writes its mail; notification_id null when nothing waited.

export interface DigestRunRow {
  person: string;
  local_date: string;
  notification_id: string | null;
  created_at: string;
}

export interface ScheduleTables {
  digest_runs: DigestRunRow;
}

declare module '../../shared/db/schema.js' {
  interface DatabaseSchema extends ScheduleTables {}
}
