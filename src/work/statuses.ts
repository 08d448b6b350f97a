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
export const DISPATCH_REASONS = ['completed', 'failed', 'cancelled', 'released', 'reassigned', 'lease_expired'] as const;
export type DispatchReason = (typeof DISPATCH_REASONS)[number];
