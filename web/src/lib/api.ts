import { currentSession, sessionEnded, sessionHeaders } from './session.ts';
import { currentUser } from './user.ts';

export interface FieldError {
  field: string;
  message: string;
}

/** An error answer of the API (RFC 9457 problem+json), or a network failure dressed as one. */
export class ApiProblem extends Error {
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly errors: FieldError[];
  readonly currentStatus: string | null;
  /** With a 412: the version the item is at now. */
  readonly currentVersion: number | null;
  readonly allowedStatuses: string[];

  constructor(body: Record<string, unknown>, status: number) {
    const title = typeof body.title === 'string' ? body.title : `HTTP ${status}`;
    const detail = typeof body.detail === 'string' ? body.detail : title;
    super(detail);
    this.name = 'ApiProblem';
    this.status = status;
    this.title = title;
    this.detail = detail;
    this.errors = Array.isArray(body.errors) ? body.errors.filter(isFieldError) : [];
    this.currentStatus = typeof body.current_status === 'string' ? body.current_status : null;
    this.currentVersion = typeof body.current_version === 'number' ? body.current_version : null;
    this.allowedStatuses = Array.isArray(body.allowed_statuses)
      ? body.allowed_statuses.filter((s): s is string => typeof s === 'string')
      : [];
  }
}

function isFieldError(e: unknown): e is FieldError {
  return typeof e === 'object' && e !== null && 'field' in e && 'message' in e;
}

export function toProblem(err: unknown): ApiProblem {
  return err instanceof ApiProblem ? err : new ApiProblem({ detail: String(err) }, 0);
}

/** The precondition of a change made from what the page shows: refused (412) if the item moved on. */
export function ifMatch(version: number): Record<string, string> {
  return { 'if-match': `"${version}"` };
}

/** A 412: the item changed since the version the change was based on. */
export function isStale(err: unknown): err is ApiProblem {
  return err instanceof ApiProblem && err.status === 412;
}

export interface ApiResponse<T> {
  data: T;
  /** Cursor of the next page, from the `Link: <…>; rel="next"` header. */
  nextCursor: string | null;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export async function api<T>(
  method: Method,
  path: string,
  body?: unknown,
  signal?: AbortSignal,
  extraHeaders: Record<string, string> = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { accept: 'application/json', ...sessionHeaders(), ...extraHeaders };
  // X-User names the caller only on an open desk; with tokens the session does.
  const user = currentUser();
  if (user !== null && currentSession().auth !== 'tokens') headers['x-user'] = user;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    // Relative to the page, so the desk also works behind a reverse proxy under a sub-path.
    res = await fetch(path.replace(/^\//, ''), {
      method,
      headers,
      body: body === undefined ? null : JSON.stringify(body),
      ...(signal ? { signal } : {}),
    });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new ApiProblem({ title: 'Network error', detail: 'The service could not be reached.' }, 0);
  }
  const text = res.status === 204 ? '' : await res.text();
  let parsed: unknown = null;
  if (text !== '') {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
  }
  if (res.status === 401) sessionEnded();
  if (!res.ok) {
    const problem = typeof parsed === 'object' && parsed !== null ? parsed : {};
    throw new ApiProblem(problem as Record<string, unknown>, res.status);
  }
  return { data: parsed as T, nextCursor: nextCursor(res.headers.get('link')) };
}

export function nextCursor(link: string | null): string | null {
  if (link === null) return null;
  for (const part of link.split(',')) {
    const m = /<([^>]*)>\s*;(.*)$/.exec(part.trim());
    if (!m || !/\brel="?next"?/.test(m[2] ?? '')) continue;
    return new URL(m[1] ?? '', location.href).searchParams.get('cursor');
  }
  return null;
}

/** Builds `path?query` from the entries that have a value. */
export function withQuery(path: string, query: Record<string, string | number | undefined | null>) {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  }
  const qs = params.toString();
  return qs === '' ? path : `${path}?${qs}`;
}
