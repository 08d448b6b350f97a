import type { Actor, WorkStore } from '../work/index.js';
import type { CreateWorkItem, WorkItem } from '../work/contract.js';
import type { ItemTemplate } from './schemas.js';
import type { ScheduleRow } from './store/tables.js';

// How a schedule's occurrence becomes a work item: the work service's own create path (its
// validation, the project's foreign key, the event and the history row), in the caller's
// transaction so that the occurrence's row commits with it or not at all.

/** The work service's `create` on a transaction's store (given by the composition root). */
export type ItemMaker = (tx: WorkStore, input: CreateWorkItem, actor: Actor, at: string) => Promise<WorkItem>;

export function templateOf(row: ScheduleRow): ItemTemplate {
  return JSON.parse(row.item) as ItemTemplate;
}

/** The item of the occurrence at `occurrenceAt`: the template, payload.schedule, the creator as created_by. */
export function itemFor(row: ScheduleRow, occurrenceAt: string): CreateWorkItem {
  const template = templateOf(row);
  return {
    ...template,
    payload: { ...(template.payload ?? {}), schedule: { id: row.id, name: row.name, occurrence_at: occurrenceAt } },
  };
}

export function creatorOf(row: ScheduleRow): Actor {
  return { name: row.created_by, role: row.created_by_role };
}
