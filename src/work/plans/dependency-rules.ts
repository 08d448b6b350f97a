import { WaitingOnDependencies } from '../errors.js';
import { SYSTEM_ACTOR } from '../items/view.js';
import { OUTCOME_OF_STATUS, isFinal } from '../items/lifecycle.js';
import type { WorkStatus } from '../api-contract.js';
import type { DependentsEffect } from '../store/dependencies-port.js';
import type { WorkItemRow } from '../store/tables.js';

// The rules of dependencies that every change applies, pure functions of the row and the move:
// an item that waits on a dependency is not handed to an agent, and one that reaches a final
// status tells its dependents. The checks of the links themselves are in dependencies.ts.

/** The statuses in which an item no longer needs telling: a final item waits for nothing. */
export const FINAL_STATUSES = Object.keys(OUTCOME_OF_STATUS) as WorkStatus[];

/**
 * What moving `row` to `to` does to its dependents; undefined unless it reaches a final status.
 * Completed releases them (one dependency fewer to wait on); failed or cancelled leaves them
 * waiting, with a note saying what a person can do. Nothing is cancelled or failed by itself.
 */
export function dependentsEffectOf(
  row: WorkItemRow,
  to: WorkStatus | undefined,
  event: string,
): DependentsEffect | undefined {
  if (to === undefined || to === row.status || !isFinal(to)) return undefined;
  // The desk tells the dependents, not the agent that finished this item.
  const actor = { name: SYSTEM_ACTOR.name, role: SYSTEM_ACTOR.role };
  if (to === 'completed') return { kind: 'release', event, actor };
  return { kind: 'note', note: failedDependencyNote(row, to), unless: FINAL_STATUSES, event, actor };
}

export function failedDependencyNote(row: Pick<WorkItemRow, 'id' | 'description'>, status: WorkStatus): string {
  const description = row.description.length > 200 ? `${row.description.slice(0, 199)}…` : row.description;
  return (
    `Dependency ${row.id} ("${description}") ended ${status}: this item will not become claimable until a person ` +
    `removes that dependency (PATCH depends_on) or cancels this item.`
  );
}

/** A dispatch by hand of an item that still waits is refused (the service names what it waits on). */
export function assertNotWaiting(row: Pick<WorkItemRow, 'id' | 'waiting_on'>): void {
  if (row.waiting_on > 0) throw new WaitingOnDependencies(row.id, null);
}
