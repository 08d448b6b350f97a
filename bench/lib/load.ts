import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannonModule from 'autocannon';
import { hugeHtml } from './email-preparation.js';

// The load generator, run as its own process (`node dist/bench/lib/load.js '<spec as JSON>'`) so it
// never shares a CPU queue with the server or the orchestrator. It warms up, measures, and
// prints one JSON line: the totals and every 2xx response time.

export const LOAD_KINDS = [
  'post',
  'patch',
  'list',
  'list_recent',
  'classify',
  'classify_duplicate',
  'classify_huge',
] as const;
export type LoadKind = (typeof LOAD_KINDS)[number];

export interface LoadSpec {
  kind: LoadKind;
  url: string;
  connections: number;
  durationS: number;
  warmupS: number;
  /** patch: a JSON file holding the ids of items that are in_progress, owned by this run alone. */
  itemsFile?: string;
}

export interface LoadResult {
  ok: number;
  non2xx: number;
  /** Connection errors and timeouts. */
  errors: number;
  durationS: number;
  statusCodes: Record<string, number>;
  /** The response time of every 2xx, in ms to 0.01, so runs can be merged before percentiles. */
  timesMs: number[];
}

const STATUSES = ['queued', 'dispatched', 'in_progress', 'blocked', 'completed', 'failed', 'cancelled'] as const;
const JSON_HEADERS = { 'content-type': 'application/json' };

// The slice of autocannon's API this file uses (bench/lib/autocannon.d.ts leaves it untyped).
interface CannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (request: CannonRequest) => CannonRequest;
}
interface CannonResult {
  '2xx': number;
  non2xx: number;
  errors: number;
  timeouts: number;
  duration: number;
  statusCodeStats?: Record<string, { count: number }>;
}
interface CannonInstance extends PromiseLike<CannonResult> {
  on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): void;
}
type Cannon = (options: {
  url: string;
  connections: number;
  duration: number;
  requests: CannonRequest[];
  timeout: number;
}) => CannonInstance;
const autocannon = autocannonModule as unknown as Cannon;

type Requests = CannonRequest[];

function requestsFor(spec: LoadSpec): Requests {
  switch (spec.kind) {
    case 'post':
      return [
        {
          method: 'POST',
          path: '/work',
          headers: JSON_HEADERS,
          body: JSON.stringify({
            type: 'bench',
            description: 'Benchmark item: summarize the thread and draft a reply',
            priority: 2,
            payload: { source: 'bench', thread: 42 },
          }),
        },
      ];
    case 'patch': {
      const ids = JSON.parse(readFileSync(spec.itemsFile ?? '', 'utf8')) as string[];
      // Request n goes to item n mod N, whose previous request was N requests earlier: with N
      // far above the connection count it was answered long ago, so every move is legal.
      let sent = 0;
      return [
        {
          method: 'PATCH',
          headers: JSON_HEADERS,
          setupRequest: (request) => {
            const n = sent++;
            const round = Math.floor(n / ids.length);
            const status = round % 2 === 0 ? 'blocked' : 'in_progress';
            return { ...request, path: `/work/${ids[n % ids.length]}`, body: JSON.stringify({ status }) };
          },
        },
      ];
    }
    case 'list': {
      let sent = 0;
      return [
        {
          method: 'GET',
          setupRequest: (request) => ({
            ...request,
            path: `/work?status=${STATUSES[sent++ % STATUSES.length]}&limit=100`,
          }),
        },
      ];
    }
    case 'list_recent':
      // The board's first screen: the newest 20 items, whatever their status.
      return [{ method: 'GET', path: '/work?limit=20' }];
    case 'classify': {
      // Every request is a new email, so each one passes dedupe and reaches the provider. The
      // run's own prefix keeps ids apart across warm-up, rounds and generators.
      const run = randomUUID();
      let sent = 0;
      return [
        {
          method: 'POST',
          path: '/classify',
          headers: JSON_HEADERS,
          setupRequest: (request) => ({ ...request, body: classifyBody(`${run}-${sent++}`) }),
        },
      ];
    }
    case 'classify_duplicate': {
      // The same few emails over and over, each classified once before the run
      // (`primeDuplicates`), so every request is a duplicate answered from the store.
      let sent = 0;
      return [
        {
          method: 'POST',
          path: '/classify',
          headers: JSON_HEADERS,
          setupRequest: (request) => ({ ...request, body: duplicateBody(sent++ % DUPLICATE_EMAILS) }),
        },
      ];
    }
    case 'classify_huge': {
      // A 5 MB HTML email, a new one each time (its id and first line change), serialized once
      // around a marker so the generator does not spend its time serializing 5 MB.
      const run = randomUUID();
      // 5 MB as sent, escapes included, under the route's 5 MiB limit.
      const html = hugeHtml();
      const growth = JSON.stringify(html).length / html.length;
      const parts = JSON.stringify({
        email_data: {
          subject: 'Quarterly report @@ID@@',
          body: `<p>Report @@ID@@</p>${html.slice(0, Math.floor(5_000_000 / growth))}`,
        },
        id: 'bench-huge-@@ID@@',
      }).split('@@ID@@');
      let sent = 0;
      return [
        {
          method: 'POST',
          path: '/classify',
          headers: JSON_HEADERS,
          setupRequest: (request) => ({ ...request, body: parts.join(`${run}-${sent++}`) }),
        },
      ];
    }
    default: {
      const unreachable: never = spec.kind;
      throw new Error(`unknown load ${String(unreachable)}`);
    }
  }
}

/** How many distinct emails the duplicate load cycles through. */
export const DUPLICATE_EMAILS = 100;

/** The n-th email of the duplicate load: the same id and content on every run. */
export function duplicateBody(n: number): string {
  return classifyBody(`duplicate-${n}`);
}

/** A short HTML request with a deadline and an attachment, in the simplified shape. */
function classifyBody(id: string): string {
  return JSON.stringify({
    email_data: {
      subject: `Q3 budget approval ${id}`,
      body: `<p>Hi Alex,</p><p>Could you please review and approve the attached Q3 budget (q3-budget.xlsx) by Friday? Request ${id}.</p><p>Thanks,<br>Dana</p>`,
    },
    id: `bench-${id}`,
    conversationId: `bench-conv-${id}`,
  });
}

function fire(spec: LoadSpec, requests: Requests, durationS: number, times: number[] | null): CannonInstance {
  const instance = autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: durationS,
    requests,
    timeout: 20,
  });
  if (times) {
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) times.push(responseTime);
    });
  }
  return instance;
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const requests = requestsFor(spec);
  if (spec.warmupS > 0) await fire(spec, requests, spec.warmupS, null);
  const times: number[] = [];
  const result = await fire(spec, requests, spec.durationS, times);
  return {
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    durationS: result.duration,
    statusCodes: Object.fromEntries(
      Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, Number(stats.count)]),
    ),
    timesMs: times.map((ms) => Math.round(ms * 100) / 100),
  };
}

const invokedDirectly = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1]);
if (invokedDirectly) {
  runLoad(JSON.parse(process.argv[2] ?? '{}') as LoadSpec).then(
    (result) => process.stdout.write(`${JSON.stringify(result)}\n`),
    (error: unknown) => {
      process.stderr.write(`load failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
