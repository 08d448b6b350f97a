import type { Logger } from 'pino';
import type { DatabaseHandle } from '../shared/db/schema.js';
import { DomainError } from '../shared/errors.js';
import { isFinal } from '../work/contract.js';
import type { WorkStore } from '../work/index.js';
import { catchUp, MISSED_ROWS } from './catch-up.js';
import { creatorOf, itemFor, type ItemMaker } from './items.js';
import { rhythmOf } from './rhythm.js';
import type { OccurrenceOutcome } from './schemas.js';
import type { ScheduleStatementsOn } from './store/index.js';
import type { OccurrenceRow, ScheduleRow } from './store/tables.js';

// One firing pass: lease the due schedules, then per schedule in one transaction write a row per
// occurrence reached and make the items. The row goes first; only when its insert happened (the
// key was free) is the item made, so another instance or a retried commit never makes a second.

/**
 * How long a pass holds a schedule it fires. Short, so that after a crash the next pass (every
 * SCHEDULES_EVERY_MS) takes the occurrence within the grace: claimed at most one pass interval
 * after it was due, the lease, then one more interval, all under GRACE_MS. A firing that outlasts
 * it loses nothing: its finishing write sees another lease and rolls back.
 */
export const FIRING_LEASE_MS = 20_000;
/** Schedules leased per claim; a pass claims again until none is due. */
export const FIRING_BATCH = 20;

export interface FiringDeps {
  store: WorkStore;
  top: DatabaseHandle;
  statementsOn: ScheduleStatementsOn;
  makeItem: ItemMaker;
  logger: Logger;
  /** Told of each occurrence written, after its commit (the metrics). */
  counted: (row: ScheduleRow, outcome: OccurrenceOutcome) => void;
}

export interface FiringResult {
  made: number;
  skipped_overlap: number;
  missed: number;
  failed: number;
}

/** The lease lapsed and another pass took the schedule: this transaction's writes are rolled back. */
class LeaseLost extends Error {}

export async function fireDue(deps: FiringDeps, at: Date): Promise<FiringResult> {
  const result: FiringResult = { made: 0, skipped_overlap: 0, missed: 0, failed: 0 };
  const iso = at.toISOString();
  const lease = new Date(at.getTime() + FIRING_LEASE_MS).toISOString();
  const seen = new Set<string>();
  if (!(await deps.statementsOn(deps.top).anyDue(iso))) return result;
  for (;;) {
    const claimed = (await deps.statementsOn(deps.top).claimDue(iso, lease, FIRING_BATCH)).filter(
      (row) => !seen.has(row.id),
    );
    if (claimed.length === 0) return result;
    for (const row of claimed) {
      seen.add(row.id);
      for (const [outcome, count] of await fireOne(deps, row.id, lease, at)) {
        result[outcome as keyof FiringResult] += count;
      }
    }
  }
}

async function fireOne(deps: FiringDeps, id: string, lease: string, at: Date): Promise<Map<OccurrenceOutcome, number>> {
  const { store, statementsOn, makeItem, logger, counted } = deps;
  const iso = at.toISOString();
  const written: OccurrenceRow[] = [];
  let fired: ScheduleRow | undefined;
  try {
    await store.transaction(async (tx, trx) => {
      written.length = 0;
      const statements = statementsOn(trx);
      const row = await statements.lockForFiring(id);
      if (!row || row.claimed_until !== lease) return;
      fired = row;
      if (row.enabled !== 1 || row.next_run_at === null) {
        await statements.release(id, lease);
        return;
      }
      const rhythm = rhythmOf(row);
      const cursor = new Date(row.next_run_at);
      const wanted = row.max_catchup + MISSED_ROWS;
      const times = rhythm.runsBetween(cursor, at, wanted);
      const truncated = times.length === wanted && times[0]!.getTime() > cursor.getTime();
      let previous = await statements.lastItem(id);
      let lastRun = row.last_run_at;
      for (const step of catchUp({ times, truncated, now: at, missed: row.missed, max_catchup: row.max_catchup })) {
        const occurrenceAt = step.at.toISOString();
        const occurrence: OccurrenceRow = {
          schedule_id: id,
          occurrence_at: occurrenceAt,
          work_item_id: null,
          outcome: 'made',
          reason: step.reason,
          created_at: iso,
        };
        if (step.kind === 'missed') occurrence.outcome = 'missed';
        else if (row.overlap === 'skip' && previous !== null) {
          const before = await tx.findWorkItem(previous);
          if (before && !isFinal(before.status)) {
            occurrence.outcome = 'skipped_overlap';
            occurrence.reason = `the previous occurrence's item ${previous} is ${before.status}`;
          }
        }
        if (!(await statements.insertOccurrence(occurrence))) continue;
        if (occurrence.outcome === 'made') {
          const item = await makeItem(tx, itemFor(row, occurrenceAt), creatorOf(row), iso);
          await statements.setOccurrenceItem(id, occurrenceAt, item.id);
          occurrence.work_item_id = item.id;
          previous = item.id;
          lastRun = occurrenceAt;
        }
        written.push(occurrence);
      }
      const next = rhythm.nextAfter(at)?.toISOString() ?? null;
      if (!(await statements.finishFiring(id, lease, { next_run_at: next, last_run_at: lastRun }))) {
        throw new LeaseLost();
      }
    });
  } catch (error) {
    if (error instanceof LeaseLost) return new Map();
    if (!(error instanceof DomainError) || fired === undefined) {
      await statementsOn(deps.top)
        .release(id, lease)
        .catch(() => undefined);
      throw error;
    }
    // The work service refused the item (its project gone, a rule of its fields): firing again
    // would fail again, so the schedule stops and says why, until a person edits or enables it.
    await disable(deps, fired, lease, at, error.message);
    return new Map([['failed', 1]]);
  }
  const counts = new Map<OccurrenceOutcome, number>();
  for (const occurrence of written) {
    counts.set(occurrence.outcome, (counts.get(occurrence.outcome) ?? 0) + 1);
    counted(fired!, occurrence.outcome);
  }
  if (written.length > 0) logger.debug({ schedule: id, occurrences: written.length }, 'schedule fired');
  return counts;
}

async function disable(deps: FiringDeps, row: ScheduleRow, lease: string, at: Date, why: string): Promise<void> {
  const iso = at.toISOString();
  const reason = `could not make the item: ${why}`;
  await deps.store.transaction(async (_tx, trx) => {
    const statements = deps.statementsOn(trx);
    await statements.insertOccurrence({
      schedule_id: row.id,
      occurrence_at: row.next_run_at ?? iso,
      work_item_id: null,
      outcome: 'failed',
      reason,
      created_at: iso,
    });
    if (await statements.finishFiring(row.id, lease, { enabled: 0, disabled_reason: reason, updated_at: iso })) {
      deps.counted(row, 'failed');
    }
  });
  deps.logger.warn({ schedule: row.id, reason }, 'schedule disabled');
}
