import type { DispatchReason, Outcome, WorkStatus } from '../api-contract.js';
import type { WorkItemRow } from '../store/tables.js';

// The whole lifecycle in one table: from a status, which statuses may follow and by what move.
// The claim is a move too, the one an agent makes without naming a status (CLAIMS below).

/** `reassign` is the move to `dispatched` that hands the item to another agent. */
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
  claim: 'claim',
} as const;
export type Move = (typeof MOVES)[keyof typeof MOVES];
/** The moves a PATCH asks for by naming the status it wants. */
export type PatchMove = Exclude<Move, typeof MOVES.claim>;

/** What a PATCH may ask for, from each status. */
export const TRANSITIONS: Readonly<Record<WorkStatus, Readonly<Partial<Record<WorkStatus, PatchMove>>>>> = {
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

export function moveBetween(from: WorkStatus, to: WorkStatus): PatchMove | undefined {
  return TRANSITIONS[from][to];
}

/** The statuses reachable from `from`, for error messages and the UI. */
export function nextStatuses(from: WorkStatus): WorkStatus[] {
  return (Object.keys(TRANSITIONS[from]) as WorkStatus[]).filter((to) => to !== from);
}

/**
 * The claim: an agent takes the first item it may (its own dispatched items first, then the
 * queue in order) and holds it on a lease. From `queued` it opens a dispatch entry; an item
 * already dispatched to the agent keeps its entry. It goes to `in_progress`, or to `dispatched`
 * when the agent starts later (`start: false`).
 */
export const CLAIMS = {
  queued: { opensDispatch: true },
  dispatched: { opensDispatch: false },
} as const satisfies Partial<Record<WorkStatus, { opensDispatch: boolean }>>;
export type ClaimableStatus = keyof typeof CLAIMS;

export function isClaimable(status: WorkStatus): status is ClaimableStatus {
  return status in CLAIMS;
}

/** What a claim records in the audit trail, changed or not. */
export const CLAIM_AUDIT = [
  'status',
  'assigned_agent',
  'attempts',
  'lease_expires_at',
] as const satisfies readonly (keyof WorkItemRow)[];

/** Moves that hand the item to an agent need one in the request. */
export function needsAgent(move: Move): boolean {
  return move === MOVES.dispatch || move === MOVES.reassign;
}

// Leases. A claim puts the item on a lease; the holder keeps it by heartbeats and by any change
// it makes; a person's block pauses it; every move that takes the item from its holder ends it.

/** Statuses in which an agent holds the item and its lease runs. */
export const LEASED_STATUSES: readonly WorkStatus[] = ['dispatched', 'in_progress'];

export const LEASE_EFFECTS = { none: 'none', grant: 'grant', renew: 'renew', pause: 'pause', end: 'end' } as const;
export type LeaseEffect = (typeof LEASE_EFFECTS)[keyof typeof LEASE_EFFECTS];

export const LEASE_EFFECT_OF_MOVE: Readonly<Record<Move, LeaseEffect>> = {
  // A dispatch by hand grants no lease: only a claim (or a heartbeat) does.
  dispatch: LEASE_EFFECTS.none,
  reassign: LEASE_EFFECTS.end,
  release: LEASE_EFFECTS.end,
  pick_up: LEASE_EFFECTS.renew,
  block: LEASE_EFFECTS.pause,
  unblock: LEASE_EFFECTS.renew,
  complete: LEASE_EFFECTS.end,
  fail: LEASE_EFFECTS.end,
  cancel: LEASE_EFFECTS.end,
  // The lease the claimer asked for, from now.
  claim: LEASE_EFFECTS.grant,
};

/**
 * Whether a claim of `row` starts a new attempt. It does when it takes a queued item, or an item
 * a person dispatched to the agent. An agent re-claiming the item its own earlier claim
 * (`start: false`) dispatched to it, lease still on, carries on that attempt: counting it again
 * would spend the item's attempts without a lease ever running out, and fail it early.
 */
export function claimStartsAttempt(row: Pick<WorkItemRow, 'status' | 'lease_expires_at' | 'attempts'>): boolean {
  return !(row.status === 'dispatched' && row.lease_expires_at !== null && row.attempts > 0);
}

/** Why the open dispatch entry closes, for the moves that close it. */
export const CLOSE_REASON_OF_MOVE: Readonly<Partial<Record<Move, DispatchReason>>> = {
  reassign: 'reassigned',
  release: 'released',
  complete: 'completed',
  fail: 'failed',
  cancel: 'cancelled',
};

/** The longest wait between two attempts, however many attempts went before. */
export const MAX_RETRY_DELAY_S = 3_600;

/** Seconds before an item whose lease ran out on attempt `attempts` may be claimed again. */
export function retryDelaySeconds(retryDelayS: number, attempts: number): number {
  return Math.min(retryDelayS * 2 ** Math.max(0, attempts - 1), MAX_RETRY_DELAY_S);
}

// The conversation's moves (src/conversation): a question to a person and a review pause the
// holder's work; the answer resumes it, an approval completes it. They are not asked for by a
// PATCH (no status names them): the question or the review does, and the history records each
// under its own name with the person or agent who made it.

export const CONVERSATION_MOVES = {
  /** The holder asks a person: the item waits, its lease paused. */
  ask: { from: ['in_progress'], to: 'blocked', lease: LEASE_EFFECTS.pause },
  /** The answer: back to the same agent, on a fresh lease of its last lease's length. */
  answer: { from: ['blocked'], to: 'in_progress', lease: LEASE_EFFECTS.renew },
  /** The holder completes an item that needs review: it waits for a person instead. */
  send_for_review: { from: ['in_progress'], to: 'blocked', lease: LEASE_EFFECTS.pause },
  /** The review passes: the item completes with success, the reviewer its actor. */
  approve: { from: ['blocked'], to: 'completed', lease: LEASE_EFFECTS.end },
  /** The review sends the work back: the same agent, a fresh lease. */
  return: { from: ['blocked'], to: 'in_progress', lease: LEASE_EFFECTS.renew },
} as const satisfies Record<string, { from: readonly WorkStatus[]; to: WorkStatus; lease: LeaseEffect }>;
export type ConversationMove = keyof typeof CONVERSATION_MOVES;

/** Whether `move` applies to an item in `status` (a question on an item not in progress moves nothing). */
export function conversationMoveApplies(move: ConversationMove, status: WorkStatus): boolean {
  return (CONVERSATION_MOVES[move].from as readonly WorkStatus[]).includes(status);
}
