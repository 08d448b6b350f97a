import type { Plan } from '../items/changes.js';
import type { ChildCounts } from '../api-contract.js';
import type { WorkItemRow } from '../store/tables.js';

// A plan's parent (POST /work/plans) is a container, not work: no agent claims it, and the desk
// completes it (outcome success) once every step completed and it waits on nothing else.

/** What a plan's writer tells the submit of each item (service.ts create). */
export interface PlanContext {
  /** The items this transaction created before: no one else sees them, so none is held. */
  fresh?: ReadonlySet<string>;
  /** The plan's parent. */
  container?: boolean;
}

/**
 * What a container waits on beyond its dependencies: itself, until the desk completes it. The
 * claim's indexes hold only items waiting on nothing, so they never see a container and no query
 * of the claim needs to know of containers.
 */
export const PLAN_HOLD = 1;

export type EndedStep = Pick<WorkItemRow, 'id' | 'description' | 'status'>;

/**
 * What the desk does to container `row` whose children are counted `children`; null: nothing.
 * Runs right after a step's completion (service.ts settlePlan), and at a later sweep
 * (lease-sweeper.ts) when a crash, or a path that does not settle, came between. A step that
 * fails or is cancelled leaves the container queued, with a note saying which step and what to do.
 */
export function planSettlement(
  row: WorkItemRow,
  children: ChildCounts,
  step: EndedStep | undefined,
  at: string,
): Plan | null {
  if (row.container !== 1 || row.status !== 'queued') return null;
  if (children.total > 0 && children.completed === children.total && row.waiting_on === PLAN_HOLD) {
    return { action: 'complete', set: { status: 'completed', outcome: 'success', completed_at: at, waiting_on: 0 } };
  }
  if (step === undefined || step.status === 'completed') return null;
  const note = stepEndedNote(step);
  return row.notes === note ? null : { action: 'edited', set: { notes: note } };
}

export function stepEndedNote(step: EndedStep): string {
  const description = step.description.length > 200 ? `${step.description.slice(0, 199)}…` : step.description;
  return (
    `Step ${step.id} ("${description}") ended ${step.status}: this plan stays queued until every step completes. ` +
    `A person may take the step out of the plan (PATCH its parent_id) or cancel the plan.`
  );
}
