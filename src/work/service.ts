import { createHash, randomUUID } from 'node:crypto';
import type { Principal } from '../auth/authenticator.js';
import { assertMayChangeItem } from '../auth/policy.js';
import { isForeignKeyViolation } from '../shared/db.js';
import { ValidationError } from '../shared/errors.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import {
  FinalItemNotEditable,
  IdempotencyKeyInFlight,
  IdempotencyKeyReused,
  IllegalTransition,
  LeaseNotHeld,
  NotHolder,
  UnknownProjectReference,
  WorkItemNotFound,
} from './errors.js';
import { type Plan, type VersionPrecondition, WORK_EVENTS, changeItem, checkPrecondition } from './item-changes.js';
import { type Actor, SYSTEM_ACTOR, eventData, toSummary, toWorkItem } from './item-view.js';
import {
  CLOSE_REASON_OF_MOVE,
  LEASED_STATUSES,
  LEASE_EFFECTS,
  LEASE_EFFECT_OF_MOVE,
  MOVES,
  type Move,
  OUTCOME_OF_STATUS,
  STATUS_OF_OUTCOME,
  isFinal,
  moveBetween,
  needsAgent,
  nextStatuses,
  retryDelaySeconds,
} from './lifecycle.js';
import {
  ATTEMPT_LIMITS,
  type CountsQuery,
  type CreateWorkItem,
  DEFAULT_PAGE_SIZE,
  type HeartbeatRequest,
  type HistoryEntry,
  LEASE_LIMITS,
  type ListWorkQuery,
  MAX_PAYLOAD_BYTES,
  type Outcome,
  RETRY_DELAY_LIMITS,
  type StatusCounts,
  type UpdateWorkItem,
  WORK_STATUSES,
  type WorkItem,
  type WorkItemSummary,
  type WorkStatus,
} from './schemas.js';
import type { ItemWithDispatches, WorkFilter, WorkStore } from './store.js';
import type { DispatchRow, WorkItemRow } from './tables.js';

export { WORK_EVENTS };

export interface ServiceDeps {
  store: WorkStore;
  now?: () => Date;
}

export interface WorkPage {
  items: WorkItemSummary[];
  next_cursor: string | null;
}

export interface Submitted {
  item: WorkItem;
  /** True when an Idempotency-Key matched an earlier request and this is its answer again. */
  replayed: boolean;
}

/** How long an Idempotency-Key is remembered. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

export type WorkService = ReturnType<typeof createWorkService>;

export function createWorkService({ store, now = () => new Date() }: ServiceDeps) {
  const timestamp = () => now().toISOString();
  /** Keys of this process's requests still running, so a concurrent twin is refused at once. */
  const keysInFlight = new Set<string>();

  async function create(tx: WorkStore, input: CreateWorkItem, actor: Actor, at: string): Promise<WorkItem> {
    const row = newRow(input, actor.name, at);
    const dispatch = input.agent ? newDispatch(row.id, input.agent, at) : null;
    const changes = { status: { from: null, to: row.status }, ...(dispatch && { assigned_agent: { from: null, to: dispatch.agent } }) };
    const history = { at, actor: actor.name, role: actor.role, action: 'created', changes: JSON.stringify(changes) };
    try {
      await tx.createWorkItem(row, dispatch, { type: WORK_EVENTS.created, data: eventData(row, actor), at }, history);
    } catch (error) {
      // The foreign key is the existence check: one statement instead of a read and a write.
      if (isForeignKeyViolation(error)) throw new UnknownProjectReference();
      throw error;
    }
    return toWorkItem(row, dispatch ? [dispatch] : []);
  }

  /** `principal.name` becomes created_by: the caller's identity, never a header it wrote. */
  async function submit(input: CreateWorkItem, principal: Actor, idempotencyKey?: string): Promise<Submitted> {
    const createdBy = principal.name;
    const actor = { name: principal.name, role: principal.role };
    if (idempotencyKey === undefined) return { item: await create(store, input, actor, timestamp()), replayed: false };
    const flight = `${createdBy}\n${idempotencyKey}`;
    if (keysInFlight.has(flight)) throw new IdempotencyKeyInFlight();
    keysInFlight.add(flight);
    try {
      const requestHash = createHash('sha256').update(JSON.stringify(input)).digest('base64url');
      return await store.transaction(async (tx) => {
        // Another instance may be running the same key: its lock says so until it commits.
        if (!(await tx.tryLockIdempotencyKey(createdBy, idempotencyKey))) throw new IdempotencyKeyInFlight();
        const at = timestamp();
        const earlier = await tx.findIdempotencyKey(createdBy, idempotencyKey);
        const windowStart = new Date(Date.parse(at) - IDEMPOTENCY_WINDOW_MS).toISOString();
        if (earlier && earlier.created_at > windowStart) {
          if (earlier.request_hash !== requestHash) throw new IdempotencyKeyReused();
          return { item: JSON.parse(earlier.response_body) as WorkItem, replayed: true };
        }
        const item = await create(tx, input, actor, at);
        await tx.saveIdempotencyKey({
          scope: createdBy,
          idempotency_key: idempotencyKey,
          request_hash: requestHash,
          response_status: 201,
          response_body: JSON.stringify(item),
          created_at: at,
        });
        return { item, replayed: false };
      });
    } finally {
      keysInFlight.delete(flight);
    }
  }

  async function get(id: string): Promise<WorkItem> {
    const found = await store.findWithDispatches(id);
    if (!found) throw new WorkItemNotFound(id);
    return toWorkItem(found.row, found.dispatches);
  }

  async function list(query: ListWorkQuery, agent?: string): Promise<WorkPage> {
    const order = query.sort ?? 'newest';
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor === undefined ? null : decodeCursor(query.cursor, order);
    const filter: WorkFilter = { ...toFilter(query), ...(agent !== undefined && { agent }) };
    if (query.status !== undefined) filter.statuses = parseStatuses(query.status);
    if (query.created_by !== undefined) filter.created_by = query.created_by;
    if (query.updated_since !== undefined) filter.updated_since = new Date(query.updated_since).toISOString();
    const rows = await store.listWorkItems(filter, order, after, limit + 1);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      items: page.map(toSummary),
      next_cursor: rows.length > limit && last ? encodeCursor(order, last) : null,
    };
  }

  async function counts(query: CountsQuery): Promise<StatusCounts> {
    const found = await store.countByStatus(toFilter(query));
    return Object.fromEntries(WORK_STATUSES.map((status) => [status, found[status] ?? 0])) as StatusCounts;
  }

  /** `principal` null: no caller to hold to the agent rules (internal use). */
  async function update(
    id: string,
    patch: UpdateWorkItem,
    principal: Principal | null = null,
    precondition?: VersionPrecondition,
  ): Promise<WorkItem> {
    const requested = requestedStatus(patch);
    const payload = patch.payload === undefined ? undefined : serializePayload(patch.payload);
    try {
      return await changeItem(store, id, timestamp, precondition, actorOf(principal), (current, at) => {
        // Checked against the row the change is computed from: the guarded write keeps them one.
        assertMayChangeItem(principal, current.row.assigned_agent);
        return planUpdate(current, patch, requested, payload, at);
      });
    } catch (error) {
      if (isForeignKeyViolation(error)) throw new UnknownProjectReference();
      throw error;
    }
  }

  function heartbeat(id: string, request: HeartbeatRequest, principal: Principal | null = null): Promise<WorkItem> {
    return changeItem(store, id, timestamp, undefined, actorOf(principal), ({ row }, at) => {
      assertMayChangeItem(principal, row.assigned_agent);
      if (row.assigned_agent !== request.agent) throw new NotHolder(request.agent, row.assigned_agent, row.status);
      // A blocked item waits for a person: its lease is paused, and a heartbeat changes nothing.
      if (row.status === 'blocked') return null;
      if (!LEASED_STATUSES.includes(row.status)) throw new LeaseNotHeld(row.status);
      const length = request.lease_s ?? row.lease_s ?? LEASE_LIMITS.default;
      return { action: 'heartbeat', set: { lease_s: length, lease_expires_at: secondsAfter(at, length) } };
    });
  }

  /** The sweep's rule for an item whose lease ran out: back to the queue after a backoff, or failed. */
  function expireLease(id: string): Promise<WorkItem> {
    return changeItem(store, id, timestamp, undefined, SYSTEM_ACTOR, ({ row }, at) => planExpiry(row, at));
  }

  async function remove(id: string, principal: Principal | null = null, precondition?: VersionPrecondition): Promise<void> {
    const actor = actorOf(principal);
    const event = () => ({ type: WORK_EVENTS.deleted, data: JSON.stringify({ id, actor }), at: timestamp() });
    if (!precondition || precondition.any) {
      if (!(await store.deleteWorkItem(id, null, event()))) throw new WorkItemNotFound(id);
      return;
    }
    for (;;) {
      const row = await store.findWorkItem(id);
      if (!row) throw new WorkItemNotFound(id);
      checkPrecondition(row, precondition);
      if (await store.deleteWorkItem(id, row.version, event())) return;
    }
  }

  async function history(id: string): Promise<HistoryEntry[]> {
    const entries = await store.listHistory(id);
    if (entries.length === 0 && !(await store.findWorkItem(id))) throw new WorkItemNotFound(id);
    return entries.map((entry) => ({ ...entry, changes: JSON.parse(entry.changes) as HistoryEntry['changes'] }));
  }

  async function purgeIdempotencyKeys(): Promise<number> {
    return store.purgeIdempotencyKeysBefore(new Date(now().getTime() - IDEMPOTENCY_WINDOW_MS).toISOString());
  }

  return { submit, get, list, counts, update, heartbeat, expireLease, remove, history, purgeIdempotencyKeys };
}

/** The actor of a change asked for by `principal`; none means the desk itself. */
export function actorOf(principal: Pick<Principal, 'name' | 'role'> | null): Actor {
  return principal ? { name: principal.name, role: principal.role } : SYSTEM_ACTOR;
}

function planUpdate(
  { row }: ItemWithDispatches,
  patch: UpdateWorkItem,
  requested: WorkStatus | undefined,
  payload: string | null | undefined,
  at: string,
): Plan | null {
  const plan: Plan = { action: 'edited', set: {} };
  const target = requested ?? (patch.agent !== undefined ? 'dispatched' : undefined);
  let move: Move | undefined;
  if (target !== undefined) {
    if (patch.agent !== undefined && target !== 'dispatched' && patch.agent !== row.assigned_agent) {
      throw new NotHolder(patch.agent, row.assigned_agent, row.status);
    }
    // The same status again is how an agent retries after a lost response: nothing to do.
    if (target !== row.status || (target === 'dispatched' && patch.agent !== undefined && patch.agent !== row.assigned_agent)) {
      move = moveBetween(row.status, target);
      if (!move) throw new IllegalTransition(row.status, target, nextStatuses(row.status));
      if (needsAgent(move) && patch.agent === undefined) {
        throw ValidationError.of('agent', `is required to move a ${row.status} item to dispatched`);
      }
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

function applyMove(plan: Plan, row: WorkItemRow, move: Move, agent: string | undefined, at: string): void {
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
  if (Object.keys(edits).length === 0) return;
  if (isFinal(row.status)) throw new FinalItemNotEditable(row.status);
  Object.assign(plan.set, edits);
}

function applyLeaseEffect(plan: Plan, row: WorkItemRow, effect: (typeof LEASE_EFFECTS)[keyof typeof LEASE_EFFECTS], at: string): void {
  switch (effect) {
    case LEASE_EFFECTS.renew:
      if (row.lease_s !== null && LEASED_STATUSES.includes(plan.set.status ?? row.status)) {
        plan.set.lease_expires_at = secondsAfter(at, row.lease_s);
      }
      return;
    case LEASE_EFFECTS.pause:
      if (row.lease_expires_at !== null) plan.set.lease_expires_at = null;
      return;
    case LEASE_EFFECTS.end:
      if (row.lease_s !== null || row.lease_expires_at !== null) Object.assign(plan.set, { lease_s: null, lease_expires_at: null });
      return;
    case LEASE_EFFECTS.none:
      return;
    default: {
      const unreachable: never = effect;
      throw new Error(`unhandled lease effect ${String(unreachable)}`);
    }
  }
}

function planExpiry(row: WorkItemRow, at: string): Plan | null {
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
  return { action: 'lease_expired', set: { ...released, status: 'queued', run_after: secondsAfter(at, delay) }, closeDispatch };
}

/** Checks a PATCH body on its own, before any row is read: outcome and status must agree. */
function requestedStatus(patch: UpdateWorkItem): WorkStatus | undefined {
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

function parseStatuses(text: string): WorkStatus[] {
  const statuses = [...new Set(text.split(',').map((part) => part.trim()))];
  const unknown = statuses.filter((status) => !(WORK_STATUSES as readonly string[]).includes(status));
  if (unknown.length > 0) {
    throw ValidationError.of(
      'status',
      `has ${unknown.map((s) => JSON.stringify(s)).join(', ')}, not a status; allowed (comma-separated): ${WORK_STATUSES.join(', ')}`,
    );
  }
  return statuses as WorkStatus[];
}

function toFilter(query: CountsQuery): WorkFilter {
  const filter: WorkFilter = {};
  if (query.agent !== undefined) filter.agent = query.agent;
  if (query.project_id !== undefined) filter.project_id = query.project_id;
  if (query.type !== undefined) filter.type = query.type;
  if (query.since !== undefined) filter.since = new Date(query.since).toISOString();
  return filter;
}

function newRow(input: CreateWorkItem, createdBy: string, at: string): WorkItemRow {
  return {
    id: randomUUID(),
    type: input.type,
    description: input.description,
    priority: input.priority ?? 3,
    status: input.agent ? 'dispatched' : 'queued',
    assigned_agent: input.agent ?? null,
    created_by: createdBy,
    created_at: at,
    updated_at: at,
    completed_at: null,
    outcome: null,
    notes: null,
    payload: serializePayload(input.payload ?? null),
    project_id: input.project_id ?? null,
    version: 1,
    attempts: 0,
    max_attempts: input.max_attempts ?? ATTEMPT_LIMITS.default,
    retry_delay_s: input.retry_delay_s ?? RETRY_DELAY_LIMITS.default,
    run_after: input.run_after === undefined ? null : new Date(input.run_after).toISOString(),
    lease_expires_at: null,
    lease_s: null,
  };
}

function serializePayload(payload: object | null): string | null {
  if (payload === null) return null;
  const text = JSON.stringify(payload);
  if (Buffer.byteLength(text, 'utf8') > MAX_PAYLOAD_BYTES) {
    throw ValidationError.of('payload', `must be at most ${MAX_PAYLOAD_BYTES} bytes when serialized`);
  }
  return text;
}

function newDispatch(workItemId: string, agent: string, at: string): DispatchRow {
  return { id: randomUUID(), work_item_id: workItemId, agent, dispatched_at: at, completed_at: null, outcome: null, reason: null };
}

export function secondsAfter(at: string, seconds: number): string {
  return new Date(Date.parse(at) + seconds * 1000).toISOString();
}
