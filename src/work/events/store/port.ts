// The reading side of the event log, for the event hub. Writers append inside their own
// transactions through the work store; this reads what they committed and says what PostgreSQL
// knows about the writers still running, so the hub can tell a late commit from a rollback.

export interface StoredEvent {
  id: number;
  type: string;
  data: string;
  created_at: string;
}

export interface LogPosition {
  /** The newest event a reader can see now (0 when the log is empty). */
  latest: number;
  /** The highest id the log has handed out, committed or not: no event ever had a higher one. */
  reached: number;
}

export interface EventLog {
  /**
   * Committed events with ids above `id`, in id order: up to `limit` of them, and no more than
   * reach `maxBytes` of data (always at least one). The size cap keeps a read small when events
   * are large: a client that drains slowly reads again from the log each time, so reading far
   * ahead of it would be wasted.
   */
  after(id: number, limit: number, maxBytes: number): Promise<StoredEvent[]>;
  position(): Promise<LogPosition>;
  /** The oldest event kept (0 when the log is empty): below it, the retention purge has been. */
  oldest(): Promise<number>;
  /** A mark naming the transactions running now. */
  writersNow(): Promise<string>;
  /** True once every transaction named by `mark` has committed or rolled back. */
  ended(mark: string): Promise<boolean>;
  /**
   * Deletes the oldest events written before `at`, at most `limit` of them (a short write); with
   * `upTo`, only those with ids at or below it (a reader that has not reached the rest needs them).
   */
  purgeBefore(at: string, upTo: number | undefined, limit: number): Promise<number>;
}

/** An event row as either database returns it (the id may come back as text). */
export function storedEventOf(row: StoredEvent): StoredEvent {
  return { ...row, id: Number(row.id) };
}

/** The log's position from its newest visible id and its counter of ids handed out (either may come back as text). */
export function logPositionOf(latest: number | null | undefined, reached: number | null | undefined): LogPosition {
  const last = Number(latest ?? 0);
  return { latest: last, reached: Math.max(last, Number(reached ?? 0)) };
}
