import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { BENCH_DB_KINDS, type BenchDbKind, freshDatabase, parseDbKind } from '../lib/databases.js';
import { round } from '../lib/queue-phase.js';
import { runMain } from '../lib/run-main.js';
import { type BenchServer, startWork } from '../lib/servers.js';

// `npm run bench:conversation [-- --db sqlite|postgres|both --comments 10000 --reads 400 --questions 200]`: a long
// timeline's pages against a short one's, and an answer's time to the agent waiting on it (on PostgreSQL also
// across two instances). The service runs as `npm start` runs it; see bench/README.md, Conversation.

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'both' },
    comments: { type: 'string', default: '10000' },
    reads: { type: 'string', default: '400' },
    questions: { type: 'string', default: '200' },
    /** How long the waiter's request is given to reach its wait before the answer is sent. */
    'settle-ms': { type: 'string', default: '25' },
  },
});

const kinds: BenchDbKind[] = args.db === 'both' ? [...BENCH_DB_KINDS] : [parseDbKind(args.db)];
const MANY = positive('comments');
const FEW = 10;
const READS = positive('reads');
const QUESTIONS = positive('questions');
const SETTLE_MS = Number(args['settle-ms']);
const LIST_TARGET = 2;
const WRITERS = 16;

function positive(name: 'comments' | 'reads' | 'questions'): number {
  const value = Number(args[name]);
  if (Number.isInteger(value) && value > 0) return value;
  process.stderr.write(`--${name} must be a positive integer\n`);
  process.exit(2);
}

function emit(line: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ bench: 'conversation', ...line })}\n`);
}

function progress(message: string): void {
  process.stderr.write(`[bench:conversation] ${message}\n`);
}

function percentiles(times: number[]) {
  const sorted = Float64Array.from(times).sort();
  const at = (fraction: number) => round(sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN);
  return { n: sorted.length, p50_ms: at(0.5), p90_ms: at(0.9), p99_ms: at(0.99), max_ms: at(1) };
}

/** A JSON client of one instance, as one caller (X-User: AUTH=off names the caller so). */
function clientOf(server: BenchServer, connections = WRITERS) {
  const pool = new Pool(server.url, { connections, pipelining: 1 });
  async function call<T = any>(
    method: 'GET' | 'POST' | 'PATCH',
    path: string,
    user: string,
    body?: unknown,
  ): Promise<{ status: number; body: T; link: string | null }> {
    const answer = await pool.request({
      method,
      path,
      headers: { 'x-user': user, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await answer.body.text();
    if (answer.statusCode >= 400)
      throw new Error(`${method} ${path} answered ${answer.statusCode}: ${text.slice(0, 300)}`);
    const link = answer.headers.link;
    return {
      status: answer.statusCode,
      body: (text === '' ? undefined : JSON.parse(text)) as T,
      link: typeof link === 'string' ? link : null,
    };
  }
  return { call, close: () => pool.close() };
}
type BenchClient = ReturnType<typeof clientOf>;

async function submit(client: BenchClient, extra: Record<string, unknown> = {}): Promise<{ id: string }> {
  return (
    await client.call('POST', '/work', 'bench-person', { type: 'bench_talk', description: 'A conversation', ...extra })
  ).body;
}

async function addComments(client: BenchClient, id: string, count: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      while (next < count) {
        next += 1;
        await client.call('POST', `/work/${id}/comments`, 'bench-person', {
          body: `Comment ${next}: progress on the item, with a line or two of detail.`,
        });
      }
    }),
  );
}

/** The path of the last page of an item's comments, found by following `Link: rel="next"`. */
async function lastPage(client: BenchClient, id: string): Promise<{ path: string; pages: number }> {
  let path = `/work/${id}/comments`;
  let pages = 1;
  for (;;) {
    const { link } = await client.call('GET', path, 'bench-person');
    const match = link ? /<([^>]*)>\s*;\s*rel="?next"?/.exec(link) : null;
    if (!match) return { path, pages };
    const url = new URL(match[1] as string, 'http://agentdesk.invalid');
    path = url.pathname + url.search;
    pages += 1;
  }
}

async function benchCommentsList(kind: BenchDbKind): Promise<void> {
  progress(`${kind}: comments list, an item with ${FEW} comments and one with ${MANY}`);
  const database = await freshDatabase(kind);
  const server = await startWork(database.url, WRITERS);
  const client = clientOf(server);
  try {
    const few = await submit(client);
    const many = await submit(client);
    await addComments(client, few.id, FEW);
    const began = performance.now();
    await addComments(client, many.id, MANY);
    emit({
      metric: 'comment_writes_per_s',
      db: kind,
      comments: MANY,
      writers: WRITERS,
      per_s: Math.round(MANY / ((performance.now() - began) / 1000)),
    });
    const deep = await lastPage(client, many.id);
    // The default page (50) of the long timeline carries more comments than the whole short one;
    // `first_10_many` reads a page of the short one's size, so that only the table's size differs.
    const paths = {
      first_page_few: `/work/${few.id}/comments`,
      first_page_many: `/work/${many.id}/comments`,
      first_10_many: `/work/${many.id}/comments?limit=${FEW}`,
      last_page_many: deep.path,
    };
    const times: Record<keyof typeof paths, number[]> = {
      first_page_few: [],
      first_page_many: [],
      first_10_many: [],
      last_page_many: [],
    };
    // Warm-up, then one of each in turn, one at a time.
    for (let i = 0; i < 50; i += 1)
      for (const path of Object.values(paths)) await client.call('GET', path, 'bench-person');
    for (let i = 0; i < READS; i += 1) {
      for (const [name, path] of Object.entries(paths) as Array<[keyof typeof paths, string]>) {
        const start = performance.now();
        await client.call('GET', path, 'bench-person');
        times[name].push(performance.now() - start);
      }
    }
    const stats = Object.fromEntries(Object.entries(times).map(([name, list]) => [name, percentiles(list)])) as Record<
      keyof typeof paths,
      ReturnType<typeof percentiles>
    >;
    for (const [name, figures] of Object.entries(stats))
      emit({ metric: 'comments_list_ms', db: kind, case: name, ...figures });
    const ratio = round(
      Math.max(stats.first_page_many.p50_ms, stats.last_page_many.p50_ms) / stats.first_page_few.p50_ms,
    );
    emit({
      metric: 'comments_list_ratio',
      db: kind,
      comments: MANY,
      pages_at_many: deep.pages,
      p50_few_ms: stats.first_page_few.p50_ms,
      p50_many_first_ms: stats.first_page_many.p50_ms,
      p50_many_first_10_ms: stats.first_10_many.p50_ms,
      p50_many_last_ms: stats.last_page_many.p50_ms,
      ratio,
      target: `<= ${LIST_TARGET}`,
      met: ratio <= LIST_TARGET,
    });
  } finally {
    await client.close();
    await server.stop();
  }
}

/**
 * One question: the agent claims an item, asks, waits on `waitOn`; the person answers on
 * `answerOn` once the wait has had SETTLE_MS to begin. Answers the time from sending the answer
 * to the waiter's response, and the answer's own round trip.
 */
async function oneQuestion(waitOn: BenchClient, answerOn: BenchClient): Promise<{ wake: number; answer: number }> {
  const item = await submit(waitOn);
  const claimed = await waitOn.call('POST', '/work/claim', 'bench-agent', {
    agent: 'bench-agent',
    types: ['bench_talk'],
  });
  if (claimed.status !== 200 || claimed.body.id !== item.id)
    throw new Error(`the claim took ${JSON.stringify(claimed.body)} rather than ${item.id}`);
  const asked = await waitOn.call('POST', `/work/${item.id}/questions`, 'bench-agent', {
    question: 'Refund or replace?',
    options: ['refund', 'replace'],
  });
  let woke = 0;
  const waiting = waitOn
    .call('GET', `/work/${item.id}/questions/${asked.body.id}?wait_s=30`, 'bench-agent')
    .then((answer) => {
      woke = performance.now();
      return answer;
    });
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const sent = performance.now();
  await answerOn.call('POST', `/work/${item.id}/questions/${asked.body.id}/answer`, 'bench-person', {
    option: 'refund',
  });
  const acknowledged = performance.now();
  const waited = await waiting;
  if (waited.body.status !== 'answered') throw new Error(`the wait ended with the question ${waited.body.status}`);
  // The agent's turn is over: the item completes, so that nothing is left held.
  await waitOn.call('PATCH', `/work/${item.id}`, 'bench-agent', { status: 'completed', outcome: 'success' });
  return { wake: woke - sent, answer: acknowledged - sent };
}

async function benchAnswerWake(kind: BenchDbKind): Promise<void> {
  const across = kind === 'postgres';
  progress(
    `${kind}: answer → the waiting agent, ${QUESTIONS} questions${across ? ' on one instance and across two' : ''}`,
  );
  const database = await freshDatabase(kind);
  const first = await startWork(database.url, 8);
  const second = across ? await startWork(database.url, 8) : null;
  const a = clientOf(first, 4);
  const b = second ? clientOf(second, 4) : null;
  const cases: Array<{ name: string; waitOn: BenchClient; answerOn: BenchClient; wake: number[]; answer: number[] }> = [
    { name: 'same_instance', waitOn: a, answerOn: a, wake: [], answer: [] },
    ...(b ? [{ name: 'across_instances', waitOn: a, answerOn: b, wake: [], answer: [] }] : []),
  ];
  try {
    for (let i = 0; i < 10; i += 1) for (const each of cases) await oneQuestion(each.waitOn, each.answerOn);
    for (let i = 0; i < QUESTIONS; i += 1) {
      for (const each of cases) {
        const { wake, answer } = await oneQuestion(each.waitOn, each.answerOn);
        each.wake.push(wake);
        each.answer.push(answer);
      }
    }
    for (const each of cases) {
      emit({
        metric: 'answer_to_waiter_ms',
        db: kind,
        case: each.name,
        ...percentiles(each.wake),
        answer_round_trip_p50_ms: percentiles(each.answer).p50_ms,
      });
    }
  } finally {
    await a.close();
    await b?.close();
    await first.stop();
    await second?.stop();
  }
}

async function main(): Promise<void> {
  emit({
    metric: 'setup',
    stores: kinds,
    comments: MANY,
    reads: READS,
    questions: QUESTIONS,
    settle_ms: SETTLE_MS,
    server: 'node dist/src/main.js work, AUTH=off, LOG_LEVEL=warn',
    cpus: cpus().length,
    loadavg_1m: round(loadavg()[0] ?? Number.NaN),
    node: process.version,
  });
  for (const kind of kinds) {
    await benchCommentsList(kind);
    await benchAnswerWake(kind);
  }
}

runMain(main);
