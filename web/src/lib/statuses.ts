import type { WorkStatus } from '../../../src/work/schemas.ts';

// A copy of the service's list, because importing the schema module at run time would bundle
// TypeBox into the page; `satisfies` keeps the two from drifting apart.
export const STATUSES = [
  'queued',
  'dispatched',
  'in_progress',
  'blocked',
  'completed',
  'failed',
  'cancelled',
] as const satisfies readonly WorkStatus[];
