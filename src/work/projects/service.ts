import { randomId } from '../../shared/db/ids.js';
import { isUniqueViolation } from '../../shared/db/database.js';
import { DuplicateProjectName, ProjectNotFound } from '../errors.js';
import type { CreateProject, Project, UpdateProject } from '../api-contract.js';
import type { WorkStore } from '../store/port.js';
import type { ProjectRow } from '../store/tables.js';
import { namesColumn, namesOf } from '../items/view.js';

export const PROJECT_EVENTS = {
  created: 'project.created',
  updated: 'project.updated',
} as const;

export interface ProjectServiceDeps {
  store: WorkStore;
  now?: () => Date;
}

export type ProjectService = ReturnType<typeof createProjectService>;

/**
 * Names are unique ignoring case and Unicode normalisation (`école` typed precomposed or as
 * `e` + U+0301 is one name); the key is computed here so every store compares alike. NFC again
 * after lower-casing, which can decompose (İ becomes i + U+0307).
 */
function nameKey(name: string): string {
  return name.normalize('NFC').toLowerCase().normalize('NFC');
}

export function createProjectService({ store, now = () => new Date() }: ProjectServiceDeps) {
  async function create(input: CreateProject): Promise<Project> {
    const row: ProjectRow = {
      id: randomId(),
      name: input.name,
      name_key: nameKey(input.name),
      external_ref: input.external_ref ?? null,
      created_at: now().toISOString(),
      review_required: input.review_required ? 1 : 0,
      watchers: namesColumn(input.watchers),
      escalate_to: namesColumn(input.escalate_to),
      answer_within_s: input.answer_within_s ?? null,
    };
    try {
      await store.transaction(async (tx) => {
        await tx.insertProject(row);
        await tx.appendEvent(PROJECT_EVENTS.created, JSON.stringify(toProject(row)), row.created_at);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new DuplicateProjectName(input.name);
      throw error;
    }
    return toProject(row);
  }

  async function get(id: string): Promise<Project> {
    const row = await store.findProject(id);
    if (!row) throw new ProjectNotFound(id);
    return toProject(row);
  }

  async function list(): Promise<Project[]> {
    return (await store.listProjects()).map(toProject);
  }

  async function update(id: string, patch: UpdateProject): Promise<Project> {
    try {
      const project = await store.transaction(async (tx) => {
        // Locked, so the event and the answer are built on the row as the update finds it.
        const row = await tx.lockProject(id);
        if (!row) throw new ProjectNotFound(id);
        const changes: Partial<ProjectRow> = {};
        if (patch.name !== undefined && patch.name !== row.name) {
          Object.assign(changes, { name: patch.name, name_key: nameKey(patch.name) });
        }
        if (patch.external_ref !== undefined && patch.external_ref !== row.external_ref) {
          changes.external_ref = patch.external_ref;
        }
        if (patch.review_required !== undefined && (patch.review_required ? 1 : 0) !== row.review_required) {
          changes.review_required = patch.review_required ? 1 : 0;
        }
        for (const list of ['watchers', 'escalate_to'] as const) {
          const names = patch[list];
          if (names !== undefined && namesColumn(names) !== row[list]) changes[list] = namesColumn(names);
        }
        if (patch.answer_within_s !== undefined && patch.answer_within_s !== row.answer_within_s) {
          changes.answer_within_s = patch.answer_within_s;
        }
        if (Object.keys(changes).length === 0) return toProject(row);
        await tx.updateProject(id, changes);
        const updated = toProject({ ...row, ...changes });
        await tx.appendEvent(PROJECT_EVENTS.updated, JSON.stringify(updated), now().toISOString());
        return updated;
      });
      return project;
    } catch (error) {
      if (isUniqueViolation(error)) throw new DuplicateProjectName(patch.name ?? '');
      throw error;
    }
  }

  return { create, get, list, update };
}

function toProject(row: ProjectRow): Project {
  return {
    id: row.id,
    name: row.name,
    external_ref: row.external_ref,
    created_at: row.created_at,
    review_required: Boolean(row.review_required),
    watchers: namesOf(row.watchers),
    answer_within_s: row.answer_within_s,
    escalate_to: namesOf(row.escalate_to),
  };
}
