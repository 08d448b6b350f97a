import { parseArgs } from 'node:util';
import { type Dovecot, startDovecot } from '../../test/support/dovecot.js';
import { mail } from '../../test/support/mail.js';
import { freshDatabase, parseDbKind, BENCH_DB_KINDS, type BenchDbKind } from '../lib/databases.js';
import { runMain } from '../lib/run-main.js';
import { type BenchServer, SERVICES_MAIN, freePort, startNode } from '../lib/servers.js';

// `npm run bench:intake [-- --db sqlite|postgres|both --messages 2000]`: messages per second from a throwaway
// dovecot (filled untimed) to work items with the rules classifier, GET /work timed meanwhile.
// Needs dovecot (/usr/sbin/dovecot) and root (its maildirs).

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'both' },
    messages: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '8' },
    /** A folder: the work server runs with --cpu-prof and leaves its profile there. */
    'cpu-prof': { type: 'string' },
  },
});

const MESSAGES = Number(args.messages);
const TARGET_PER_S = 200;
const PASSWORD = 'bench-intake-password';
const SECRET_KEY = 'b'.repeat(64);

function emit(line: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ bench: 'intake', ...line })}\n`);
}

function progress(kind: string, message: string): void {
  process.stderr.write(`[bench:intake ${kind}] ${message}\n`);
}

function messages(kind: string): string[] {
  const all: string[] = [];
  for (let n = 1; n <= MESSAGES; n += 1) {
    all.push(
      n % 2 === 1
        ? mail({
            from: 'Dana Swope <dana@contoso.com>',
            subject: `Please approve purchase order ${n}`,
            text: `Hi, could you approve purchase order ${n} by Friday? Thanks, Dana`,
            messageId: `<bench-${kind}-${n}@contoso.com>`,
          })
        : mail({
            from: 'Weekly Digest <news@digest.example.com>',
            subject: `Weekly newsletter #${n}`,
            html: `<h1>This week</h1><p>Top stories, issue ${n}.</p><a href="https://digest.example.com/unsubscribe">Unsubscribe</a>`,
            messageId: `<bench-${kind}-${n}@digest.example.com>`,
            headers: {
              'List-Unsubscribe': '<https://digest.example.com/unsubscribe>',
              'List-Id': 'Weekly <weekly.digest.example.com>',
            },
          }),
    );
  }
  return all;
}

function percentiles(times: number[]): Record<string, number> {
  const sorted = Float64Array.from(times).sort();
  const at = (fraction: number) =>
    Math.round((sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN) * 10) / 10;
  return { samples: sorted.length, p50: at(0.5), p99: at(0.99), max: at(1) };
}

async function json(url: string, init?: RequestInit): Promise<any> {
  const response = await fetch(url, init);
  const body = await response.json();
  if (!response.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

/** The sum of a counter's series in the Prometheus text (all label sets). */
function metricSum(text: string, name: string): number {
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`))
      total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

/** Transactions the service ran, and on SQLite the commits (fsyncs) they shared. */
async function databaseCounts(url: string): Promise<{ transactions: number; commits: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return {
    transactions: metricSum(text, 'agentdesk_db_transaction_duration_seconds_count'),
    commits: metricSum(text, 'agentdesk_db_group_commit_batch_size_count'),
  };
}

async function runOne(kind: BenchDbKind, dovecot: Dovecot): Promise<void> {
  const user = `bench-${kind}`;
  progress(kind, `appending ${MESSAGES} messages`);
  const all = messages(kind);
  for (let start = 0; start < MESSAGES; start += 500) await dovecot.append(user, all.slice(start, start + 500));
  const database = await freshDatabase(kind);
  const port = await freePort();
  const server: BenchServer = await startNode(
    SERVICES_MAIN,
    ['work'],
    {
      WORK_PORT: String(port),
      DATABASE_URL: database.url,
      LOG_LEVEL: 'warn',
      LLM_PROVIDER: 'rules',
      AGENTDESK_SECRET_KEY: SECRET_KEY,
      INTAKE_CONCURRENCY: args.concurrency,
      // The bench's dovecot listens on loopback, which a mailbox may use only when listed.
      INTAKE_ALLOWED_HOSTS: dovecot.host,
    },
    port,
    args['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', args['cpu-prof']] : [],
  );
  try {
    const countsBefore = await databaseCounts(server.url);
    const cpuBefore = server.cpuMs();
    const started = performance.now();
    const mailbox = await json(`${server.url}/mailboxes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'bench',
        kind: 'imap',
        host: dovecot.host,
        port: dovecot.port,
        tls: 'none',
        username: user,
        password: PASSWORD,
        since: new Date(Date.now() - 86_400_000).toISOString(),
      }),
    });
    const api: number[] = [];
    let seen = 0;
    let lastReport = started;
    while (seen < MESSAGES) {
      const asked = performance.now();
      await json(`${server.url}/work?limit=10`);
      api.push(performance.now() - asked);
      const state = await json(`${server.url}/mailboxes/${mailbox.id}`);
      seen = state.counts.seen;
      if (state.state === 'error') throw new Error(`the mailbox failed: ${state.last_error}`);
      if (performance.now() - lastReport > 2_000) {
        lastReport = performance.now();
        progress(kind, `${seen}/${MESSAGES} (backfill ${state.backfill.done}/${state.backfill.total})`);
      }
      if (server.ended()) throw new Error(`the service ended: ${server.ended()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const seconds = (performance.now() - started) / 1_000;
    const final = await json(`${server.url}/mailboxes/${mailbox.id}`);
    const cpu = server.cpuMs() - cpuBefore;
    const counts = await databaseCounts(server.url);
    const perMessage = (value: number) => Math.round((value / MESSAGES) * 100) / 100;
    emit({
      db: kind,
      messages: MESSAGES,
      concurrency: Number(args.concurrency),
      seconds: Math.round(seconds * 100) / 100,
      msgs_per_s: Math.round(MESSAGES / seconds),
      target_msgs_per_s: TARGET_PER_S,
      met: MESSAGES / seconds >= TARGET_PER_S,
      items_created: final.counts.items_created,
      failed: final.counts.failed,
      service_cpu_ms_per_msg: Math.round((cpu / MESSAGES) * 100) / 100,
      // Through the database handle's runner (dedupe's and intake's); SQLite: and their commits.
      transactions_per_msg: perMessage(counts.transactions - countsBefore.transactions),
      ...(kind === 'sqlite' && { commits_per_msg: perMessage(counts.commits - countsBefore.commits) }),
      api_get_work_ms: percentiles(api),
      peak_rss_mb: server.peakRssMb(),
    });
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const kinds: BenchDbKind[] = args.db === 'both' ? [...BENCH_DB_KINDS] : [parseDbKind(args.db)];
  const dovecot = await startDovecot({ password: PASSWORD });
  try {
    for (const kind of kinds) await runOne(kind, dovecot);
  } finally {
    await dovecot.close();
  }
}

runMain(main);
