import type { OccurrenceRow, ScheduleRow } from './tables.js';

// What schedules ask of their database: SQL only. What is due, what an occurrence makes and
// when the next one is are the service's and the pass's to decide.

export interface ScheduleFilter {
  project_id?: string;
  enabled?: boolean;
}

export type ScheduleChanges = Partial<Omit<ScheduleRow, 'id' | 'created_by' | 'created_by_role' | 'created_at'>>;

export interface ScheduleStatements {
  /** Throws the database's unique violation when the name is taken in its project. */
  insert(row: ScheduleRow): Promise<void>;
  find(id: string): Promise<ScheduleRow | undefined>;
  /** By name, then id. */
  list(filter: ScheduleFilter): Promise<ScheduleRow[]>;
  /** Writes `set` and bumps the version; undefined when there is no such schedule. */
  update(id: string, set: ScheduleChanges): Promise<ScheduleRow | undefined>;
  /** False when there was none; its occurrences go with it (the foreign key cascades). */
  remove(id: string): Promise<boolean>;
  /** The latest `limit` occurrences, newest first. */
  occurrences(id: string, limit: number): Promise<OccurrenceRow[]>;
  /** Whether any enabled schedule is due at `now`: a read, so that an idle pass writes nothing. */
  anyDue(now: string): Promise<boolean>;
  /**
   * Leases up to `limit` enabled schedules due at `now` that no other pass holds, until
   * `leaseUntil`; the rows as leased. Each database locks in its own way.
   */
  claimDue(now: string, leaseUntil: string, limit: number): Promise<ScheduleRow[]>;
  /** Reads the schedule inside the firing transaction and holds it against a PATCH until it ends. */
  lockForFiring(id: string): Promise<ScheduleRow | undefined>;
  /** False (nothing written) when the occurrence already has its row: the exactly-once key. */
  insertOccurrence(row: OccurrenceRow): Promise<boolean>;
  /** Names the item the occurrence made (written after its row, in the same transaction). */
  setOccurrenceItem(id: string, occurrenceAt: string, workItemId: string): Promise<void>;
  /** The occurrence time of the last item made, without a new version (not a change of the definition). */
  setLastRun(id: string, at: string): Promise<void>;
  /** The item of the latest occurrence that made one, if any. */
  lastItem(id: string): Promise<string | null>;
  /** Writes the pass's result and ends its lease; false when the lease is no longer `lease`. */
  finishFiring(id: string, lease: string, set: ScheduleChanges): Promise<boolean>;
  /** Ends the lease without changing anything else. */
  release(id: string, lease: string): Promise<void>;
}
