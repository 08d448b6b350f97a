import type { PersonRow } from '../../people/store/port.js';
import type { DigestRunRow } from '../tables.js';

// What the scheduler asks of its database: SQL only. Which day is due is the scheduler's to decide.

export interface ScheduleStatements {
  /** The profiles that read digests, by name. */
  digestReaders(): Promise<PersonRow[]>;
  /** The days of these that already have their run, as "person\u0000local_date" keys. */
  ranOn(localDates: readonly string[]): Promise<Set<string>>;
  /** Writes the day's run; false (nothing written) when another instance wrote it first. */
  claimDay(row: DigestRunRow): Promise<boolean>;
}

export function dayKey(person: string, localDate: string): string {
  return `${person}\u0000${localDate}`;
}
