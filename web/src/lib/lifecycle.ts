import type { WorkStatus } from '../../../src/work/schemas.ts';

// The UI's copy of the service's transition table (issue 2), used only to decide which buttons
// to offer; the service stays the judge and its refusal is shown as it words it.

export const ACTIONS = {
  dispatch: { label: 'Dispatch', needs: 'agent' },
  reassign: { label: 'Reassign', needs: 'agent' },
  release: { label: 'Release', needs: null },
  pick_up: { label: 'Pick up', needs: null },
  block: { label: 'Block', needs: null },
  unblock: { label: 'Unblock', needs: null },
  complete: { label: 'Complete', needs: null },
  fail: { label: 'Fail', needs: 'notes' },
  cancel: { label: 'Cancel', needs: null },
} as const;

export type ActionName = keyof typeof ACTIONS;

const allowed: Record<WorkStatus, readonly ActionName[]> = {
  queued: ['dispatch', 'cancel'],
  dispatched: ['pick_up', 'release', 'reassign', 'cancel'],
  in_progress: ['complete', 'block', 'fail', 'reassign'],
  blocked: ['unblock', 'fail', 'reassign'],
  completed: [],
  failed: [],
  cancelled: [],
};

export function allowedActions(status: WorkStatus): readonly ActionName[] {
  return allowed[status];
}

export interface PatchBody {
  status?: WorkStatus;
  outcome?: 'success' | 'failed' | 'cancelled';
  agent?: string;
  notes?: string;
}

/** The PATCH body for an action; `input` is the agent or the notes the action asked for. */
export function patchFor(action: ActionName, input: string): PatchBody {
  switch (action) {
    case 'dispatch':
      return { status: 'dispatched', agent: input };
    case 'reassign':
      return { agent: input };
    case 'release':
      return { status: 'queued' };
    case 'pick_up':
      return { status: 'in_progress' };
    case 'block':
      return { status: 'blocked' };
    case 'unblock':
      return { status: 'in_progress' };
    case 'complete':
      return { status: 'completed', outcome: 'success' };
    case 'fail':
      return input.trim() === ''
        ? { status: 'failed', outcome: 'failed' }
        : { status: 'failed', outcome: 'failed', notes: input };
    case 'cancel':
      return { status: 'cancelled', outcome: 'cancelled' };
    default: {
      const never: never = action;
      throw new Error(`unknown action ${String(never)}`);
    }
  }
}

export const TERMINAL: readonly WorkStatus[] = ['completed', 'failed', 'cancelled'];
