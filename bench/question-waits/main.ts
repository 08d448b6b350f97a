import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { type BenchDbKind, dropAll, freshDatabase, parseDbKind } from '../lib/databases.js';
import { runMain } from '../lib/run-main.js';
import { startWork } from '../lib/servers.js';

// `npm run bench:question-waits [-- --db sqlite --waits 2000 --seconds 5]`: submits per second with no waits, then
// while --waits callers wait on open questions: a wait must cost nothing on commits that close no question.
// BENCH_SERVICES_MAIN measures another build the same way.

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    waits: { type: 'string', default: '2000' },
    seconds: { type: 'string', default: '5' },
  },
});
const kind: BenchDbKind = parseDbKind(args.db);
const WAITS = Number(args.waits);
const SECONDS = Number(args.seconds);
const WRITERS = 16;

async function main(): Promise<void> {
  const database = await freshDatabase(kind);
  const server = await startWork(database.url, WRITERS, undefined, { QUESTION_WAITS_PER_CALLER: String(WAITS + 1) });
  const pool = new Pool(server.url, { connections: WRITERS, pipelining: 1 });
  const waitPool = new Pool(server.url, { connections: WAITS + 1, pipelining: 1 });
  const call = async (p: Pool, method: 'GET' | 'POST', path: string, body?: unknown) => {
    const answer = await p.request({
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
  const submitsPerSecond = async (): Promise<number> => {
    const until = performance.now() + SECONDS * 1000;
    let done = 0;
    await Promise.all(
      Array.from({ length: WRITERS }, async () => {
        while (performance.now() < until) {
          await call(pool, 'POST', '/work', { type: 'bench_submit', description: 'a submit' });
          done += 1;
        }
      }),
    );
    return Math.round(done / SECONDS);
  };
  try {
    // A first round warms the server (JIT, caches), so the two measured rounds compare alike.
    await submitsPerSecond();
    const idle = await submitsPerSecond();
    process.stderr.write(`[bench:question-waits] ${idle} submits/s with no waits; asking ${WAITS} questions\n`);
    const questions: { item: string; question: string }[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: WRITERS }, async () => {
        while (next < WAITS) {
          next += 1;
          const item = await call(pool, 'POST', '/work', { type: 'bench_asked', description: 'asked about' });
          const question = await call(pool, 'POST', `/work/${item.id}/questions`, { question: 'Still wanted?' });
          questions.push({ item: item.id, question: question.id });
        }
      }),
    );
    const waits = questions.map(({ item, question }) =>
      call(waitPool, 'GET', `/work/${item}/questions/${question}?wait_s=30`).catch(() => null),
    );
    process.stderr.write(`[bench:question-waits] ${WAITS} questions asked; waiting for them\n`);
    // Every wait registered: the gauge counts them.
    for (;;) {
      const metrics = await (await pool.request({ method: 'GET', path: '/metrics' })).body.text();
      const waiting = Number(/agentdesk_work_answers_waiting (\d+)/.exec(metrics)?.[1] ?? 0);
      if (waiting >= WAITS) break;
      await new Promise((resume) => setTimeout(resume, 100));
    }
    const waited = await submitsPerSecond();
    process.stdout.write(
      `${JSON.stringify({ bench: 'question-waits', db: kind, waits: WAITS, submits_per_s_no_waits: idle, submits_per_s_with_waits: waited })}\n`,
    );
    await Promise.all(waits);
  } finally {
    await pool.close();
    await waitPool.close();
    await server.stop();
    await dropAll();
  }
}

runMain(main);
