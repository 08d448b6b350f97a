import { describe, expect, it } from 'vitest';
import { MOVES, TRANSITIONS } from '../../src/work/items/lifecycle.js';
import { STATUS_AFTER_MOVE, patchForMove } from '../../src/work/items/move-request.js';

// The one move → PATCH body mapping the web UI, the CLI and MCP share: every move of the table
// asks for the status the table says it leads to, and the bodies are those the three copies sent.

describe('patchForMove', () => {
  it('asks, for every move of the transition table, for the status that move leads to', () => {
    for (const [from, moves] of Object.entries(TRANSITIONS)) {
      for (const [to, move] of Object.entries(moves)) {
        expect(STATUS_AFTER_MOVE[move], `${from} → ${to}`).toBe(to);
        const body = patchForMove(move, { agent: 'ann' });
        if (move === MOVES.reassign) expect(body).toEqual({ agent: 'ann' });
        else expect(body.status, `${from} → ${to}`).toBe(to);
      }
    }
  });

  it('gives the bodies the UI, the CLI and MCP sent before they shared it', () => {
    expect(patchForMove(MOVES.pick_up)).toEqual({ status: 'in_progress' });
    expect(patchForMove(MOVES.block)).toEqual({ status: 'blocked' });
    expect(patchForMove(MOVES.complete)).toEqual({ status: 'completed', outcome: 'success' });
    expect(patchForMove(MOVES.fail)).toEqual({ status: 'failed', outcome: 'failed' });
    expect(patchForMove(MOVES.cancel)).toEqual({ status: 'cancelled', outcome: 'cancelled' });
    expect(patchForMove(MOVES.dispatch, { agent: 'bo' })).toEqual({ status: 'dispatched', agent: 'bo' });
    expect(patchForMove(MOVES.release)).toEqual({ status: 'queued' });
    // The UI's failure with a reason: notes only when they say something.
    expect(patchForMove(MOVES.fail, { notes: 'disk full' })).toEqual({
      status: 'failed',
      outcome: 'failed',
      notes: 'disk full',
    });
    expect(patchForMove(MOVES.fail, { notes: '  ' })).toEqual({ status: 'failed', outcome: 'failed' });
  });
});
