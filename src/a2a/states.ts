import { TaskState } from '@a2a-js/sdk';
import type { WorkStatus } from '../work/contract.js';

// The one table from the desk's statuses to A2A's task states. A blocked item is waiting on a
// question (INPUT_REQUIRED when the question is for the requester) or on a review, which is the
// desk's own business (WORKING); docs/a2a.md shows this table.

export const STATE_OF_STATUS = {
  queued: TaskState.TASK_STATE_SUBMITTED,
  dispatched: TaskState.TASK_STATE_SUBMITTED,
  in_progress: TaskState.TASK_STATE_WORKING,
  blocked: TaskState.TASK_STATE_WORKING,
  completed: TaskState.TASK_STATE_COMPLETED,
  failed: TaskState.TASK_STATE_FAILED,
  cancelled: TaskState.TASK_STATE_CANCELED,
} as const satisfies Record<WorkStatus, TaskState>;

/** The state of an item, given whether it waits on a question the requester may answer. */
export function taskState(status: WorkStatus, asksRequester: boolean): TaskState {
  return status === 'blocked' && asksRequester ? TaskState.TASK_STATE_INPUT_REQUIRED : STATE_OF_STATUS[status];
}

/** The statuses a ListTasks state filter reads; INPUT_REQUIRED and WORKING share `blocked`. */
export function statusesOf(state: TaskState): WorkStatus[] {
  if (state === TaskState.TASK_STATE_INPUT_REQUIRED) return ['blocked'];
  return (Object.keys(STATE_OF_STATUS) as WorkStatus[]).filter((status) => STATE_OF_STATUS[status] === state);
}

const FINAL_STATES: readonly TaskState[] = [
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
];

export function isFinalState(state: TaskState): boolean {
  return FINAL_STATES.includes(state);
}

/** Final, or waiting on the client: where a blocking SendMessage stops waiting. */
export function isSettledState(state: TaskState): boolean {
  return isFinalState(state) || state === TaskState.TASK_STATE_INPUT_REQUIRED;
}
