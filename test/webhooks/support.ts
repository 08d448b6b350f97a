import { type IncomingHttpHeaders, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpTransport, type Webhooks } from '../../src/webhooks/index.js';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { ADMIN_SECRET, AUTH_ENV, bearer } from '../support/auth.js';
import type { TestClock } from '../support/clock.js';
import type { StoreKind } from '../support/databases.js';
import { call } from '../support/http.js';
import { SECRET_KEY } from '../support/intake.js';

// What the webhook tests share: a work app whose fan-out and sender run only when the test says
// (at its clock), and receivers that are real HTTP servers on loopback.

export const NO_TIMER_MS = 60 * 60 * 1000;
export const admin = bearer(ADMIN_SECRET);

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  path: string;
}

/** What the receiver answers one request with; `hang` never answers. */
export type Answer = { status: number; headers?: Record<string, string>; body?: string } | { hang: true };

export interface Receiver {
  url: string;
  received: Received[];
  /** Answers the next requests with these, then 200. */
  answers: Answer[];
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const answers: Answer[] = [];
  const hanging = new Set<ServerResponse>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        path: request.url ?? '',
      });
      const answer = answers.shift() ?? { status: 200, body: 'ok' };
      if ('hang' in answer) {
        hanging.add(response);
        return;
      }
      response.writeHead(answer.status, answer.headers);
      response.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    answers,
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export interface HookApp {
  t: TestApp;
  webhooks: () => Webhooks;
  /** Runs the fan-out, then the sender, at the test's clock; resolves with the attempts made. */
  deliver(): Promise<number>;
}

/**
 * The send timeout is long by default: a loaded host can hold a loopback answer past a couple of
 * seconds, and a send that times out is a retry the test did not ask for.
 */
export async function startHookApp(kind: StoreKind, clock: TestClock, timeoutMs = 30_000): Promise<HookApp> {
  let webhooks: Webhooks | undefined;
  const t = await startWorkApp(
    kind,
    {
      ...AUTH_ENV,
      PUBLIC_URL: 'http://desk.example.org/',
      OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
      AGENTDESK_SECRET_KEY: SECRET_KEY,
    },
    {
      now: clock.now,
      sweepEveryMs: NO_TIMER_MS,
      webhooks: {
        transport: createHttpTransport({ allowedHosts: ['127.0.0.1'], timeoutMs }).transport,
        sender: { pollMs: NO_TIMER_MS, sendTimeoutMs: timeoutMs },
        fanOutPollMs: NO_TIMER_MS,
      },
      onWebhooks: (started) => (webhooks = started),
    },
  );
  const get = () => {
    if (!webhooks) throw new Error('webhooks did not start');
    return webhooks;
  };
  return {
    t,
    webhooks: get,
    async deliver() {
      await get().fanOut();
      return get().start().runOnce();
    },
  };
}

export async function createEndpoint(app: HookApp, body: Record<string, unknown>) {
  const made = await call(app.t.app, 'POST', '/webhooks', body, admin);
  if (made.status !== 201) throw new Error(made.text);
  return made.body as { id: string; secret: string };
}
