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
