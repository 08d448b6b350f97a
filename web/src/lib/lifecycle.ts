import type { WorkStatus } from '../../../src/work/schemas.ts';
import { type Move, MOVES, needsAgent, OUTCOME_OF_STATUS, TRANSITIONS } from '../../../src/work/lifecycle.ts';

// The buttons come from the service's own transition table (a few hundred bytes of plain data in
// the bundle), so the page never offers a move the service would not allow from that state.

export const ACTION_LABELS = {
  [MOVES.dispatch]: 'Dispatch',
  [MOVES.reassign]: 'Reassign',
  [MOVES.release]: 'Release',
  [MOVES.pick_up]: 'Pick up',
  [MOVES.block]: 'Block',
  [MOVES.unblock]: 'Unblock',
  [MOVES.complete]: 'Complete',
  [MOVES.fail]: 'Fail',
  [MOVES.cancel]: 'Cancel item',
} as const satisfies Record<Move, string>;

export interface Action {
  move: Move;
  to: WorkStatus;
}

export function allowedActions(status: WorkStatus): Action[] {
  return (Object.entries(TRANSITIONS[status]) as [WorkStatus, Move][]).map(([to, move]) => ({ move, to }));
}

export { needsAgent };

export interface PatchBody {
  status?: WorkStatus;
  outcome?: 'success' | 'failed' | 'cancelled';
  agent?: string;
  notes?: string;
}

/** The PATCH body for an action; `input` is the agent, or the notes a failure comes with. */
export function patchFor(action: Action, input = ''): PatchBody {
  // `agent` alone reassigns; a status equal to the current one would be an idempotent no-op.
  if (action.move === MOVES.reassign) return { agent: input };
  const body: PatchBody = { status: action.to };
  if (action.to in OUTCOME_OF_STATUS) body.outcome = OUTCOME_OF_STATUS[action.to as keyof typeof OUTCOME_OF_STATUS];
  if (needsAgent(action.move)) body.agent = input;
  if (action.move === MOVES.fail && input.trim() !== '') body.notes = input;
  return body;
}
