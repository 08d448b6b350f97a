import { useRef } from 'preact/hooks';
import type { WorkItem, WorkItemDetail, WorkItemSummary } from '../../../src/work/api-contract.ts';
import { api, withQuery } from '../lib/api.ts';
import { useLive } from '../lib/live.ts';
import {
  type Blocker,
  type ChildCounts,
  NO_CHILDREN,
  type Relations,
  relationsOf,
  waitingOn,
} from '../lib/relations.ts';
import { href } from '../lib/router.ts';
import { useLoad } from '../lib/use-load.ts';
import { ProblemMessage } from './problem-message.tsx';
import { StatusBadge } from './status-badge.tsx';
import { UserText } from './user-text.tsx';
import { WORK_EVENTS } from '../lib/event-names.ts';

// The item page's "Plan" card: the parent, the children with a progress bar, what the item waits
// on and what waits on it, each linked, with its status. Kept out of the item page, which only places it.

/** Children shown on the page; the rest are counted and a link lists them on the board. */
const CHILDREN_SHOWN = 100;
/** Finished dependencies read one by one for their descriptions (blocked_by names the others). */
const FINISHED_SHOWN = 20;

type Linked = Pick<WorkItemSummary, 'id' | 'status' | 'description'> & Partial<WorkItemSummary>;

interface Related {
  /** From the item as GET /work/{id} answers it; the children counted from their list when it is whole. */
  relations: Relations;
  parent: Linked | null;
  children: WorkItemSummary[];
  /** Every dependency: the unfinished from blocked_by, the finished read (up to FINISHED_SHOWN). */
  dependencies: Linked[];
  dependents: WorkItemSummary[];
}

type Shown = WorkItem & Partial<WorkItemDetail>;

async function readRelated(item: Shown, signal: AbortSignal): Promise<Related> {
  const get = (id: string) =>
    api<WorkItemDetail>('GET', `/work/${encodeURIComponent(id)}`, undefined, signal).then((a) => a.data);
  // A change's answer (PATCH) is the item without its links: read them.
  const r = relationsOf(item.depends_on === undefined ? await get(item.id) : item);
  const unfinished = new Set(r.blocked_by.map((b) => b.id));
  const finished = r.depends_on.filter((id) => !unfinished.has(id)).slice(0, FINISHED_SHOWN);
  const [parent, children, done, dependents] = await Promise.all([
    r.parent_id === null ? null : get(r.parent_id).catch(() => null),
    // Read even when none were counted: a live event may be about a child added since.
    api<WorkItemSummary[]>(
      'GET',
      withQuery('/work', { parent_id: item.id, sort: 'priority', limit: CHILDREN_SHOWN }),
      undefined,
      signal,
    ).then((a) => a.data),
    Promise.all(finished.map((id) => get(id).catch(() => null))),
    readDependents(item, signal),
  ]);
  const byId = new Map<string, Linked>(
    [...r.blocked_by, ...done.filter((d): d is WorkItemDetail => d !== null)].map((d) => [d.id, d]),
  );
  const dependencies = r.depends_on.map((id) => byId.get(id)).filter((d): d is Linked => d !== undefined);
  // The item's counts move only with the item; its children's own events move a whole list's.
  const counts = children.length < CHILDREN_SHOWN ? countChildren(children) : r.children;
  return { relations: { ...r, children: counts }, parent, children, dependencies, dependents };
}

function countChildren(children: readonly WorkItemSummary[]): ChildCounts {
  const counts = { ...NO_CHILDREN, total: children.length };
  for (const { status } of children) {
    if (status === 'queued' || status === 'completed' || status === 'failed' || status === 'cancelled')
      counts[status] += 1;
    else counts.active += 1;
  }
  return counts;
}

/** The items that depend on this one (GET /work/{id}/dependents). */
function readDependents(item: Shown, signal: AbortSignal): Promise<WorkItemSummary[]> {
  return api<WorkItemSummary[]>('GET', `/work/${encodeURIComponent(item.id)}/dependents`, undefined, signal).then(
    (a) => a.data,
  );
}

export function ItemRelations({ item, mayAdd = false }: { item: Shown; mayAdd?: boolean }) {
  const related = useLoad<Related>(`${item.id}@${item.version}`, (signal) => readRelated(item, signal));
  const r = related.data?.relations ?? relationsOf(item);
  const shown = useRef(new Set<string>());
  shown.current = new Set([
    ...(related.data?.children.map((c) => c.id) ?? []),
    ...(related.data?.dependencies.map((d) => d.id) ?? []),
    ...(related.data?.dependents.map((d) => d.id) ?? []),
    ...(r.parent_id ? [r.parent_id] : []),
  ]);
  // Live: an event about any item shown, or a new child, reads the relations again.
  useLive((e) => {
    if (e.type === 'resync') return related.reload();
    if (e.type !== WORK_EVENTS.created && e.type !== WORK_EVENTS.updated && e.type !== WORK_EVENTS.deleted) return;
    const parentOf = e.type === WORK_EVENTS.deleted ? null : relationsOf(e.data).parent_id;
    if (shown.current.has(e.data.id) || parentOf === item.id) related.reload();
  });

  const data = related.data;
  const any =
    r.parent_id !== null || r.children.total > 0 || r.depends_on.length > 0 || (data?.dependents.length ?? 0) > 0;
  if (!any) return null;
  return (
    <section aria-labelledby="relations-title" class="card stack relations">
      <div class="row between">
        <h2 id="relations-title">Plan</h2>
        {mayAdd && (
          <a class="small" href={href('/new', { parent_id: item.id })}>
            Add a sub-item
          </a>
        )}
      </div>
      <ProblemMessage problem={related.error} />
      {r.parent_id !== null && (
        <div class="relation">
          <h3>Part of</h3>
          <ul class="related">
            <ItemRow
              item={data?.parent ?? { id: r.parent_id, status: 'queued', description: r.parent_id }}
              loading={!data?.parent}
            />
          </ul>
        </div>
      )}
      {r.children.total > 0 && (
        <div class="relation">
          <h3>Sub-items</h3>
          <ChildProgress counts={r.children} />
          <ul class="related" aria-label="Sub-items">
            {data?.children.map((child) => (
              <ItemRow key={child.id} item={child} />
            ))}
          </ul>
          {r.children.total > CHILDREN_SHOWN && (
            <p class="small">
              <a href={href('/', { parent_id: item.id, sort: 'priority' })}>
                All {r.children.total} sub-items on the board
              </a>
            </p>
          )}
        </div>
      )}
      {r.depends_on.length > 0 && (
        <div class="relation">
          <h3>
            Waits on{' '}
            <span class="muted small">
              {r.blocked_by.length === 0
                ? '(all completed)'
                : `(${r.blocked_by.length} of ${r.depends_on.length} not completed)`}
            </span>
          </h3>
          <ul class="related" aria-label="Waits on">
            {(data?.dependencies ?? r.blocked_by).map((d) => (
              <ItemRow key={d.id} item={d} />
            ))}
          </ul>
          {r.blocked_by.some(isDeadEnd) && (
            <p class="notice small" role="status">
              A dependency ended without completing: this item will not be claimable until someone removes that
              dependency (Edit item) or cancels it.
            </p>
          )}
        </div>
      )}
      {data && data.dependents.length > 0 && (
        <div class="relation">
          <h3>Waited on by</h3>
          <ul class="related" aria-label="Waited on by">
            {data.dependents.map((d) => (
              <ItemRow key={d.id} item={d} />
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}

const isDeadEnd = (b: Blocker) => b.status === 'failed' || b.status === 'cancelled';

function ItemRow({ item, loading = false }: { item: Linked; loading?: boolean }) {
  const waits = waitingOn(item as WorkItemSummary);
  return (
    <li data-id={item.id}>
      <StatusBadge status={item.status} />
      {waits > 0 && <WaitMark count={waits} />}
      <a href={href(`/items/${item.id}`)} class="related-link">
        {loading ? <code>{item.id}</code> : <UserText text={item.description} />}
      </a>
    </li>
  );
}

/** "waiting on 2": a queued item held back by unfinished dependencies, not an idle one. */
export function WaitMark({ count }: { count: number }) {
  return (
    <abbr
      class="loop-mark wait-mark"
      title={`Not claimable until ${count === 1 ? 'its dependency completes' : `its ${count} dependencies complete`}`}
    >
      waiting on {count}
    </abbr>
  );
}

/** The children's progress: completed, failed, cancelled and active as parts of one bar. */
export function ChildProgress({ counts }: { counts: ChildCounts }) {
  const parts = (['completed', 'active', 'failed', 'cancelled'] as const).filter((k) => counts[k] > 0);
  const text = `${counts.completed} of ${counts.total} completed${parts
    .filter((k) => k !== 'completed')
    .map((k) => `, ${counts[k]} ${k === 'active' ? 'in progress' : k}`)
    .join('')}`;
  return (
    <div class="child-progress">
      <div
        class="progress-bar"
        role="progressbar"
        aria-label="Sub-items completed"
        aria-valuemin={0}
        aria-valuemax={counts.total}
        aria-valuenow={counts.completed}
        aria-valuetext={text}
      >
        {parts.map((k) => (
          <span key={k} class={`progress-${k}`} style={{ width: `${(100 * counts[k]) / counts.total}%` }} />
        ))}
      </div>
      <span class="small muted">{text}</span>
    </div>
  );
}
