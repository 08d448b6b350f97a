import type { WorkStatus } from '../../../src/work/api-contract.ts';
import { MOVES, needsAgent, type PatchMove, TRANSITIONS } from '../../../src/work/items/lifecycle.ts';
import { type MoveBody, patchForMove } from '../../../src/work/items/move-request.ts';

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
} as const satisfies Record<PatchMove, string>;

export interface Action {
  move: PatchMove;
  to: WorkStatus;
}

export function allowedActions(status: WorkStatus): Action[] {
  return (Object.entries(TRANSITIONS[status]) as [WorkStatus, PatchMove][]).map(([to, move]) => ({ move, to }));
}

export { needsAgent };

export type PatchBody = MoveBody;

/** The PATCH body for an action; `input` is the agent, or the notes a failure comes with. */
export function patchFor(action: Action, input = ''): PatchBody {
  return patchForMove(action.move, {
    agent: needsAgent(action.move) ? input : undefined,
    notes: action.move === MOVES.fail ? input : undefined,
  });
}
