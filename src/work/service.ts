import { randomUUID } from 'node:crypto';
import type { Principal } from '../auth/authenticator.js';
import { assertMayChangeItem } from '../auth/policy.js';
import { isForeignKeyViolation } from '../shared/db.js';
import { ValidationError } from '../shared/errors.js';
import { IllegalTransition, UnknownProjectReference, WorkItemNotFound } from './errors.js';
import {
  MOVES,
  type Move,
  OUTCOME_OF_STATUS,
  STATUS_OF_OUTCOME,
  isFinal,
  moveBetween,
  needsAgent,
  nextStatuses,
} from './lifecycle.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import {
  type CountsQuery,
  type CreateWorkItem,
  DEFAULT_PAGE_SIZE,
  type DispatchEntry,
  type ListWorkQuery,
  MAX_PAYLOAD_BYTES,
  type Outcome,
  type StatusCounts,
  type UpdateWorkItem,
  WORK_STATUSES,
  type WorkItem,
  type WorkItemSummary,
  type WorkStatus,
} from './schemas.js';
import type { WorkFilter, WorkStore } from './store.js';
import type { DispatchRow, WorkItemRow } from './tables.js';

export const WORK_EVENTS = {
  created: 'work.created',
  updated: 'work.updated',
  deleted: 'work.deleted',
} as const;

export interface ServiceDeps {
  store: WorkStore;
  now?: () => Date;
}

export interface WorkPage {
  items: WorkItemSummary[];
  next_cursor: string | null;
}

export type WorkService = ReturnType<typeof createWorkService>;

export function createWorkService({ store, now = () => new Date() }: ServiceDeps) {
  const timestamp = () => now().toISOString();

  async function loadItem(tx: WorkStore, row: WorkItemRow): Promise<WorkItem> {
    return toWorkItem(row, await tx.listDispatches(row.id));
  }

  /** `principal.name` becomes created_by: the caller's identity, never a header it wrote. */
  async function submit(input: CreateWorkItem, principal: Pick<Principal, 'name'>): Promise<WorkItem> {
    const payload = serializePayload(input.payload ?? null);
    const at = timestamp();
    const row: WorkItemRow = {
      id: randomUUID(),
      type: input.type,
      description: input.description,
      priority: input.priority ?? 3,
      status: input.agent ? 'dispatched' : 'queued',
      assigned_agent: input.agent ?? null,
      created_by: principal.name,
      created_at: at,
      updated_at: at,
      completed_at: null,
      outcome: null,
      notes: null,
      payload,
      project_id: input.project_id ?? null,
    };
    const dispatch = input.agent ? newDispatch(row.id, input.agent, at) : null;
    const summary = toSummary(row);
    try {
      await store.createWorkItem(row, dispatch, { type: WORK_EVENTS.created, data: JSON.stringify(summary), at });
    } catch (error) {
      // The foreign key is the existence check: one statement instead of a read and a write.
      if (isForeignKeyViolation(error)) throw new UnknownProjectReference();
      throw error;
    }
    return { ...summary, dispatch_log: dispatch ? [{ ...dispatch }] : [] };
  }

  async function get(id: string): Promise<WorkItem> {
    const row = await store.findWorkItem(id);
    if (!row) throw new WorkItemNotFound(id);
    return loadItem(store, row);
  }

  async function list(query: ListWorkQuery, agent?: string): Promise<WorkPage> {
    const order = query.sort ?? 'newest';
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor === undefined ? null : decodeCursor(query.cursor, order);
    const filter: WorkFilter = { ...toFilter(query), ...(agent !== undefined && { agent }) };
    if (query.status !== undefined) filter.status = query.status;
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
  async function update(id: string, patch: UpdateWorkItem, principal: Principal | null = null): Promise<WorkItem> {
    const requested = requestedStatus(patch);
    return store.transaction(async (tx) => {
      const row = await tx.lockWorkItem(id);
      if (!row) throw new WorkItemNotFound(id);
      assertMayChangeItem(principal, row.assigned_agent);
      const at = timestamp();
      const changes: Partial<WorkItemRow> = {};
      const target = requested ?? (patch.agent !== undefined ? 'dispatched' : undefined);
      if (target !== undefined) {
        await applyMove(tx, row, target, patch, at, changes);
      }
      if (patch.notes !== undefined && patch.notes !== row.notes) changes.notes = patch.notes;
      if (Object.keys(changes).length === 0) return loadItem(tx, row);

      changes.updated_at = at;
      await tx.updateWorkItem(id, changes);
      const updated = { ...row, ...changes };
      await tx.appendEvent(WORK_EVENTS.updated, JSON.stringify(toSummary(updated)), at);
      return loadItem(tx, updated);
    });
  }

  async function applyMove(
    tx: WorkStore,
    row: WorkItemRow,
    target: WorkStatus,
    patch: UpdateWorkItem,
    at: string,
    changes: Partial<WorkItemRow>,
  ): Promise<void> {
    if (patch.agent !== undefined && target !== 'dispatched' && patch.agent !== row.assigned_agent) {
      throw ValidationError.of('agent', 'to hand the item to another agent, send agent alone or with status dispatched');
    }
    // The same status again is how an agent retries after a lost response: nothing to do.
    if (target === row.status && !(target === 'dispatched' && patch.agent !== undefined)) return;

    const move = moveBetween(row.status, target);
    if (!move) throw new IllegalTransition(row.status, target, nextStatuses(row.status));
    if (needsAgent(move) && patch.agent === undefined) {
      throw ValidationError.of('agent', `is required to move a ${row.status} item to dispatched`);
    }
    await performMove(tx, row, move, patch.agent, at, changes);
  }

  async function performMove(
    tx: WorkStore,
    row: WorkItemRow,
    move: Move,
    agent: string | undefined,
    at: string,
    changes: Partial<WorkItemRow>,
  ): Promise<void> {
    switch (move) {
      case MOVES.dispatch:
        await tx.insertDispatch(newDispatch(row.id, agent as string, at));
        Object.assign(changes, { status: 'dispatched', assigned_agent: agent });
        return;
      case MOVES.reassign:
        if (agent === row.assigned_agent) return;
        await tx.closeOpenDispatch(row.id, 'cancelled', at);
        await tx.insertDispatch(newDispatch(row.id, agent as string, at));
        Object.assign(changes, { status: 'dispatched', assigned_agent: agent });
        return;
      case MOVES.release:
        await tx.closeOpenDispatch(row.id, 'cancelled', at);
        Object.assign(changes, { status: 'queued', assigned_agent: null });
        return;
      case MOVES.pick_up:
      case MOVES.unblock:
        changes.status = 'in_progress';
        return;
      case MOVES.block:
        changes.status = 'blocked';
        return;
      case MOVES.complete:
      case MOVES.fail:
      case MOVES.cancel: {
        const status = move === MOVES.complete ? 'completed' : move === MOVES.fail ? 'failed' : 'cancelled';
        const outcome = OUTCOME_OF_STATUS[status];
        await tx.closeOpenDispatch(row.id, outcome, at);
        Object.assign(changes, { status, outcome, completed_at: at });
        return;
      }
      default: {
        const unreachable: never = move;
        throw new Error(`unhandled move ${String(unreachable)}`);
      }
    }
  }

  async function remove(id: string): Promise<void> {
    await store.transaction(async (tx) => {
      if (!(await tx.deleteWorkItem(id))) throw new WorkItemNotFound(id);
      await tx.appendEvent(WORK_EVENTS.deleted, JSON.stringify({ id }), timestamp());
    });
  }

  return { submit, get, list, counts, update, remove };
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

function toFilter(query: CountsQuery): WorkFilter {
  const filter: WorkFilter = {};
  if (query.agent !== undefined) filter.agent = query.agent;
  if (query.project_id !== undefined) filter.project_id = query.project_id;
  if (query.type !== undefined) filter.type = query.type;
  if (query.since !== undefined) filter.since = new Date(query.since).toISOString();
  return filter;
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
  return { id: randomUUID(), work_item_id: workItemId, agent, dispatched_at: at, completed_at: null, outcome: null };
}

export function toSummary(row: WorkItemRow): WorkItemSummary {
  return {
    id: row.id,
    type: row.type,
    description: row.description,
    priority: row.priority,
    status: row.status,
    assigned_agent: row.assigned_agent,
    created_by: row.created_by,
    created_at: row.created_at,
    updated_at: row.updated_at,
    completed_at: row.completed_at,
    outcome: row.outcome,
    notes: row.notes,
    payload: row.payload === null ? null : (JSON.parse(row.payload) as Record<string, unknown>),
    project_id: row.project_id,
  };
}

function toWorkItem(row: WorkItemRow, dispatches: DispatchRow[]): WorkItem {
  return { ...toSummary(row), dispatch_log: dispatches.map((entry): DispatchEntry => ({ ...entry })) };
}
