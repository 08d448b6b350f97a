import { type ApiResponse, api, withQuery } from './api.ts';

// The landing page's first reads start with the script instead of after the session answer and
// the first render: on the dashboard that wait was most of the time to the numbers. A page takes
// a prefetched answer once, and only a fresh one; otherwise it reads as it always does.

const FRESH_MS = 5_000;
const started = new Map<string, { at: number; answer: Promise<ApiResponse<unknown>> }>();

export function prefetch(path: string): void {
  const answer = api<unknown>('GET', path);
  // Nobody may ever take it (a sign-in screen): a refusal is not an unhandled rejection.
  answer.catch(() => undefined);
  started.set(path, { at: Date.now(), answer });
}

/** The answer prefetched for `path`, once, if it is fresh; null when the page should read it itself. */
export function takePrefetched<T>(path: string): Promise<ApiResponse<T>> | null {
  const early = started.get(path);
  started.delete(path);
  if (early === undefined || Date.now() - early.at > FRESH_MS) return null;
  return early.answer as Promise<ApiResponse<T>>;
}

/** The dashboard's days, and the one read that paints all of it but the classifier panel. */
export const DASHBOARD_DAYS = 7;
export const DASHBOARD_STATS_PATH = withQuery('/work/stats', { days: DASHBOARD_DAYS });
