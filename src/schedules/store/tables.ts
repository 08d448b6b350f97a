import type { MissedPolicy, OccurrenceOutcome, OverlapPolicy } from '../schemas.js';

// The schedules' rows (migrations/*/025_schedules.sql), snake_case as on the wire.

export interface ScheduleRow {
  id: string;
  name: string;
  /** The project (empty for none) and the lower-cased name: unique. */
  name_key: string;
  project_id: string | null;
  cron: string;
  tz: string;
  /** The item template as JSON text. */
  item: string;
  missed: MissedPolicy;
  max_catchup: number;
  overlap: OverlapPolicy;
  starts_at: string | null;
  ends_at: string | null;
  enabled: number;
  disabled_reason: string | null;
  next_run_at: string | null;
  last_run_at: string | null;
  claimed_until: string | null;
  created_by: string;
  created_by_role: string;
  created_at: string;
  updated_at: string;
  version: number;
}

export interface OccurrenceRow {
  schedule_id: string;
  occurrence_at: string;
  work_item_id: string | null;
  outcome: OccurrenceOutcome;
  reason: string | null;
  created_at: string;
}

export interface ScheduleTables {
  schedules: ScheduleRow;
  schedule_occurrences: OccurrenceRow;
}

declare module '../../shared/db/schema.js' {
  interface DatabaseSchema extends ScheduleTables {}
}
