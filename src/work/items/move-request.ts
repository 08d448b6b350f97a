import { type Move, MOVES, OUTCOME_OF_STATUS, TRANSITIONS, isFinal } from './lifecycle.js';
import type { Outcome, WorkStatus } from './statuses.js';

// The one mapping from a lifecycle move to the PATCH /work/{id} body that asks for it, shared by
// everything that moves items for a person or an agent: the web UI's buttons, the CLI's verbs
// and the MCP tools. Read from the lifecycle table; no Node imports, as the UI bundles it.

/** The status each move leads to, read from the transition table (each move has one). */
export const STATUS_AFTER_MOVE: Readonly<Partial<Record<Move, WorkStatus>>> = Object.fromEntries(
  Object.values(TRANSITIONS).flatMap((moves) => Object.entries(moves).map(([to, move]) => [move, to])),
);

/** The fields of a PATCH body a move sets (the UpdateWorkItem schema's, typed for the UI too). */
export interface MoveBody {
  status?: WorkStatus;
  outcome?: Outcome;
  agent?: string;
  notes?: string;
}

/**
 * The PATCH body for `move`: its status, the outcome a final status carries, the agent when one
 * is given (a dispatch needs one), and notes when they say something. A reassign is `agent`
 * alone: the status it leads to is the one the item has, and saying so would be a no-op.
 */
export function patchForMove(move: Move, { agent, notes }: { agent?: string; notes?: string } = {}): MoveBody {
  if (move === MOVES.reassign) return { agent: agent ?? '' };
  const status = STATUS_AFTER_MOVE[move];
  if (status === undefined) throw new Error(`the move ${move} leads to no status`);
  const body: MoveBody = { status };
  if (isFinal(status)) body.outcome = OUTCOME_OF_STATUS[status];
  if (agent !== undefined) body.agent = agent;
  if (notes !== undefined && notes.trim() !== '') body.notes = notes;
  return body;
}
