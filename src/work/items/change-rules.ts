import { timeOrderedId } from '../../shared/db/ids.js';
import { ValidationError } from '../../shared/errors.js';
import { assertNotWaiting } from '../plans/dependency-rules.js';
import { FinalItemNotEditable, IllegalTransition, NotHolder } from '../errors.js';
import type { Plan } from './changes.js';
import { flagOf, namesColumn } from './view.js';
import {
  CLAIMS,
  CLAIM_AUDIT,
  CLOSE_REASON_OF_MOVE,
  LEASED_STATUSES,
  LEASE_EFFECTS,
  LEASE_EFFECT_OF_MOVE,
  MOVES,
  OUTCOME_OF_STATUS,
  type PatchMove,
  STATUS_OF_OUTCOME,
  claimStartsAttempt,
  isClaimable,
  isFinal,
  moveBetween,
  needsAgent,
  nextStatuses,
  retryDelaySeconds,
} from './lifecycle.js';
import type { Outcome, UpdateWorkItem, WorkStatus } from '../api-contract.js';
import type { ItemWithDispatches } from '../store/port.js';
import type { DispatchRow, WorkItemRow } from '../store/tables.js';

// The rule of each change as a plan the guarded write carries out (changes.ts): a PATCH, a claim,
// a lease running out. Pure functions of the row, the request and the time, so they read like the
// lifecycle table (lifecycle.ts) they apply; the store writes the plan and decides nothing.

export function newDispatch(workItemId: string, agent: string, at: string): DispatchRow {
  return {
    id: timeOrderedId(at),
    work_item_id: workItemId,
    agent,
    dispatched_at: at,
    completed_at: null,
    outcome: null,
    reason: null,
  };
}

export function secondsAfter(at: string, seconds: number): string {
  return new Date(Date.parse(at) + seconds * 1000).toISOString();
}

export function planUpdate(
  { row }: ItemWithDispatches,
  patch: UpdateWorkItem,
  requested: WorkStatus | undefined,
  payload: string | null | undefined,
  at: string,
): Plan | null {
  const plan: Plan = { action: 'edited', set: {} };
  const target = requested ?? (patch.agent !== undefined ? 'dispatched' : undefined);
  let move: PatchMove | undefined;
  if (target !== undefined) {
    if (patch.agent !== undefined && target !== 'dispatched' && patch.agent !== row.assigned_agent) {
      throw new NotHolder(patch.agent, row.assigned_agent, row.status);
    }
    // The same status again is how an agent retries after a lost response: nothing to do.
    if (
      target !== row.status ||
      (target === 'dispatched' && patch.agent !== undefined && patch.agent !== row.assigned_agent)
    ) {
      move = moveBetween(row.status, target);
      if (!move) throw new IllegalTransition(row.status, target, nextStatuses(row.status));
      if (needsAgent(move) && patch.agent === undefined) {
        throw ValidationError.of('agent', `is required to move a ${row.status} item to dispatched`);
      }
      // An item that waits on a dependency is not handed out, by a claim or by hand.
      if (move === MOVES.dispatch) assertNotWaiting(row);
      // Handing an item to the agent that already holds it changes nothing.
      if (move === MOVES.reassign && patch.agent === row.assigned_agent) move = undefined;
      else {
        applyMove(plan, row, move, patch.agent, at);
        plan.action = move;
      }
    }
  }
  applyEdits(plan, row, patch, payload);
  if (patch.notes !== undefined && patch.notes !== row.notes) plan.set.notes = patch.notes;

  const changed = Object.keys(plan.set).length > 0;
  const byHolder = patch.agent !== undefined && patch.agent === row.assigned_agent;
  const effect = move ? LEASE_EFFECT_OF_MOVE[move] : changed || byHolder ? LEASE_EFFECTS.renew : LEASE_EFFECTS.none;
  applyLeaseEffect(plan, row, effect, at);
  return Object.keys(plan.set).length > 0 ? plan : null;
}

function applyMove(plan: Plan, row: WorkItemRow, move: PatchMove, agent: string | undefined, at: string): void {
  const reason = CLOSE_REASON_OF_MOVE[move];
  switch (move) {
    case MOVES.dispatch:
    case MOVES.reassign:
      plan.openDispatch = newDispatch(row.id, agent as string, at);
      Object.assign(plan.set, { status: 'dispatched', assigned_agent: agent });
      break;
    case MOVES.release:
      Object.assign(plan.set, { status: 'queued', assigned_agent: null });
      break;
    case MOVES.pick_up:
    case MOVES.unblock:
      plan.set.status = 'in_progress';
      break;
    case MOVES.block:
      plan.set.status = 'blocked';
      break;
    case MOVES.complete:
    case MOVES.fail:
    case MOVES.cancel: {
      const status = move === MOVES.complete ? 'completed' : move === MOVES.fail ? 'failed' : 'cancelled';
      Object.assign(plan.set, { status, outcome: OUTCOME_OF_STATUS[status], completed_at: at });
      break;
    }
    default: {
      const unreachable: never = move;
      throw new Error(`unhandled move ${String(unreachable)}`);
    }
  }
  if (reason) {
    const outcome: Outcome = move === MOVES.complete ? 'success' : move === MOVES.fail ? 'failed' : 'cancelled';
    plan.closeDispatch = { at, outcome, reason };
  }
}

function applyEdits(plan: Plan, row: WorkItemRow, patch: UpdateWorkItem, payload: string | null | undefined): void {
  const edits: Partial<WorkItemRow> = {};
  if (patch.priority !== undefined && patch.priority !== row.priority) edits.priority = patch.priority;
  if (patch.description !== undefined && patch.description !== row.description) edits.description = patch.description;
  if (patch.type !== undefined && patch.type !== row.type) edits.type = patch.type;
  if (patch.project_id !== undefined && patch.project_id !== row.project_id) edits.project_id = patch.project_id;
  if (payload !== undefined && payload !== row.payload) edits.payload = payload;
  if (patch.review_required !== undefined && flagOf(patch.review_required) !== row.review_required) {
    edits.review_required = flagOf(patch.review_required);
  }
  if (patch.watchers !== undefined && namesColumn(patch.watchers) !== row.watchers) {
    edits.watchers = namesColumn(patch.watchers);
  }
  if (Object.keys(edits).length === 0) return;
  if (isFinal(row.status)) throw new FinalItemNotEditable(row.status);
  Object.assign(plan.set, edits);
}

export function applyLeaseEffect(
  plan: Plan,
  row: WorkItemRow,
  effect: (typeof LEASE_EFFECTS)[keyof typeof LEASE_EFFECTS],
  at: string,
  grantedS: number | null = null,
): void {
  switch (effect) {
    case LEASE_EFFECTS.grant:
      Object.assign(plan.set, {
        lease_s: grantedS,
        lease_expires_at: grantedS === null ? null : secondsAfter(at, grantedS),
      });
      return;
    case LEASE_EFFECTS.renew:
      if (row.lease_s !== null && LEASED_STATUSES.includes(plan.set.status ?? row.status)) {
        plan.set.lease_expires_at = secondsAfter(at, row.lease_s);
      }
      return;
    case LEASE_EFFECTS.pause:
      if (row.lease_expires_at !== null) plan.set.lease_expires_at = null;
      return;
    case LEASE_EFFECTS.end:
      if (row.lease_s !== null || row.lease_expires_at !== null)
        Object.assign(plan.set, { lease_s: null, lease_expires_at: null });
      return;
    case LEASE_EFFECTS.none:
      return;
    default: {
      const unreachable: never = effect;
      throw new Error(`unhandled lease effect ${String(unreachable)}`);
    }
  }
}

/** What a claimer asks for: the item as its agent's, started or not, on a lease of `lease_s`. */
export interface ClaimAsk {
  agent: string;
  start: boolean;
  lease_s: number;
}

/** The claim of `row` (one its read returned: queued, or dispatched to this agent), at `at`. */
export function planClaim(row: WorkItemRow, ask: ClaimAsk, at: string): Plan {
  if (!isClaimable(row.status)) throw new Error(`a claim read a ${row.status} item`);
  const plan: Plan = {
    action: 'claimed',
    set: {
      status: ask.start ? 'in_progress' : 'dispatched',
      assigned_agent: ask.agent,
      attempts: claimStartsAttempt(row) ? row.attempts + 1 : row.attempts,
    },
    audit: CLAIM_AUDIT,
  };
  if (CLAIMS[row.status].opensDispatch) plan.openDispatch = newDispatch(row.id, ask.agent, at);
  applyLeaseEffect(plan, row, LEASE_EFFECT_OF_MOVE[MOVES.claim], at, ask.lease_s);
  // Whatever delay held the item back has passed.
  plan.set.run_after = null;
  return plan;
}

export function planExpiry(row: WorkItemRow, at: string): Plan | null {
  // Renewed, ended or already expired by another instance since the sweep read it.
  if (row.lease_expires_at === null || row.lease_expires_at > at) return null;
  const closeDispatch = { at, outcome: 'failed', reason: 'lease_expired' } as const;
  const released = { assigned_agent: null, lease_s: null, lease_expires_at: null };
  if (row.attempts >= row.max_attempts) {
    const why = `Failed: the lease of attempt ${row.attempts} of ${row.max_attempts} ran out (held by ${row.assigned_agent ?? 'no agent'}).`;
    return {
      action: 'lease_expired',
      set: {
        ...released,
        assigned_agent: row.assigned_agent,
        status: 'failed',
        outcome: 'failed',
        completed_at: at,
        notes: row.notes ? `${row.notes}\n\n${why}` : why,
      },
      closeDispatch,
    };
  }
  const delay = retryDelaySeconds(row.retry_delay_s, row.attempts);
  return {
    action: 'lease_expired',
    set: { ...released, status: 'queued', run_after: secondsAfter(at, delay) },
    closeDispatch,
  };
}

/** Checks a PATCH body on its own, before any row is read: outcome and status must agree. */
export function requestedStatus(patch: UpdateWorkItem): WorkStatus | undefined {
  const target = patch.status ?? (patch.outcome !== undefined ? STATUS_OF_OUTCOME[patch.outcome] : undefined);
  if (target === undefined) return undefined;
  if (isFinal(target)) {
    const expected: Outcome = OUTCOME_OF_STATUS[target];
    if (patch.outcome === undefined) {
      throw ValidationError.of('outcome', `is required with status ${target} (it must be ${expected})`);
    }
    if (patch.outcome !== expected) {
      throw ValidationError.of('outcome', `must be ${expected} with status ${target}, not ${patch.outcome}`);
    }
  } else if (patch.outcome !== undefined) {
    throw ValidationError.of('outcome', `is only allowed with a final status (completed, failed, cancelled)`);
  }
  return target;
}
