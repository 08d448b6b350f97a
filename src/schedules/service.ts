import type { Principal } from '../auth/index.js';
import { randomId } from '../shared/db/ids.js';
import { isForeignKeyViolation, isUniqueViolation } from '../shared/db/database.js';
import type { DatabaseHandle } from '../shared/db/schema.js';
import { ValidationError } from '../shared/errors.js';
import { MAX_PAYLOAD_BYTES } from '../work/contract.js';
import { actorOf, type WorkStore } from '../work/index.js';
import { OccurrenceTaken, ScheduleNameTaken, ScheduleNotFound } from './errors.js';
import { creatorOf, itemFor, type ItemMaker } from './items.js';
import { localIso, rhythmOf, upcoming } from './rhythm.js';
import {
  type CreateSchedule,
  type ListSchedulesQuery,
  MAX_CATCHUP,
  type Occurrence,
  type Preview,
  type PreviewQuery,
  RECENT_OCCURRENCES,
  type RunNow,
  type Schedule,
  type ScheduleDetail,
  type UpdateSchedule,
} from './schemas.js';
import type { ScheduleStatementsOn } from './store/index.js';
import type { ScheduleChanges } from './store/port.js';
import type { OccurrenceRow, ScheduleRow } from './store/tables.js';

// The rules of schedules as people set them up: a rhythm croner can read in a zone this server
// knows, a window that ends after it starts, a project that exists, one name per project. Who
// may call is the routes' access level (members and admins manage, agents read).

export interface ScheduleServiceDeps {
  /** The work store: its transactions carry an occurrence's row and its item together. */
  store: WorkStore;
  statementsOn: ScheduleStatementsOn;
  top: DatabaseHandle;
  makeItem: ItemMaker;
  now: () => Date;
  /** Told after a write that may have made a schedule due: the pass looks soon. */
  nudge: () => void;
  /** Told of each occurrence written (the metrics). */
  counted?: (row: ScheduleRow, outcome: OccurrenceRow['outcome']) => void;
}

export type ScheduleService = ReturnType<typeof createScheduleService>;

export function nameKey(projectId: string | null, name: string): string {
  return `${projectId ?? ''}/${name.trim().toLowerCase()}`;
}

export function toSchedule(row: ScheduleRow): Schedule {
  const { name_key: _key, claimed_until: _lease, created_by_role: _role, enabled, item, ...rest } = row;
  return {
    ...rest,
    enabled: enabled === 1,
    item: JSON.parse(item) as Schedule['item'],
    next_run_local: row.next_run_at === null ? null : localIso(row.next_run_at, row.tz),
  };
}

export function toOccurrence(row: OccurrenceRow, tz: string): Occurrence {
  const { schedule_id: _id, ...rest } = row;
  return { ...rest, occurrence_local: localIso(row.occurrence_at, tz) };
}

function timestamp(value: string | null | undefined): string | null {
  return value === null || value === undefined ? null : new Date(value).toISOString();
}

export function createScheduleService({
  store,
  statementsOn,
  top,
  makeItem,
  now,
  nudge,
  counted = () => {},
}: ScheduleServiceDeps) {
  const statements = statementsOn(top);

  async function found(id: string): Promise<ScheduleRow> {
    const row = await statements.find(id);
    if (!row) throw new ScheduleNotFound(id);
    return row;
  }

  /** The items' payload (the template's and payload.schedule) must fit the work service's limit. */
  function checkPayload(row: Pick<ScheduleRow, 'id' | 'name' | 'item'>): void {
    const payload = itemFor(row as ScheduleRow, new Date(0).toISOString()).payload;
    if (Buffer.byteLength(JSON.stringify(payload), 'utf8') > MAX_PAYLOAD_BYTES) {
      throw ValidationError.of(
        'item.payload',
        `must be at most ${MAX_PAYLOAD_BYTES} bytes with payload.schedule added`,
      );
    }
  }

  async function checkProject(projectId: string | null | undefined): Promise<void> {
    if (projectId && !(await store.findProject(projectId))) {
      throw ValidationError.of('item.project_id', 'is not the id of an existing project');
    }
  }

  /** The database's refusals as the schedule's own: the name taken, the project gone. */
  async function written<T>(row: Pick<ScheduleRow, 'name' | 'project_id'>, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (isUniqueViolation(error)) throw new ScheduleNameTaken(row.name, row.project_id);
      if (isForeignKeyViolation(error)) {
        throw ValidationError.of('item.project_id', 'is not the id of an existing project');
      }
      throw error;
    }
  }

  async function create(input: CreateSchedule, principal: Principal | null): Promise<Schedule> {
    const starts_at = timestamp(input.starts_at);
    const ends_at = timestamp(input.ends_at);
    const rhythm = rhythmOf({ cron: input.cron, tz: input.tz, starts_at, ends_at });
    const projectId = input.item.project_id ?? null;
    await checkProject(projectId);
    const at = now();
    const actor = actorOf(principal);
    const row: ScheduleRow = {
      id: randomId(),
      name: input.name.trim(),
      name_key: nameKey(projectId, input.name),
      project_id: projectId,
      cron: input.cron.trim(),
      tz: input.tz,
      item: JSON.stringify(input.item),
      missed: input.missed ?? 'skip',
      max_catchup: input.max_catchup ?? MAX_CATCHUP.default,
      overlap: input.overlap ?? 'allow',
      starts_at,
      ends_at,
      enabled: input.enabled === false ? 0 : 1,
      disabled_reason: null,
      next_run_at: rhythm.nextAfter(at)?.toISOString() ?? null,
      last_run_at: null,
      claimed_until: null,
      created_by: actor.name,
      created_by_role: actor.role,
      created_at: at.toISOString(),
      updated_at: at.toISOString(),
      version: 1,
    };
    checkPayload(row);
    await written(row, () => statements.insert(row));
    nudge();
    return toSchedule(row);
  }

  async function list(query: ListSchedulesQuery): Promise<Schedule[]> {
    const rows = await statements.list({
      ...(query.project_id !== undefined && { project_id: query.project_id }),
      ...(query.enabled !== undefined && { enabled: query.enabled === 'true' }),
    });
    return rows.map(toSchedule);
  }

  async function get(id: string): Promise<ScheduleDetail> {
    const row = await found(id);
    const rhythm = rhythmOf(row);
    const occurrences = await statements.occurrences(id, RECENT_OCCURRENCES);
    return {
      ...toSchedule(row),
      next_runs: upcoming(rhythm, row.tz, now()),
      occurrences: occurrences.map((occurrence) => toOccurrence(occurrence, row.tz)),
    };
  }

  async function update(id: string, patch: UpdateSchedule): Promise<Schedule> {
    const row = await found(id);
    const starts_at = patch.starts_at === undefined ? row.starts_at : timestamp(patch.starts_at);
    const ends_at = patch.ends_at === undefined ? row.ends_at : timestamp(patch.ends_at);
    const cron = patch.cron?.trim() ?? row.cron;
    const tz = patch.tz ?? row.tz;
    const rhythm = rhythmOf({ cron, tz, starts_at, ends_at });
    const item = patch.item ?? JSON.parse(row.item);
    const projectId = (item.project_id as string | null | undefined) ?? null;
    if (patch.item !== undefined) await checkProject(projectId);
    const name = patch.name?.trim() ?? row.name;
    const at = now();
    const set: ScheduleChanges = {
      name,
      name_key: nameKey(projectId, name),
      project_id: projectId,
      cron,
      tz,
      item: JSON.stringify(item),
      starts_at,
      ends_at,
      updated_at: at.toISOString(),
      ...(patch.missed !== undefined && { missed: patch.missed }),
      ...(patch.max_catchup !== undefined && { max_catchup: patch.max_catchup }),
      ...(patch.overlap !== undefined && { overlap: patch.overlap }),
    };
    // A new rhythm starts at the edit: nothing of it is due before. Enabling keeps the cursor,
    // so what came due while disabled follows `missed`.
    const rhythmChanged = ['cron', 'tz', 'starts_at', 'ends_at'].some((field) => field in patch);
    if (rhythmChanged) set.next_run_at = rhythm.nextAfter(at)?.toISOString() ?? null;
    if (patch.enabled !== undefined) {
      set.enabled = patch.enabled ? 1 : 0;
      set.disabled_reason = null;
      if (patch.enabled && row.next_run_at === null && !rhythmChanged) {
        set.next_run_at = rhythm.nextAfter(at)?.toISOString() ?? null;
      }
    }
    checkPayload({ id, name, item: set.item! });
    const updated = await written({ name, project_id: projectId }, () => statements.update(id, set));
    if (!updated) throw new ScheduleNotFound(id);
    nudge();
    return toSchedule(updated);
  }

  async function remove(id: string): Promise<void> {
    if (!(await statements.remove(id))) throw new ScheduleNotFound(id);
  }

  /** One occurrence now, outside the rhythm: its row and its item in one commit; overlap does not apply. */
  async function runNow(id: string): Promise<RunNow> {
    const at = now().toISOString();
    const { row, occurrence } = await store.transaction(async (tx, trx) => {
      const locked = await statementsOn(trx).lockForFiring(id);
      if (!locked) throw new ScheduleNotFound(id);
      const item = await makeItem(tx, itemFor(locked, at), creatorOf(locked), at);
      const occurrence: OccurrenceRow = {
        schedule_id: id,
        occurrence_at: at,
        work_item_id: item.id,
        outcome: 'run_now',
        reason: null,
        created_at: at,
      };
      if (!(await statementsOn(trx).insertOccurrence(occurrence))) throw new OccurrenceTaken(at);
      await statementsOn(trx).setLastRun(id, at);
      return { row: locked, occurrence };
    });
    counted(row, 'run_now');
    return { occurrence: toOccurrence(occurrence, row.tz), work_item_id: occurrence.work_item_id! };
  }

  function preview(query: PreviewQuery): Preview {
    const rhythm = rhythmOf({ cron: query.cron, tz: query.tz, starts_at: timestamp(query.starts_at) });
    return { runs: upcoming(rhythm, query.tz, now()) };
  }

  return { create, list, get, update, remove, runNow, preview };
}
