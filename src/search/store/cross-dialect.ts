import { type RawBuilder, sql } from 'kysely';
import { CREATOR } from '../../conversation/contract.js';
import { WORK_STATUSES, isFinal } from '../../work/contract.js';
import type { DatabaseHandle } from '../../shared/db/schema.js';
import type { SearchFilters } from '../query.js';
import type { Needer, SearchAfter, SearchOrder, SearchSources } from './port.js';

// What both stores write alike: the filters as SQL over `w` (work_items), the keyset condition
// and order, and the reads of the page's texts. The dialects differ in the text match and rank
// and in reading a JSON array of names, which each passes in.

export type NamesContain = (column: RawBuilder<unknown>, name: string) => RawBuilder<unknown>;

const FINAL = WORK_STATUSES.filter((status) => isFinal(status));
const OPEN = WORK_STATUSES.filter((status) => !isFinal(status));

const list = (values: readonly (string | number)[]) => sql.join(values.map((value) => sql`${value}`));

/** The filters, AND-ed; values repeated under one key are OR-ed. */
export function filterConditions(
  filters: SearchFilters,
  person: Needer | null,
  namesContain: NamesContain,
): RawBuilder<unknown>[] {
  const where: RawBuilder<unknown>[] = [];
  if (filters.statuses.length > 0) where.push(sql`w.status IN (${list(filters.statuses)})`);
  if (filters.agents.length > 0) where.push(sql`w.assigned_agent IN (${list(filters.agents)})`);
  if (filters.types.length > 0) where.push(sql`w.type IN (${list(filters.types)})`);
  if (filters.created_by.length > 0) where.push(sql`w.created_by IN (${list(filters.created_by)})`);
  if (filters.priorities.length > 0) where.push(sql`w.priority IN (${list(filters.priorities)})`);
  if (filters.projects.length > 0) {
    const keys = filters.projects.map((project) => project.toLowerCase());
    where.push(
      sql`w.project_id IN (SELECT p.id FROM projects p WHERE CAST(p.id AS TEXT) IN (${list(filters.projects)}) OR p.name_key IN (${list(keys)}))`,
    );
  }
  if (filters.created_from !== null) where.push(sql`w.created_at >= ${filters.created_from}`);
  if (filters.created_before !== null) where.push(sql`w.created_at < ${filters.created_before}`);
  if (filters.is.includes('open')) where.push(sql`w.status IN (${list(OPEN)})`);
  if (filters.is.includes('final')) where.push(sql`w.status IN (${list(FINAL)})`);
  if (filters.is.includes('needs-me')) where.push(needsPerson(person, namesContain));
  return where;
}

/**
 * An open question or review that `person` is told of (notify's rule: the people it names, the
 * item's creator for `@creator`; else the item's and its project's watchers and its creator), and
 * did not ask. For an agent, only what it may answer: a question to `@creator` of an item it created.
 */
function needsPerson(person: Needer | null, namesContain: NamesContain): RawBuilder<unknown> {
  if (person === null) return sql`1 = 0`;
  const { name } = person;
  const toCreator = sql`(w.created_by = ${name} AND ${namesContain(sql`q.to_people`, CREATOR)})`;
  const told = person.agent
    ? sql`(q.to_people IS NOT NULL AND ${toCreator})`
    : sql`(CASE WHEN q.to_people IS NOT NULL THEN (${namesContain(sql`q.to_people`, name)} OR ${toCreator})
         ELSE (w.created_by = ${name} OR ${namesContain(sql`w.watchers`, name)}
               OR EXISTS (SELECT 1 FROM projects wp WHERE wp.id = w.project_id
                          AND ${namesContain(sql`wp.watchers`, name)})) END)`;
  // The items with an open question come first, uncorrelated, so a planner may start from those
  // few instead of walking every item for the person's own.
  return sql`w.id IN (SELECT o.work_item_id FROM work_questions o WHERE o.status = 'open')
    AND EXISTS (SELECT 1 FROM work_questions q WHERE q.work_item_id = w.id AND q.status = 'open'
    AND q.asked_by <> ${name} AND ${told})`;
}

/** After the previous page: lower rank, then older, then lower id (relevance); older, lower id (newest). */
export function afterCondition(order: SearchOrder, after: SearchAfter, rank: RawBuilder<unknown>): RawBuilder<unknown> {
  const older = sql`(w.created_at < ${after.created_at} OR (w.created_at = ${after.created_at} AND w.id < ${after.id}))`;
  if (order === 'newest') return older;
  return sql`(${rank} < ${after.rank} OR (${rank} = ${after.rank} AND ${older}))`;
}

export function orderBy(order: SearchOrder, rank: RawBuilder<unknown>): RawBuilder<unknown> {
  return order === 'newest'
    ? sql`ORDER BY w.created_at DESC, w.id DESC`
    : sql`ORDER BY ${rank} DESC, w.created_at DESC, w.id DESC`;
}

export function whereClause(conditions: RawBuilder<unknown>[]): RawBuilder<unknown> {
  return conditions.length === 0 ? sql`` : sql`WHERE ${sql.join(conditions, sql` AND `)}`;
}

export async function readSources(db: DatabaseHandle, itemIds: readonly string[]): Promise<SearchSources> {
  if (itemIds.length === 0) return { comments: [], questions: [], mails: [] };
  const ids = list(itemIds);
  const [comments, questions, mails] = await Promise.all([
    sql<SearchSources['comments'][number]>`SELECT work_item_id, kind, body FROM work_comments
      WHERE work_item_id IN (${ids}) ORDER BY created_at, id`.execute(db),
    sql<SearchSources['questions'][number]>`SELECT work_item_id, question, answer FROM work_questions
      WHERE work_item_id IN (${ids}) ORDER BY asked_at, id`.execute(db),
    sql<SearchSources['mails'][number]>`SELECT work_item_id, subject, sender FROM intake_messages
      WHERE work_item_id IN (${ids}) ORDER BY created_at, id`.execute(db),
  ]);
  return { comments: comments.rows, questions: questions.rows, mails: mails.rows };
}
