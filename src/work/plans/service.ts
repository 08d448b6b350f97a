import { ValidationError } from '../../shared/errors.js';
import { UnknownProjectReference, WorkItemNotFound } from '../errors.js';
import { type Actor, eventData, toSummary } from '../items/view.js';
import { createIdempotentWrites } from '../items/idempotent.js';
import { type CreatePlan, MAX_PLAN_DEPENDENCIES, type PlanStep, type SubmittedPlan } from './schemas.js';
import type { CreateWorkItem, WorkItem, WorkItemDetail, WorkItemSummary } from '../api-contract.js';
import type { PlanContext } from './settle.js';
import { type PlannedItem, checkReviewFloor, planItem, writePlannedItems } from '../items/service.js';
import type { DependencyRow } from '../store/tables.js';
import type { WorkStore } from '../store/port.js';

// A plan: a parent and its steps, created in one transaction, all or nothing. This module checks
// the steps' local keys, orders the steps, and hands each to the submit's own write, which holds
// every rule of a submit (the parent, the limits, the dependencies' existence).

/** Dependents answered at most: an item may have thousands, and a page shows these. */
export const MAX_DEPENDENTS = 1_000;

export interface PlanServiceDeps {
  store: WorkStore;
  /**
   * Creates one item in the open transaction `tx` with every check a submit makes, `parent_id`
   * and `depends_on` included (the work service's submit, inside a caller's transaction).
   */
  createItem(tx: WorkStore, input: CreateWorkItem, actor: Actor, at: string, plan?: PlanContext): Promise<WorkItem>;
  /** The item as GET /work/{id} shows it, read in `tx` (its children counted). */
  readItem(tx: WorkStore, id: string): Promise<WorkItemDetail>;
  now?: () => Date;
}

export type PlanService = ReturnType<typeof createPlanService>;

export function createPlanService({ store, createItem, readItem, now = () => new Date() }: PlanServiceDeps) {
  const once = createIdempotentWrites(store, () => now().toISOString());

  async function write(
    tx: WorkStore,
    plan: CreatePlan,
    order: readonly number[],
    actor: Actor,
    at: string,
  ): Promise<SubmittedPlan> {
    const parent = await createItem(tx, plan.parent, actor, at, { container: true }).catch((error: unknown) => {
      throw under(error, 'parent');
    });
    const ids: Record<string, string> = {};
    const fresh = new Set<string>();
    // Steps that depend only on other steps are written together (a few statements for the
    // whole plan, not a few per step): SQLite's one writer is held for the plan's length.
    const batch = createStepBatch(tx);
    for (const [position, index] of order.entries()) {
      const { key, depends_on_keys = [], ...fields } = plan.steps[index] as PlanStep;
      const own = depends_on_keys.map((name) => ids[name] as string);
      const dependsOn = [...(fields.depends_on ?? []), ...own];
      const input: CreateWorkItem = {
        ...fields,
        project_id: fields.project_id === undefined ? parent.project_id : fields.project_id,
        parent_id: parent.id,
        ...(dependsOn.length > 0 && { depends_on: dependsOn }),
      };
      // Made in one instant, the steps would list in the random order of their ids: a
      // millisecond apart, in the order the plan gives them, every listing shows the plan's.
      const stepAt = millisecondsAfter(at, index + 1);
      try {
        if (position > 0 && dependsOn.length === own.length) {
          // The first step had the parent's limits checked; these depend on new, unfinished steps only.
          if (input.project_id) await batch.checkProject(input.project_id);
          await checkReviewFloor(tx, input, actor);
          ids[key] = batch.add(input, own, actor, stepAt);
        } else {
          // Existing items named: the submit's own checks, which hold them (after the steps they may name).
          await batch.flush();
          ids[key] = (await createItem(tx, input, actor, stepAt, { fresh })).id;
        }
        fresh.add(ids[key]);
      } catch (error) {
        throw under(error, `steps.${index}`);
      }
    }
    await batch.flush();
    return { parent: await readItem(tx, parent.id), steps: ids };
  }

  /** `principal.name` becomes created_by of every item, as with a submit. */
  async function submitPlan(
    plan: CreatePlan,
    principal: Actor,
    idempotencyKey?: string,
  ): Promise<{ plan: SubmittedPlan; replayed: boolean }> {
    const dependencies = plan.steps.reduce(
      (sum, step) => sum + (step.depends_on?.length ?? 0) + (step.depends_on_keys?.length ?? 0),
      0,
    );
    if (dependencies > MAX_PLAN_DEPENDENCIES) {
      throw ValidationError.of(
        'steps',
        `list ${dependencies} dependencies in all; a plan has at most ${MAX_PLAN_DEPENDENCIES} (split it in several plans)`,
      );
    }
    const order = stepOrder(plan.steps);
    const actor = { name: principal.name, role: principal.role };
    if (idempotencyKey === undefined) {
      const created = await store.transaction((tx) => write(tx, plan, order, actor, now().toISOString()));
      return { plan: created, replayed: false };
    }
    const { value, replayed } = await once('POST /work/plans', actor.name, idempotencyKey, plan, (tx, at) =>
      write(tx, plan, order, actor, at),
    );
    return { plan: value, replayed };
  }

  /** The items that depend on `id` (the read side GET /work/{id} leaves out), oldest first, at most MAX_DEPENDENTS. */
  async function dependents(id: string): Promise<WorkItemSummary[]> {
    const ids = await store.listDependents(id, MAX_DEPENDENTS);
    if (ids.length === 0 && !(await store.findWorkItem(id))) throw new WorkItemNotFound(id);
    const found = await store.findManyWithDispatches(ids);
    return found.flatMap((item) => (item ? [toSummary(item.row)] : []));
  }

  return { submitPlan, dependents };
}

/** Steps planned and written together: rows (with history and event) and edges, in slices. */
function createStepBatch(tx: WorkStore) {
  let items: PlannedItem[] = [];
  let edges: DependencyRow[] = [];
  const projects = new Set<string>();
  return {
    async checkProject(id: string): Promise<void> {
      if (projects.has(id)) return;
      if (!(await tx.findProject(id))) throw new UnknownProjectReference();
      projects.add(id);
    },
    /** Plans a step whose dependencies are `own` (steps of this plan, all queued); answers its id. */
    add(input: CreateWorkItem, own: readonly string[], actor: Actor, at: string): string {
      const { depends_on: _dependsOn, ...fields } = input;
      const planned = planItem(fields, actor, at);
      planned.write.row.waiting_on = own.length;
      planned.write.event.data = eventData(planned.write.row, actor);
      items.push(planned);
      for (const dep of own) edges.push({ item_id: planned.write.row.id, depends_on_id: dep });
      return planned.write.row.id;
    },
    async flush(): Promise<void> {
      await writePlannedItems(tx, items);
      for (let start = 0; start < edges.length; start += EDGE_SLICE)
        await tx.insertEdges(edges.slice(start, start + EDGE_SLICE));
      items = [];
      edges = [];
    },
  };
}

/** Edges per statement: two parameters each. */
const EDGE_SLICE = 400;

function millisecondsAfter(at: string, ms: number): string {
  return new Date(Date.parse(at) + ms).toISOString();
}

/** A refusal names the item of the plan: `steps.3.depends_on` rather than `depends_on`. */
function under(error: unknown, prefix: string): unknown {
  if (!(error instanceof ValidationError)) return error;
  return new ValidationError(error.errors.map((e) => ({ ...e, field: `${prefix}.${e.field}` })));
}

/**
 * The steps' indexes in an order where every step comes after those it depends on (the given
 * order where it allows). Refuses, naming the step and the key: a repeated key, a reference to
 * no step of the plan, and a cycle (`a → b → a`; a step naming itself is a cycle of one).
 * Only the plan's own keys can close a cycle: an item that exists cannot depend on one not yet made.
 */
export function stepOrder(steps: readonly Pick<PlanStep, 'key' | 'depends_on_keys'>[]): number[] {
  const indexOf = new Map<string, number>();
  steps.forEach((step, index) => {
    const first = indexOf.get(step.key);
    if (first !== undefined)
      throw ValidationError.of(
        `steps.${index}.key`,
        `"${step.key}" is already the key of steps.${first}; keys are unique in a plan`,
      );
    indexOf.set(step.key, index);
  });
  steps.forEach((step, index) => {
    for (const name of step.depends_on_keys ?? []) {
      if (!indexOf.has(name))
        throw ValidationError.of(`steps.${index}.depends_on_keys`, `"${name}" is not the key of a step of this plan`);
    }
  });
  const done = new Set<number>();
  const path: number[] = [];
  const order: number[] = [];
  const visit = (index: number): void => {
    if (done.has(index)) return;
    const at = path.indexOf(index);
    if (at !== -1) {
      const cycle = [...path.slice(at), index].map((i) => steps[i]!.key);
      throw ValidationError.of(
        `steps.${index}.depends_on_keys`,
        `the steps depend on each other in a cycle: ${cycle.join(' → ')}`,
      );
    }
    path.push(index);
    for (const name of steps[index]!.depends_on_keys ?? []) visit(indexOf.get(name)!);
    path.pop();
    done.add(index);
    order.push(index);
  };
  // Deep plans recurse as deep as their longest chain: at most MAX_PLAN_STEPS frames.
  steps.forEach((_step, index) => visit(index));
  return order;
}
