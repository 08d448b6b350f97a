import type { AddressInfo } from 'node:net';
import { type TestApp, type WorkAppOptions, startWorkApp } from '../support/apps.js';
import { ensureUiBuilt } from './ui-build.js';

export interface Desk {
  /** http://127.0.0.1:<port>, serving the UI at `/` and the API beside it. */
  url: string;
  work: TestApp;
  /** A request to the API as an agent or script would send it (not through the page). */
  api<T = any>(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
    user?: string,
  ): Promise<ApiAnswer<T>>;
  close(): Promise<void>;
}

export interface ApiAnswer<T> {
  status: number;
  headers: Headers;
  body: T;
}

/**
 * The real work service on a fresh SQLite file, listening on a free port with the built UI,
 * as `npm start` runs it. `env` adds configuration (e.g. CLASSIFY_URL).
 */
export async function startDesk(env: Record<string, string> = {}, options: WorkAppOptions = {}): Promise<Desk> {
  await ensureUiBuilt();
  const work = await startWorkApp('sqlite', env, options);
  await work.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = work.app.server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    work,
    async api(method, path, body, user = 'script') {
      const res = await fetch(url + path, {
        method,
        headers: { 'x-user': user, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? null : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) };
    },
    close: () => work.close(),
  };
}
