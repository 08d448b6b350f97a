// The lifecycle's vocabulary, free of imports so the web UI can bundle it without TypeBox.

export const WORK_STATUSES = [
  'queued',
  'dispatched',
  'in_progress',
  'blocked',
  'completed',
  'failed',
  'cancelled',
] as const;
export type WorkStatus = (typeof WORK_STATUSES)[number];

export const OUTCOMES = ['success', 'failed', 'cancelled'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** Why a dispatch entry closed. */
export const DISPATCH_REASONS = [
  'completed',
  'failed',
  'cancelled',
  'released',
  'reassigned',
  'lease_expired',
] as const;
export type DispatchReason = (typeof DISPATCH_REASONS)[number];

/** What a history row's `action` says when the change is not a move of the lifecycle. */
export const CHANGE_ACTIONS = [
  'created',
  'claimed',
  'heartbeat',
  'lease_expired',
  'edited',
  'email_follow_up',
] as const;

/** The moves a PATCH makes (lifecycle.ts) as history actions; service.ts checks at compile time that the two agree. */
export const MOVE_ACTIONS = [
  'dispatch',
  'reassign',
  'release',
  'pick_up',
  'block',
  'unblock',
  'complete',
  'fail',
  'cancel',
] as const;

/**
 * The conversation's moves (lifecycle.ts CONVERSATION_MOVES), the asking of a question that
 * moves nothing, and an admin's deletion of a comment.
 */
export const CONVERSATION_ACTIONS = [
  'ask',
  'answer',
  'send_for_review',
  'approve',
  'return',
  'comment_deleted',
] as const;

/** Every action a history row may record; the history response's description lists them from here. */
export const HISTORY_ACTIONS = [...CHANGE_ACTIONS, ...MOVE_ACTIONS, ...CONVERSATION_ACTIONS] as const;
export type HistoryAction = (typeof HISTORY_ACTIONS)[number];
