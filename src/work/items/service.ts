import { randomId } from '../../shared/db/ids.js';
import {
  type Principal,
  assertMayChangeItem,
  assertMayLowerReview,
  assertMaySubmitBelowReview,
  isHolder,
  isPerson,
} from '../../auth/index.js';
import { isForeignKeyViolation } from '../../shared/db/database.js';
import { ValidationError } from '../../shared/errors.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import {
  FinalItemNotEditable,
  ItemStillLinked,
  LeaseNotHeld,
  NotCancelableByCreator,
  NotHolder,
  UnknownProjectReference,
  WaitingOnDependencies,
  WorkItemNotFound,
} from '../errors.js';
import { IDEMPOTENCY_WINDOW_MS, createIdempotentWrites } from './idempotent.js';
import {
  type CheckedLinks,
  asksForLinks,
  checkLinks,
  childCounts,
  linksHolding,
  namedWaiting,
  withPlan,
  writeEdges,
} from '../plans/dependencies.js';
import { type EndedStep, PLAN_HOLD, type PlanContext, planSettlement } from '../plans/settle.js';
import {
  type Plan,
  type RecentItems,
  type VersionPrecondition,
  WORK_EVENTS,
  changeItem,
  checkPrecondition,
} from './changes.js';
import { newDispatch, planExpiry, planUpdate, requestedStatus, secondsAfter } from './change-rules.js';
import { type Actor, SYSTEM_ACTOR, eventData, flagOf, namesColumn, toSummary, toWorkItem } from './view.js';
import { LEASED_STATUSES, type PatchMove, isFinal } from './lifecycle.js';
import type { HistoryAction, MOVE_ACTIONS } from './statuses.js';
import { LEASE_EXPIRY_OUTCOMES, NO_OBSERVER, type WorkObserver } from '../metrics/observer.js';
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
  RETRY_DELAY_LIMITS,
  type StatusCounts,
  type UpdateWorkItem,
  WORK_STATUSES,
  type WorkItem,
  type WorkItemDetail,
  type WorkItemSummary,
  type WorkStatus,
} from '../api-contract.js';
import type { WorkFilter, WorkStore } from '../store/port.js';
import type { NewItem } from '../store/port.js';
import type { WorkItemRow } from '../store/tables.js';

export { WORK_EVENTS };

export interface ServiceDeps {
  store: WorkStore;
  /** Items this process wrote last, for changes to start from (changes.ts). */
  recent?: RecentItems;
  now?: () => Date;
  /** Told of completions, failures and lease expiries (the metrics). */
  observer?: WorkObserver;
  /** Consulted when a PATCH completes an item: the review gate of src/conversation. */
  reviewGate?: ReviewGate;
  /**
   * The item counts by status and type that writers keep (src/work/stats): the counts with no
   * filter but a type read them, not every item. Absent: every count is a count of rows.
   */
  keptCounts?: () => Promise<{ status: string; type: string; count: number }[]>;
}

/**
 * The review gate (implemented by src/conversation, given by the composition root): when the
 * holder completes an item that needs a person's review, the item is sent for review instead.
 */
export interface ReviewGate {
  /** For `row` completed by its holder or not: yes, no, or the project whose setting decides. */
  requires(row: WorkItemRow, byHolder: boolean): boolean | { project_id: string };
  /** The completion as a review question: the item blocked, its edits kept; answers the item. */
  sendForReview(
    id: string,
    patch: UpdateWorkItem,
    principal: Principal | null,
    precondition?: VersionPrecondition,
  ): Promise<WorkItem>;
}

/** Control flow of `update` with a review gate: not errors anyone sees. */
class ReviewNeeded extends Error {}
class ProjectSettingNeeded extends Error {
  constructor(readonly projectId: string) {
    super(projectId);
  }
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

/** True only when the two unions are the same. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// The history vocabulary (statuses.ts) names every move a PATCH makes and no other (the claim's
// row says `claimed`): a move added to one and not the other stops the build here.
const MOVES_ARE_HISTORY_ACTIONS: Same<PatchMove, (typeof MOVE_ACTIONS)[number]> = true;
void MOVES_ARE_HISTORY_ACTIONS;

export type WorkService = ReturnType<typeof createWorkService>;

export function createWorkService({
  store,
  recent,
  now = () => new Date(),
  observer = NO_OBSERVER,
  reviewGate,
  keptCounts,
}: ServiceDeps) {
  const timestamp = () => now().toISOString();

  /** What a committed change means to the observer: a final status reached, a lease run out. */
  function observe(before: WorkItemRow, plan: Plan): void {
    const to = plan.set.status;
    if (plan.action === ('lease_expired' satisfies HistoryAction)) {
      observer.leaseExpired(
        before.type,
        to === 'failed' ? LEASE_EXPIRY_OUTCOMES.failed : LEASE_EXPIRY_OUTCOMES.requeued,
      );
    }
    if (to !== undefined && to !== before.status && isFinal(to)) observer.finished(before.type, to);
  }
  const once = createIdempotentWrites(store, timestamp);

  /**
   * `plan`, for a plan's items: `fresh`, the items this transaction created before (not held by
   * the link check); `container`, the plan's parent (never claimable: it waits on one more).
   */
  async function create(
    tx: WorkStore,
    input: CreateWorkItem,
    actor: Actor,
    at: string,
    plan: PlanContext = {},
  ): Promise<WorkItem> {
    await checkReviewFloor(tx, input, actor);
    const { item, write } = planItem(input, actor, at);
    if (plan.container) {
      write.row.container = 1;
      write.row.waiting_on = PLAN_HOLD;
    }
    if (!asksForLinks(input) && !plan.container) {
      await unknownProjectAsDomainError(() => tx.createWorkItem(write.row, write.dispatch, write.event, write.history));
      return item;
    }
    // A parent or dependencies: checked and written with the item, in one transaction.
    return tx.transaction(async (linked) => {
      const checked = await checkLinks(linked, write.row.id, null, input, {
        ...(plan.fresh && { fresh: plan.fresh }),
        hold: write.row.container ? PLAN_HOLD : 0,
      });
      Object.assign(write.row, checked.set);
      if (write.dispatch && write.row.waiting_on > 0) throw new WaitingOnDependencies(write.row.id, checked.blockers);
      write.event.data = eventData(write.row, actor);
      await unknownProjectAsDomainError(() => linked.createWorkItems([write]));
      await writeEdges(linked, write.row.id, checked);
      return toWorkItem(write.row, write.dispatch ? [write.dispatch] : []);
    });
  }

  /** `principal.name` becomes created_by: the caller's identity, never a header it wrote. */
  async function submit(input: CreateWorkItem, principal: Actor, idempotencyKey?: string): Promise<Submitted> {
    const createdBy = principal.name;
    const actor = { name: principal.name, role: principal.role };
    if (idempotencyKey === undefined) return { item: await create(store, input, actor, timestamp()), replayed: false };
    const { value, replayed } = await once(null, createdBy, idempotencyKey, input, (tx, at) =>
      create(tx, input, actor, at),
    );
    return { item: value, replayed };
  }

  async function get(id: string, tx: WorkStore = store): Promise<WorkItemDetail> {
    const found = await tx.findWithDispatches(id);
    if (!found) throw new WorkItemNotFound(id);
    return withPlan(tx, toWorkItem(found.row, found.dispatches));
  }

  async function list(query: ListWorkQuery, agent?: string): Promise<WorkPage> {
    const order = query.sort ?? 'newest';
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor === undefined ? null : decodeCursor(query.cursor, order);
    const filter: WorkFilter = { ...toFilter(query, timestamp()), ...(agent !== undefined && { agent }) };
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
    const filter = toFilter(query, timestamp());
    const byTypeAlone = Object.keys(filter).every((key) => key === 'type');
    const found: Partial<Record<string, number>> = {};
    if (keptCounts && byTypeAlone) {
      for (const row of await keptCounts()) {
        if (filter.type === undefined || row.type === filter.type)
          found[row.status] = (found[row.status] ?? 0) + row.count;
      }
    } else {
      Object.assign(found, await store.countByStatus(filter));
    }
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
    // Read once per project and request, only for items whose project's setting decides.
    const projectSettings = new Map<string, boolean>();
    const projectRequires = (projectId: string): boolean => {
      const decided = projectSettings.get(projectId);
      if (decided === undefined) throw new ProjectSettingNeeded(projectId);
      return decided;
    };
    const demandsReview = (flag: number | null, projectId: string | null): boolean =>
      flag !== null ? flag === 1 : projectId !== null && projectRequires(projectId);
    /**
     * The review's two rules for a change of `row`: only a person who does not hold it lowers
     * its review; the holder's completion of an item that needs review waits for a person
     * (ReviewNeeded). The holder is the caller however it names itself (auth/policy.ts).
     */
    const reviewRules = (row: WorkItemRow): void => {
      const byHolder = isHolder(principal, patch.agent, row.assigned_agent);
      if (
        (patch.review_required !== undefined || patch.project_id !== undefined) &&
        principal !== null &&
        (byHolder || !isPerson(principal))
      ) {
        const flag = patch.review_required === undefined ? row.review_required : flagOf(patch.review_required);
        const projectId = patch.project_id === undefined ? row.project_id : patch.project_id;
        const lowered =
          (flag !== row.review_required || projectId !== row.project_id) &&
          !demandsReview(flag, projectId) &&
          demandsReview(row.review_required, row.project_id);
        if (lowered) assertMayLowerReview(principal, byHolder);
      }
      if (requested !== 'completed' || !reviewGate) return;
      const requires = reviewGate.requires(row, byHolder);
      if (typeof requires === 'boolean' ? requires : projectRequires(requires.project_id)) throw new ReviewNeeded();
    };
    const actor = (row: WorkItemRow) => actorFor(principal, patch.agent, row.assigned_agent);
    for (;;) {
      try {
        if (asksForLinks(patch))
          return settled(await updateWithLinks(id, patch, requested, payload, principal, precondition, reviewRules));
        return settled(
          await changeItem(
            store,
            id,
            timestamp,
            precondition,
            actor,
            (current, at) => {
              // Checked against the row the change is computed from: the guarded write keeps them one.
              assertMayChangeItem(principal, current.row.assigned_agent);
              reviewRules(current.row);
              return planUpdate(current, patch, requested, payload, at);
            },
            { onApplied: observe, recent },
          ),
        );
      } catch (error) {
        if (error instanceof ProjectSettingNeeded) {
          projectSettings.set(error.projectId, (await store.findProject(error.projectId))?.review_required === 1);
          continue;
        }
        if (error instanceof ReviewNeeded && reviewGate)
          return reviewGate.sendForReview(id, patch, principal, precondition);
        if (isForeignKeyViolation(error)) throw new UnknownProjectReference();
        if (error instanceof WaitingOnDependencies) throw await namedWaiting(store, error);
        throw error;
      }
    }
  }

  /** A PATCH that changes the parent or the dependencies: checked and written in one transaction. */
  function updateWithLinks(
    id: string,
    patch: UpdateWorkItem,
    requested: WorkStatus | undefined,
    payload: string | null | undefined,
    principal: Principal | null,
    precondition: VersionPrecondition | undefined,
    reviewRules: (row: WorkItemRow) => void,
  ): Promise<WorkItem> {
    return store.transaction(async (tx) => {
      const actor = (row: WorkItemRow) => actorFor(principal, patch.agent, row.assigned_agent);
      // The graph first, then the links: read before the lock, two changes would each start from
      // the list the other replaces. The item's row is not locked here: a completion locks a
      // dependency, then its dependents, and the change below is guarded by the version it read.
      await tx.lockGraph();
      const row = await tx.findWorkItem(id);
      if (!row) throw new WorkItemNotFound(id);
      checkPrecondition(row, precondition);
      assertMayChangeItem(principal, row.assigned_agent);
      if (isFinal(row.status)) throw new FinalItemNotEditable(row.status);
      const edges = await tx.listEdges([row.id]);
      const current = { id: row.id, parent_id: row.parent_id, depends_on: edges.map((edge) => edge.depends_on_id) };
      const checked = await checkLinks(tx, row.id, current, patch, { hold: row.container ? PLAN_HOLD : 0 });
      const item = await changeItem(
        tx,
        row.id,
        timestamp,
        precondition,
        actor,
        (found, at) => {
          assertMayChangeItem(principal, found.row.assigned_agent);
          reviewRules(found.row);
          const linked = { ...found.row, ...checked.set };
          let plan: Plan | null;
          try {
            plan = planUpdate({ row: linked, dispatches: found.dispatches }, patch, requested, payload, at);
          } catch (error) {
            if (error instanceof WaitingOnDependencies) throw new WaitingOnDependencies(row.id, checked.blockers);
            throw error;
          }
          // Links asked for as they already are change nothing, as any other field would not.
          const moved = (Object.keys(checked.set) as (keyof CheckedLinks['set'])[]).some(
            (field) => checked.set[field] !== found.row[field],
          );
          if (!moved && !checked.details) return plan;
          return {
            ...(plan ?? { action: 'edited' }),
            set: { ...checked.set, ...plan?.set },
            ...(checked.details && { details: { ...plan?.details, ...checked.details } }),
          };
        },
        { onApplied: observe },
      );
      await writeEdges(tx, row.id, checked);
      return item;
    });
  }

  function heartbeat(id: string, request: HeartbeatRequest, principal: Principal | null = null): Promise<WorkItem> {
    return changeItem(
      store,
      id,
      timestamp,
      undefined,
      actorFor(principal, request.agent, request.agent),
      ({ row }, at) => {
        assertMayChangeItem(principal, row.assigned_agent);
        if (row.assigned_agent !== request.agent) throw new NotHolder(request.agent, row.assigned_agent, row.status);
        // A blocked item waits for a person: its lease is paused, and a heartbeat changes nothing.
        if (row.status === 'blocked') return null;
        if (!LEASED_STATUSES.includes(row.status)) throw new LeaseNotHeld(row.status);
        const length = request.lease_s ?? row.lease_s ?? LEASE_LIMITS.default;
        return {
          action: 'heartbeat' satisfies HistoryAction,
          set: { lease_s: length, lease_expires_at: secondsAfter(at, length) },
        };
      },
      { recent },
    );
  }

  /** The sweep's rule for an item whose lease ran out: back to the queue after a backoff, or failed. */
  async function expireLease(id: string): Promise<WorkItem> {
    return settled(
      await changeItem(store, id, timestamp, undefined, SYSTEM_ACTOR, ({ row }, at) => planExpiry(row, at), {
        onApplied: observe,
      }),
    );
  }

  /**
   * What the end of a step does to its plan's parent (settle.ts), after the step's commit:
   * under the graph's lock, so no step joins or leaves the plan between the count and the write.
   */
  async function settlePlan(parentId: string, step?: EndedStep): Promise<void> {
    await store.transaction(async (tx) => {
      await tx.lockGraph();
      const children = childCounts(await tx.countChildrenByStatus(parentId));
      await changeItem(
        tx,
        parentId,
        timestamp,
        undefined,
        SYSTEM_ACTOR,
        ({ row }, at) => planSettlement(row, children, step, at),
        { onApplied: observe },
      );
    });
  }

  /** The item a change answered, once a final step has settled its plan's parent. */
  async function settled(item: WorkItem): Promise<WorkItem> {
    // The step's change has committed: a failure here (the parent deleted, the database gone)
    // must not answer it as failed; the sweep settles the parent later.
    if (item.parent_id !== null && isFinal(item.status)) await settlePlan(item.parent_id, item).catch(() => undefined);
    return item;
  }

  async function remove(
    id: string,
    principal: Principal | null = null,
    precondition?: VersionPrecondition,
  ): Promise<void> {
    const actor = actorOf(principal);
    const event = () => ({ type: WORK_EVENTS.deleted, data: JSON.stringify({ id, actor }), at: timestamp() });
    // Items that depend on it, or children: a 409 that names them (the keys settle a race).
    const refuseIfLinked = async () => {
      const { dependents, children } = await linksHolding(store, id);
      if (dependents.length > 0 || children > 0) throw new ItemStillLinked(id, dependents, children);
    };
    await refuseIfLinked();
    try {
      await removeUnlinked(id, precondition, event);
    } catch (error) {
      if (isForeignKeyViolation(error)) await refuseIfLinked();
      throw error;
    }
  }

  async function removeUnlinked(
    id: string,
    precondition: VersionPrecondition | undefined,
    event: () => { type: string; data: string; at: string },
  ): Promise<void> {
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

  // `create` and `get` in a caller's transaction: a plan (service.ts) writes many items in one.
  /**
   * The requester's own cancel (A2A's CancelTask): the caller's item, while no agent has taken it
   * (queued or dispatched); a cancelled one answers as it is. Someone else's item is not found.
   */
  async function cancelOwn(id: string, principal: Principal): Promise<WorkItem> {
    return changeItem(
      store,
      id,
      timestamp,
      undefined,
      actorOf(principal),
      (current, at) => {
        const row = current.row;
        if (row.created_by !== principal.name && principal.role !== 'admin') throw new WorkItemNotFound(id);
        if (row.status === 'cancelled') return null;
        if (row.status !== 'queued' && row.status !== 'dispatched') throw new NotCancelableByCreator(row.status);
        return planUpdate(current, { status: 'cancelled', outcome: 'cancelled' }, 'cancelled', undefined, at);
      },
      { onApplied: observe, ...(recent && { recent }) },
    );
  }

  return {
    submit,
    create,
    cancelOwn,
    get,
    list,
    counts,
    update,
    heartbeat,
    expireLease,
    settlePlan,
    remove,
    history,
    purgeIdempotencyKeys,
  };
}

/** The actor of a change asked for by `principal`; none means the desk itself. */
/** Submitting below its project's review is a person's call (a plan's steps come through here too). */
export async function checkReviewFloor(tx: WorkStore, input: CreateWorkItem, actor: Actor): Promise<void> {
  if (input.review_required !== false || !input.project_id || actor.role === SYSTEM_ACTOR.role || isPerson(actor))
    return;
  if ((await tx.findProject(input.project_id))?.review_required === 1) assertMaySubmitBelowReview(actor);
}

export function actorOf(principal: Pick<Principal, 'name' | 'role'> | null): Actor {
  return principal ? { name: principal.name, role: principal.role } : SYSTEM_ACTOR;
}

/**
 * The actor of a change to an item `holder` holds. With AUTH=off every caller is an admin, so a
 * caller acting as the holder (naming it, or named it by X-User) is recorded as that agent.
 */
export function actorFor(principal: Principal | null, agent: string | undefined, holder: string | null): Actor {
  if (principal !== null && principal.token_id === null && isHolder(principal, agent, holder))
    return { name: holder!, role: 'agent' };
  return actorOf(principal);
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

/** The filters the list and the counts share (schemas.ts filterFields); `ready` is as of `now`. */
function toFilter(query: CountsQuery, now: string): WorkFilter {
  const filter: WorkFilter = {};
  if (query.agent !== undefined) filter.agent = query.agent;
  if (query.project_id !== undefined) filter.project_id = query.project_id;
  if (query.type !== undefined) filter.type = query.type;
  if (query.since !== undefined) filter.since = new Date(query.since).toISOString();
  if (query.parent_id !== undefined) filter.parent_id = query.parent_id;
  if (query.ready !== undefined) filter.ready = { now, ready: query.ready === 'true' };
  return filter;
}

/** A new item, checked and given its id, with everything its creation writes; not yet written. */
export interface PlannedItem {
  item: WorkItem;
  write: NewItem;
}

/**
 * The one definition of what submitting an item writes: its row, its first dispatch, its
 * history entry and its event. Planning apart from writing lets a caller that creates many
 * (mail intake, a batch of messages) know each id at once and write them all in one go.
 */
export function planItem(input: CreateWorkItem, actor: Actor, at: string): PlannedItem {
  const row = newRow(input, actor.name, at);
  const dispatch = input.agent ? newDispatch(row.id, input.agent, at) : null;
  const changes = {
    status: { from: null, to: row.status },
    ...(dispatch && { assigned_agent: { from: null, to: dispatch.agent } }),
  };
  const history = {
    at,
    actor: actor.name,
    role: actor.role,
    action: 'created' satisfies HistoryAction,
    changes: JSON.stringify(changes),
  };
  const event = { type: WORK_EVENTS.created, data: eventData(row, actor), at };
  return { item: toWorkItem(row, dispatch ? [dispatch] : []), write: { row, dispatch, event, history } };
}

/** Writes planned items together (in the caller's transaction, if `store` is one). */
export async function writePlannedItems(store: WorkStore, planned: readonly PlannedItem[]): Promise<void> {
  if (planned.length === 0) return;
  await unknownProjectAsDomainError(() => store.createWorkItems(planned.map(({ write }) => write)));
}

async function unknownProjectAsDomainError(write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (error) {
    // The foreign key is the existence check: one statement instead of a read and a write.
    if (isForeignKeyViolation(error)) throw new UnknownProjectReference();
    throw error;
  }
}

function newRow(input: CreateWorkItem, createdBy: string, at: string): WorkItemRow {
  return {
    // Version 4, not 7 (ids.ts): people tell items apart by the first eight hex
    // digits (the web UI's short ids), which a time-ordered id shares with every item of the minute.
    id: randomId(),
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
    comment_count: 0,
    review_required: flagOf(input.review_required ?? null),
    parent_id: input.parent_id ?? null,
    waiting_on: 0,
    link_version: 0,
    container: 0,
    watchers: namesColumn(input.watchers),
  };
}

export function serializePayload(payload: object | null): string | null {
  if (payload === null) return null;
  const text = JSON.stringify(payload);
  if (Buffer.byteLength(text, 'utf8') > MAX_PAYLOAD_BYTES) {
    throw ValidationError.of('payload', `must be at most ${MAX_PAYLOAD_BYTES} bytes when serialized`);
  }
  return text;
}
