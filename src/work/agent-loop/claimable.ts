import type { DispatchRow, WorkItemRow } from '../store/tables.js';

// What a commit made claimable: the message that wakes waiting claims (claims.ts), from this
// process's commits through the store's signal and from other instances through the events NOTIFY.
// Who must publish it: docs/design-decisions.md, "Waking waiting claims".

/**
 * Per (type, project, agent), how many items a claim can now take, so only waiters whose filters
 * match are woken, at most one per item.
 */
export interface Claimable {
  type: string;
  project_id: string | null;
  /** Set when the items are dispatched to this agent: only its claim can take them; null for queued items. */
  agent: string | null;
  count: number;
  /**
   * Some of those items as this process just wrote them (new items): a waiter woken for one
   * claims it by its version, without reading the queue first. Never sent to other instances.
   */
  known?: { row: WorkItemRow; dispatches: DispatchRow[] }[];
}

/** What a completion's release of its dependents makes claimable at `now` (store/port.ts `released`). */
export function newsOfReleased(
  released: readonly Pick<WorkItemRow, 'type' | 'project_id' | 'run_after'>[] | undefined,
  now: string,
): ClaimableNews | null {
  if (!released || released.length === 0) return null;
  const ready: Claimable[] = [];
  let due: string | null = null;
  for (const item of released) {
    if (item.run_after !== null && item.run_after > now) {
      if (due === null || item.run_after < due) due = item.run_after;
    } else ready.push({ type: item.type, project_id: item.project_id, agent: null, count: 1 });
  }
  return { ready, due_at: due };
}

/** One commit's news for the waiting claims. */
export interface ClaimableNews {
  ready: Claimable[];
  /**
   * Items became claimable that cannot be named (another instance's news too large for a
   * NOTIFY, a listener that reconnected): every waiter tries once.
   */
  all?: boolean;
  /** The earliest `run_after` still ahead among the queued items written, or null. */
  due_at: string | null;
}

export const NO_NEWS: ClaimableNews = Object.freeze({ ready: [], due_at: null }) as ClaimableNews;

/**
 * What writing `after` over `before` (null: a new item) makes claimable at `now`: the item
 * itself when it is newly due in the queue or newly dispatched to an agent, the `run_after`
 * ahead when it is queued for later, or nothing. An item that was claimable the same way before
 * (an edit of its priority, a heartbeat) is no news.
 */
export function claimableAfter(before: WorkItemRow | null, after: WorkItemRow, now: string): ClaimableNews | null {
  if (after.status === 'queued') {
    // Waiting on a dependency: claimable only once its last one completes (newsOfReleased).
    if (after.waiting_on > 0) return null;
    if (after.run_after !== null && after.run_after > now) return { ready: [], due_at: after.run_after };
    if (
      before &&
      before.status === 'queued' &&
      before.waiting_on === 0 &&
      !(before.run_after !== null && before.run_after > now) &&
      sameKind(before, after)
    )
      return null;
    return { ready: [{ type: after.type, project_id: after.project_id, agent: null, count: 1 }], due_at: null };
  }
  if (after.status === 'dispatched' && after.assigned_agent !== null) {
    if (
      before &&
      before.status === 'dispatched' &&
      before.assigned_agent === after.assigned_agent &&
      sameKind(before, after)
    )
      return null;
    return {
      ready: [{ type: after.type, project_id: after.project_id, agent: after.assigned_agent, count: 1 }],
      due_at: null,
    };
  }
  return null;
}

function sameKind(a: WorkItemRow, b: WorkItemRow): boolean {
  return a.type === b.type && a.project_id === b.project_id;
}

/** Collects the news of several writes: counts summed per kind, the earliest `run_after`. */
export function createNewsCollector() {
  const counts = new Map<string, Claimable>();
  let due: string | null = null;
  let all = false;
  return {
    add(news: ClaimableNews | null | undefined): void {
      if (!news) return;
      if (news.all) all = true;
      for (const claimable of news.ready) {
        const key = JSON.stringify([claimable.type, claimable.project_id, claimable.agent]);
        const gathered = counts.get(key);
        if (!gathered) counts.set(key, { ...claimable, ...(claimable.known && { known: [...claimable.known] }) });
        else {
          gathered.count += claimable.count;
          if (claimable.known) gathered.known = [...(gathered.known ?? []), ...claimable.known];
        }
      }
      if (news.due_at !== null && (due === null || news.due_at < due)) due = news.due_at;
    },
    empty: (): boolean => counts.size === 0 && due === null && !all,
    /** The news gathered so far, and a fresh start. */
    take(): ClaimableNews {
      const news: ClaimableNews = { ready: [...counts.values()], due_at: due, ...(all && { all: true }) };
      counts.clear();
      due = null;
      all = false;
      return news;
    },
  };
}

/** Whether a claim with these filters, by this agent, can take what `claimable` names. */
export function canTake(
  claim: { agent: string; types?: readonly string[] | null; project_id?: string | null },
  claimable: Claimable,
): boolean {
  if (claimable.agent !== null && claimable.agent !== claim.agent) return false;
  if (claim.types && !claim.types.includes(claimable.type)) return false;
  // A uuid may come in either case from a client; the database compares it as a uuid.
  if (claim.project_id && claim.project_id.toLowerCase() !== claimable.project_id?.toLowerCase()) return false;
  return true;
}

/** A NOTIFY payload is limited to 8,000 bytes; past this, the news is sent as "wake everyone". */
const MAX_PAYLOAD_BYTES = 7_900;

/** The news as a NOTIFY payload from instance `from`: compact arrays, or `all` when too large. */
export function encodeNews(from: string, news: ClaimableNews): string {
  const text = JSON.stringify({
    from,
    r: news.ready.map((c) => [c.type, c.project_id, c.agent, c.count]),
    d: news.due_at,
  });
  if (!news.all && Buffer.byteLength(text) <= MAX_PAYLOAD_BYTES) return text;
  return JSON.stringify({ from, all: true, d: news.due_at });
}

/** A payload another instance sent; `all` when it could not say what (or it is unreadable). */
export function decodeNews(payload: string): { from: string | null; all: boolean; news: ClaimableNews } {
  try {
    const value = JSON.parse(payload) as { from?: unknown; r?: unknown; d?: unknown; all?: unknown };
    const from = typeof value.from === 'string' ? value.from : null;
    const due_at = typeof value.d === 'string' ? value.d : null;
    if (value.all === true || !Array.isArray(value.r)) return { from, all: true, news: { ready: [], due_at } };
    const ready: Claimable[] = [];
    for (const entry of value.r as unknown[]) {
      if (!Array.isArray(entry)) continue;
      const [type, project_id, agent, count] = entry as unknown[];
      if (typeof type !== 'string' || typeof count !== 'number' || count < 1) continue;
      ready.push({
        type,
        project_id: typeof project_id === 'string' ? project_id : null,
        agent: typeof agent === 'string' ? agent : null,
        count,
      });
    }
    return { from, all: false, news: { ready, due_at } };
  } catch {
    return { from: null, all: true, news: NO_NEWS };
  }
}
