import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { type BenchDbKind, dropAll, freshDatabase, parseDbKind } from '../lib/databases.js';
import { runMain } from '../lib/run-main.js';
import { startWork } from '../lib/servers.js';
import { closedPort, startSilentServer } from '../../test/support/smtp.js';

// `npm run bench:notify [-- --db sqlite --asks 1000 --connections 8]`: the latency of POST
// /work/{id}/questions with no mail, with an SMTP server that takes connections and never
// answers, and with one that is down: the mail's row commits with the question, no request waits on SMTP.

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    asks: { type: 'string', default: '1000' },
    connections: { type: 'string', default: '8' },
  },
});
const kind: BenchDbKind = parseDbKind(args.db);
const ASKS = Number(args.asks);
const CONNECTIONS = Number(args.connections);
const MODES = ['no_mail', 'smtp_hanging', 'smtp_down'] as const;
type Mode = (typeof MODES)[number];

interface Latency {
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  asks_per_s: number;
}

function summarise(timesMs: number[], seconds: number): Latency {
  const sorted = Float64Array.from(timesMs).sort();
  const at = (fraction: number) => sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return {
    p50_ms: round(at(0.5)),
    p99_ms: round(at(0.99)),
    max_ms: round(sorted.at(-1) ?? Number.NaN),
    asks_per_s: Math.round(timesMs.length / seconds),
  };
}

/** One service on a fresh database, mailing (or not) as `mode` says; every ask mails one person. */
async function measure(mode: Mode, smtpPort: number | null): Promise<Latency & { failed_rows_shown: number }> {
  const database = await freshDatabase(kind);
  const mail: Record<string, string> =
    smtpPort === null ? {} : { SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, MAIL_FROM: 'Desk <desk@example.org>' };
  const server = await startWork(database.url, CONNECTIONS, undefined, mail);
  const pool = new Pool(server.url, { connections: CONNECTIONS, pipelining: 1 });
  const call = async (method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) => {
    const answer = await pool.request({
      method,
      path,
      headers: { 'x-user': 'bench', ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await answer.body.text();
    if (answer.statusCode >= 400)
      throw new Error(`${method} ${path} answered ${answer.statusCode}: ${text.slice(0, 200)}`);
    return JSON.parse(text) as any;
  };
  try {
    await call('PUT', '/people/mia', { email: 'mia@example.org', notify: 'immediate' });
    const items: string[] = [];
    // Items first, untimed: only the asks are measured. A first tenth warms the server.
    const total = ASKS + Math.ceil(ASKS / 10);
    let made = 0;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (made < total) {
          made += 1;
          items.push((await call('POST', '/work', { type: 'bench_ask', description: 'asked', watchers: ['mia'] })).id);
        }
      }),
    );
    const ask = (item: string) => call('POST', `/work/${item}/questions`, { question: 'Still wanted?' });
    const warm = items.splice(0, total - ASKS);
    for (const item of warm) await ask(item);
    const times: number[] = [];
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (next < items.length) {
          const item = items[next++]!;
          const at = performance.now();
          await ask(item);
          times.push(performance.now() - at);
        }
      }),
    );
    const latency = summarise(times, (performance.now() - started) / 1000);
    // Retries are visible: the rows that failed so far (the first page, at most 200).
    const failed = (await call('GET', '/notifications?status=failed&limit=200')) as unknown[];
    process.stderr.write(`[bench:notify] ${mode}: p99 ${latency.p99_ms} ms\n`);
    return { ...latency, failed_rows_shown: failed.length };
  } finally {
    await pool.close();
    await server.stop();
  }
}

async function main(): Promise<void> {
  const silent = await startSilentServer();
  try {
    const results = {} as Record<Mode, Awaited<ReturnType<typeof measure>>>;
    results.no_mail = await measure('no_mail', null);
    results.smtp_hanging = await measure('smtp_hanging', silent.port);
    results.smtp_down = await measure('smtp_down', await closedPort());
    for (const mode of MODES) {
      process.stdout.write(
        `${JSON.stringify({
          bench: 'notify',
          db: kind,
          mode,
          asks: ASKS,
          connections: CONNECTIONS,
          ...results[mode],
          p99_ratio_to_no_mail: Math.round((results[mode].p99_ms / results.no_mail.p99_ms) * 100) / 100,
        })}\n`,
      );
    }
  } finally {
    await silent.close();
    await dropAll();
  }
}

runMain(main);
