// The names an endpoint may subscribe to, free of imports so clients can bundle them: the event
// stream's own, the per-status names a status change adds, and the webhooks' own two.

export const STREAM_EVENT_NAMES = [
  'work.created',
  'work.updated',
  'work.deleted',
  'work.commented',
  'project.created',
  'project.updated',
  'question.asked',
  'question.answered',
  'question.moot',
] as const;

/** The name a work.updated adds when it moved the item to a status (in_progress: started). */
export const STATUS_EVENT_NAMES = {
  queued: 'work.queued',
  dispatched: 'work.dispatched',
  in_progress: 'work.started',
  blocked: 'work.blocked',
  completed: 'work.completed',
  failed: 'work.failed',
  cancelled: 'work.cancelled',
} as const;

export const WEBHOOK_EVENTS = { disabled: 'webhook.disabled', test: 'webhook.test' } as const;

export const WEBHOOK_EVENT_NAMES: readonly string[] = [
  ...STREAM_EVENT_NAMES,
  ...Object.values(STATUS_EVENT_NAMES),
  ...Object.values(WEBHOOK_EVENTS),
];

/** Subscribes to every name, those added later included. */
export const ALL_EVENTS = '*';
