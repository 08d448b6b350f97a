import type { Outcome, WorkStatus } from './schemas.js';

// The whole lifecycle in one table: from a status, which statuses may follow and by what move.
// `reassign` is the move to `dispatched` that hands the item to another agent.

export const MOVES = {
  dispatch: 'dispatch',
  reassign: 'reassign',
  release: 'release',
  pick_up: 'pick_up',
  block: 'block',
  unblock: 'unblock',
  complete: 'complete',
  fail: 'fail',
  cancel: 'cancel',
} as const;
export type Move = (typeof MOVES)[keyof typeof MOVES];

export const TRANSITIONS: Readonly<Record<WorkStatus, Readonly<Partial<Record<WorkStatus, Move>>>>> = {
  queued: { dispatched: MOVES.dispatch, cancelled: MOVES.cancel },
  dispatched: {
    dispatched: MOVES.reassign,
    in_progress: MOVES.pick_up,
    queued: MOVES.release,
    cancelled: MOVES.cancel,
  },
  in_progress: {
    dispatched: MOVES.reassign,
    blocked: MOVES.block,
    completed: MOVES.complete,
    failed: MOVES.fail,
  },
  blocked: { dispatched: MOVES.reassign, in_progress: MOVES.unblock, failed: MOVES.fail },
  completed: {},
  failed: {},
  cancelled: {},
};

/** The outcome a final status carries, and the status an outcome alone implies. */
export const OUTCOME_OF_STATUS = {
  completed: 'success',
  failed: 'failed',
  cancelled: 'cancelled',
} as const satisfies Partial<Record<WorkStatus, Outcome>>;

export const STATUS_OF_OUTCOME = {
  success: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
} as const satisfies Record<Outcome, WorkStatus>;

export type FinalStatus = keyof typeof OUTCOME_OF_STATUS;

export function isFinal(status: WorkStatus): status is FinalStatus {
  return status in OUTCOME_OF_STATUS;
}

export function moveBetween(from: WorkStatus, to: WorkStatus): Move | undefined {
  return TRANSITIONS[from][to];
}

/** The statuses reachable from `from`, for error messages and the UI. */
export function nextStatuses(from: WorkStatus): WorkStatus[] {
  return (Object.keys(TRANSITIONS[from]) as WorkStatus[]).filter((to) => to !== from);
}

/** Moves that hand the item to an agent need one in the request. */
export function needsAgent(move: Move): boolean {
  return move === MOVES.dispatch || move === MOVES.reassign;
}
