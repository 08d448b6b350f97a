import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { BoardFiltersForm } from './board-filters.tsx';
import { ItemTable } from '../../components/item-table.tsx';
import { ProblemMessage } from '../../components/problem-message.tsx';
import { StatusCounts } from './status-counts.tsx';
import { api, withQuery } from '../../lib/api.ts';
import {
  type BoardFilters,
  compareItems,
  countsQuery,
  filtersFrom,
  filtersToParams,
  listQuery,
  matches,
} from '../../lib/filters.ts';
import { type LiveEvent, useLive } from '../../lib/live.ts';
import { href, navigate } from '../../lib/router.ts';
import { can, useSession } from '../../lib/session.ts';
import { useLoad } from '../../lib/use-load.ts';
import type { StatusCounts as Counts, WorkItemSummary } from '../../../../src/work/api-contract.ts';
import { WORK_EVENTS } from '../../lib/event-names.ts';

interface Page {
  items: WorkItemSummary[];
  next: string | null;
}

// Counts are a COUNT over the filtered table; under a burst of live events one refresh per
// interval is plenty.
const COUNTS_REFRESH_MS = 750;

export function BoardPage({ params }: { params: URLSearchParams }) {
  const session = useSession();
  const mayUse = (access: 'submit') => can(session, access);
  const paramString = params.toString();
  const filters = useMemo(() => filtersFrom(params), [paramString]);
  const listKey = withQuery('/work', listQuery(filters));
  const countsKey = withQuery('/work/counts', countsQuery(filters));

  const list = useLoad<Page>(listKey, async (signal) => {
    const r = await api<WorkItemSummary[]>('GET', listKey, undefined, signal);
    return { items: r.data, next: r.nextCursor };
  });
  const counts = useLoad<Counts>(
    countsKey,
    async (signal) => (await api<Counts>('GET', countsKey, undefined, signal)).data,
  );

  // Cursors of the pages before this one, so "Previous" works without a backwards cursor.
  const [trail, setTrail] = useState<string[]>([]);
  const viewKey = withQuery('', { ...listQuery(filters), cursor: null });
  useEffect(() => setTrail([]), [viewKey]);

  // Live events can arrive faster than renders; each folds into the newest page, not the rendered one.
  const pageRef = useRef(list.data);
  pageRef.current = list.data;
  // An event that arrives while the page loads may not be in the answer (the request may have
  // been read before the change committed), and folding it into the old page is lost when the
  // answer lands: load once more when this load ends, however many events came meanwhile.
  const loadingRef = useRef(list.loading);
  loadingRef.current = list.loading;
  const missedWhileLoading = useRef(false);
  useEffect(() => {
    if (list.loading || !missedWhileLoading.current) return;
    missedWhileLoading.current = false;
    list.reload();
  }, [list.loading]);

  const [stale, setStale] = useState<ReadonlySet<string>>(new Set());
  useEffect(() => setStale(new Set()), [listKey]);

  const countsTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(countsTimer.current), []);
  const refreshCounts = () => {
    if (countsTimer.current !== undefined) return;
    countsTimer.current = setTimeout(() => {
      countsTimer.current = undefined;
      counts.reload();
    }, COUNTS_REFRESH_MS);
  };

  useLive((e) => {
    if (e.type === 'resync') {
      list.reload();
      counts.reload();
      return;
    }
    if (e.type !== WORK_EVENTS.created && e.type !== WORK_EVENTS.updated && e.type !== WORK_EVENTS.deleted) return;
    refreshCounts();
    const current = pageRef.current;
    if (!current || loadingRef.current) {
      missedWhileLoading.current = true;
      return;
    }
    const { page: next, staleId, isStale } = applyLive(current, filters, e);
    pageRef.current = next;
    list.setData(() => next);
    if (staleId !== null) {
      setStale((s) => {
        if (s.has(staleId) === isStale) return s;
        const updated = new Set(s);
        if (isStale) updated.add(staleId);
        else updated.delete(staleId);
        return updated;
      });
    }
  });

  const go = (f: BoardFilters) => navigate(href('/', filtersToParams(f)));
  const page = list.data;

  return (
    <section aria-labelledby="board-title">
      <div class="page-head">
        <h1 id="board-title">Board</h1>
        {mayUse('submit') && (
          <a class="button primary" href={href('/new')}>
            Submit work
          </a>
        )}
      </div>
      <BoardFiltersForm filters={filters} onApply={go} />
      <StatusCounts
        counts={counts.data}
        active={filters.status}
        onPick={(status) => go({ ...filters, status, cursor: '' })}
      />
      <ProblemMessage problem={list.error} />
      <div aria-busy={list.loading} aria-live="polite" class={list.loading && page ? 'loading' : undefined}>
        {page ? (
          <ItemTable items={page.items} caption="Work items" stale={stale} />
        ) : (
          !list.error && <p class="muted">Loading…</p>
        )}
      </div>
      <nav class="pager" aria-label="Pages">
        {filters.cursor !== '' &&
          (trail.length > 0 ? (
            <button
              type="button"
              onClick={() => {
                const prev = trail[trail.length - 1] ?? '';
                setTrail(trail.slice(0, -1));
                go({ ...filters, cursor: prev });
              }}
            >
              ← Previous
            </button>
          ) : (
            <button type="button" onClick={() => go({ ...filters, cursor: '' })}>
              ↑ First page
            </button>
          ))}
        {page?.next && (
          <button
            type="button"
            onClick={() => {
              setTrail([...trail, filters.cursor]);
              go({ ...filters, cursor: page.next ?? '' });
            }}
          >
            Next →
          </button>
        )}
      </nav>
    </section>
  );
}

type WorkEvent = Extract<LiveEvent, { type: (typeof WORK_EVENTS)[keyof typeof WORK_EVENTS] }>;

interface Folded {
  page: Page;
  /** an item already on the page that the event changed, and whether it still fits the view */
  staleId: string | null;
  isStale: boolean;
}

/**
 * Folds one live event into the loaded page. An item joins the page only when it falls inside
 * the stretch of the order this page covers, so paging on with the same cursor loses nothing;
 * an item that stops matching stays, dimmed, rather than vanishing under the pointer.
 */
function applyLive(page: Page, f: BoardFilters, e: WorkEvent): Folded {
  if (e.type === WORK_EVENTS.deleted) {
    return { page: { ...page, items: page.items.filter((i) => i.id !== e.data.id) }, staleId: null, isStale: false };
  }
  const item = e.data;
  const at = page.items.findIndex((i) => i.id === item.id);
  if (at !== -1) {
    const items = page.items.slice();
    items[at] = item;
    return { page: { ...page, items }, staleId: item.id, isStale: !matches(f, item) };
  }
  if (!matches(f, item) || !withinPage(page, f, item)) return { page, staleId: null, isStale: false };
  const items = [...page.items, item].sort((a, b) => compareItems(f.sort, a, b));
  return { page: { ...page, items }, staleId: null, isStale: false };
}

function withinPage(page: Page, f: BoardFilters, item: WorkItemSummary): boolean {
  const first = page.items[0];
  const last = page.items[page.items.length - 1];
  if (f.cursor !== '' && (!first || compareItems(f.sort, item, first) < 0)) return false;
  if (page.next !== null && (!last || compareItems(f.sort, item, last) > 0)) return false;
  return true;
}
