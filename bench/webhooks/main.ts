import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { type BenchDbKind, dropAll, freshDatabase, parseDbKind } from '../lib/databases.js';
import { StealMeter, cpuTicks } from '../lib/host-steal.js';
import { runMain } from '../lib/run-main.js';
import { startWork } from '../lib/servers.js';
import { closedPort, startSilentServer } from '../../test/support/smtp.js';

// `npm run bench:webhooks [-- --db sqlite|postgres --events 2000 --requests 2000 --connections 8]`:
// (1) events per second delivered to one local receiver, beside the rate the same run committed
// them; (2) the API's p99 while 1,000 deliveries fail against dead endpoints, beside the same load
// on a desk with no webhooks, each on a fresh database.

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    events: { type: 'string', default: '2000' },
    requests: { type: 'string', default: '2000' },
    connections: { type: 'string', default: '8' },
  },
});
const kind: BenchDbKind = parseDbKind(args.db);
const EVENTS = Number(args.events);
const REQUESTS = Number(args.requests);
const CONNECTIONS = Number(args.connections);
/** Dead endpoints, half refusing connections and half taking them and never answering. */
const DEAD_ENDPOINTS = 40;
const FAILING = 1_000;
/** A fixed key: the bench's throwaway databases keep the endpoints' secrets sealed as a desk does. */
const ENV = { OUTBOUND_ALLOWED_HOSTS: '127.0.0.1', AGENTDESK_SECRET_KEY: '5'.repeat(64) };

type Call = (method: 'GET' | 'POST', path: string, body?: unknown) => Promise<any>;

function caller(pool: Pool): Call {
  return async (method, path, body) => {
    const answer = await pool.request({
      method,
      path,
      headers: { 'x-user': 'bench', ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await answer.body.text();
    if (answer.statusCode >= 400)
      throw new Error(`${method} ${path} answered ${answer.statusCode}: ${text.slice(0, 200)}`);
    return text === '' ? null : JSON.parse(text);
  };
}

/** Runs `count` calls over CONNECTIONS at once; resolves with each call's milliseconds. */
async function pooled(count: number, each: (index: number) => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < count) {
        const index = next++;
        const at = performance.now();
        await each(index);
        times.push(performance.now() - at);
      }
    }),
  );
  return times;
}

const round = (value: number) => Math.round(value * 100) / 100;
function percentile(times: number[], fraction: number): number {
  const sorted = Float64Array.from(times).sort();
  return round(sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN);
}

async function withDesk<T>(run: (call: Call) => Promise<T>): Promise<T> {
  const database = await freshDatabase(kind);
  const server = await startWork(database.url, CONNECTIONS, undefined, ENV);
  const pool = new Pool(server.url, { connections: CONNECTIONS, pipelining: 1 });
  try {
    return await run(caller(pool));
  } finally {
    await pool.close();
    await server.stop();
  }
}

/** Commits EVENTS items with one endpoint listening; the clock runs until the receiver has them all. */
async function deliveryRate() {
  let received = 0;
  let lastAt = 0;
  let allIn: () => void = () => {};
  const done = new Promise<void>((resolve) => (allIn = resolve));
  const receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.end('ok');
      received += 1;
      lastAt = performance.now();
      if (received === EVENTS) allIn();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  try {
    return await withDesk(async (call) => {
      await call('POST', '/webhooks', { url, events: ['work.created'] });
      const steal = new StealMeter();
      const before = cpuTicks();
      const started = performance.now();
      await pooled(EVENTS, (index) => call('POST', '/work', { type: 'bench_hook', description: `event ${index}` }));
      const committedS = (performance.now() - started) / 1000;
      await done;
      steal.add(before, cpuTicks());
      const deliveredS = (lastAt - started) / 1000;
      return {
        events: EVENTS,
        committed_per_s: Math.round(EVENTS / committedS),
        delivered_per_s: Math.round(EVENTS / deliveredS),
        ratio_to_committed: round(committedS / deliveredS),
        steal_pct: steal.percent(),
      };
    });
  } finally {
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  }
}

/** The API under load (a submit and a list per request pair), with or without dead endpoints failing. */
async function apiLatency(dead: boolean, refusing: number, hanging: number) {
  return withDesk(async (call) => {
    if (dead) {
      for (let n = 0; n < DEAD_ENDPOINTS; n++) {
        const port = n % 2 === 0 ? refusing : hanging;
        await call('POST', '/webhooks', {
          url: `http://127.0.0.1:${port}/hook/${n}`,
          events: ['*'],
          types: ['bench_dead'],
        });
      }
      // Each of these events is one delivery per endpoint: FAILING deliveries that fail and retry.
      await pooled(FAILING / DEAD_ENDPOINTS, () => call('POST', '/work', { type: 'bench_dead', description: 'fails' }));
    }
    // A warm-up, untimed; the timed requests are of a type no endpoint hears.
    await pooled(REQUESTS / 10, (index) =>
      index % 2 === 0
        ? call('POST', '/work', { type: 'bench_api', description: 'warm' })
        : call('GET', '/work?limit=20'),
    );
    const steal = new StealMeter();
    const before = cpuTicks();
    const started = performance.now();
    const times = await pooled(REQUESTS, (index) =>
      index % 2 === 0
        ? call('POST', '/work', { type: 'bench_api', description: `api ${index}` })
        : call('GET', '/work?limit=20'),
    );
    const seconds = (performance.now() - started) / 1000;
    steal.add(before, cpuTicks());
    return {
      requests: REQUESTS,
      p50_ms: percentile(times, 0.5),
      p99_ms: percentile(times, 0.99),
      requests_per_s: Math.round(REQUESTS / seconds),
      steal_pct: steal.percent(),
    };
  });
}

async function main(): Promise<void> {
  const silent = await startSilentServer();
  const refusing = await closedPort();
  try {
    const rate = await deliveryRate();
    process.stdout.write(`${JSON.stringify({ bench: 'webhooks', db: kind, mode: 'delivery', ...rate })}\n`);
    const quiet = await apiLatency(false, refusing, silent.port);
    const failing = await apiLatency(true, refusing, silent.port);
    for (const [mode, result] of [
      ['no_webhooks', quiet],
      ['dead_endpoints', failing],
    ] as const) {
      process.stdout.write(
        `${JSON.stringify({
          bench: 'webhooks',
          db: kind,
          mode,
          failing_deliveries: mode === 'dead_endpoints' ? FAILING : 0,
          connections: CONNECTIONS,
          ...result,
          p99_ratio_to_no_webhooks: round(result.p99_ms / quiet.p99_ms),
        })}\n`,
      );
    }
  } finally {
    await silent.close();
    await dropAll();
  }
}

runMain(main);
