import type { WorkStatus, WorkItemSummary } from '../../../src/work/api-contract.ts';
import { relationsOf, waitingOn } from './relations.ts';
import { STATUSES } from './statuses.ts';

// The board's view lives in the URL with the API's own parameter names, so the query the page
// sends is the query the address shows.

export const PAGE_SIZES = [25, 50, 100, 200] as const;
export const DEFAULT_LIMIT = 50;

export interface BoardFilters {
  status: WorkStatus | null;
  agent: string;
  project_id: string;
  type: string;
  since: string; // ISO 8601 with zone, or ''
  /** Sub-items of this item only, or ''. */
  parent_id: string;
  /** Only items claimable now: queued, due, every dependency completed. */
  ready: boolean;
  sort: 'newest' | 'priority';
  limit: number;
  cursor: string;
}

export function filtersFrom(params: URLSearchParams): BoardFilters {
  const status = params.get('status');
  const limit = Number(params.get('limit'));
  const since = params.get('since') ?? '';
  return {
    status: (STATUSES as readonly string[]).includes(status ?? '') ? (status as WorkStatus) : null,
    agent: params.get('agent') ?? '',
    project_id: params.get('project_id') ?? '',
    type: params.get('type') ?? '',
    since: since !== '' && !Number.isNaN(Date.parse(since)) ? since : '',
    parent_id: params.get('parent_id') ?? '',
    ready: params.get('ready') === 'true',
    sort: params.get('sort') === 'priority' ? 'priority' : 'newest',
    limit: Number.isInteger(limit) && limit >= 1 && limit <= 1000 ? limit : DEFAULT_LIMIT,
    cursor: params.get('cursor') ?? '',
  };
}

/** URL parameters for a view; defaults are left out to keep shared links short. */
export function filtersToParams(f: BoardFilters): URLSearchParams {
  const p = new URLSearchParams();
  if (f.status) p.set('status', f.status);
  if (f.agent) p.set('agent', f.agent);
  if (f.project_id) p.set('project_id', f.project_id);
  if (f.type) p.set('type', f.type);
  if (f.since) p.set('since', f.since);
  if (f.parent_id) p.set('parent_id', f.parent_id);
  if (f.ready) p.set('ready', 'true');
  if (f.sort === 'priority') p.set('sort', 'priority');
  if (f.limit !== DEFAULT_LIMIT) p.set('limit', String(f.limit));
  if (f.cursor) p.set('cursor', f.cursor);
  return p;
}

/** Query for GET /work. */
export function listQuery(f: BoardFilters) {
  return {
    status: f.status,
    ...countsQuery(f),
    sort: f.sort === 'priority' ? 'priority' : null,
    limit: f.limit,
    cursor: f.cursor,
  };
}

/**
 * Query for GET /work/counts: the list's filters minus status, order and paging, so each count
 * is of the items the board lists (only the ready ones, only one item's sub-items).
 */
export function countsQuery(f: BoardFilters) {
  return {
    agent: f.agent,
    project_id: f.project_id,
    type: f.type,
    since: f.since,
    parent_id: f.parent_id,
    ready: f.ready ? 'true' : null,
  };
}

/** Whether an item pushed by the live stream belongs in the current view. */
export function matches(f: BoardFilters, item: WorkItemSummary): boolean {
  if (f.status && item.status !== f.status) return false;
  if (f.agent && item.assigned_agent !== f.agent) return false;
  if (f.project_id && item.project_id !== f.project_id) return false;
  if (f.type && item.type !== f.type) return false;
  if (f.since && Date.parse(item.created_at) <= Date.parse(f.since)) return false;
  if (f.parent_id && relationsOf(item).parent_id !== f.parent_id) return false;
  if (f.ready && !isReady(item)) return false;
  return true;
}

/** Orders two items as the service does for the view's sort. */
export function compareItems(sort: BoardFilters['sort'], a: WorkItemSummary, b: WorkItemSummary): number {
  if (sort === 'priority') {
    if (a.priority !== b.priority) return a.priority - b.priority;
    return a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : 1;
  }
  return a.created_at > b.created_at ? -1 : a.created_at < b.created_at ? 1 : a.id > b.id ? -1 : 1;
}

/** Claimable now, as `ready=true` means it: queued, due, and waiting on nothing. */
export function isReady(item: WorkItemSummary, now = Date.now()): boolean {
  if (item.status !== 'queued' || waitingOn(item) > 0) return false;
  return item.run_after === null || Date.parse(item.run_after) <= now;
}
