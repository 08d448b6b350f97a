import { type ChildProcess, execFile, fork } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { BENCH_DB_KINDS, type BenchDbKind, freshDatabase, parseDbKind } from '../lib/databases.js';
import type { AgentsReply, AgentsRequest, RateResult } from './waiters-agents.js';
import type { GraphileSpec } from './waiters-graphile.js';
import { round } from '../lib/queue-phase.js';
import { runMain } from '../lib/run-main.js';
import { type BenchServer, freePort, startNode, startWork } from '../lib/servers.js';

// `npm run bench:waiters [-- --db both|postgres|sqlite --agents 1000 --rates 50:500,500:2500 --idle-s 10]`: agents
// long-polling claims: the server's idle CPU and RSS per waiting agent, then submit → claimed latency per rate,
// beside graphile-worker (waiters-graphile.ts). See bench/README.md, Waiting agents.

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'both' },
    agents: { type: 'string', default: '1000' },
    rates: { type: 'string', default: '50:500,500:2500' },
    'idle-s': { type: 'string', default: '10' },
    workers: { type: 'string', default: '16' },
    anchor: { type: 'string', default: 'graphile-worker' },
    /** Another build's dist/src/main.js (the base of a change), run instead of this one. */
    main: { type: 'string' },
    /** A directory for the server's V8 CPU profile (written when it stops). */
    'cpu-prof': { type: 'string' },
  },
});

const kinds: BenchDbKind[] = args.db === 'both' ? ['postgres', 'sqlite'] : [parseDbKind(args.db)];
if (!['both', ...BENCH_DB_KINDS].includes(args.db)) process.exit(2);
const AGENTS = Number(args.agents);
const IDLE_S = Number(args['idle-s']);
const WORKERS = Number(args.workers);
const RATES = args.rates.split(',').map((pair) => {
  const [per_s, items] = pair.split(':').map(Number);
  return { per_s: per_s!, items: items! };
});
const TYPES = Array.from({ length: 10 }, (_, i) => `waiters_${i}`);
const AGENTS_MAIN = fileURLToPath(new URL('./waiters-agents.js', import.meta.url));
const GRAPHILE_MAIN = fileURLToPath(new URL('./waiters-graphile.js', import.meta.url));
const WARMUP = { per_s: 100, items: 300 };

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

function emit(line: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

/** USER_HZ: the unit of /proc/<pid>/stat times. */
const TICKS_PER_S = 100;

function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1_000) / TICKS_PER_S;
  } catch {
    return 0;
  }
}

function rssKb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) : Number.NaN;
}

/** The server's PostgreSQL backends: every connection named after its schema. */
async function backendPids(admin: pg.Client, schema: string): Promise<number[]> {
  const { rows } = await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [
    schema,
  ]);
  return rows.map((row) => row.pid);
}

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{}`));
  return line ? Number(line.split(' ').pop()) : Number.NaN;
}

async function until(what: string, check: () => Promise<boolean>, ms = 120_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function ask(child: ChildProcess, request: AgentsRequest): Promise<AgentsReply> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`the agents exited with ${code} during ${request.phase}`));
    child.once('exit', onExit);
    child.once('message', (reply: AgentsReply) => {
      child.off('exit', onExit);
      if ('error' in reply) reject(new Error(reply.error));
      else resolve(reply);
    });
    child.send(request);
  });
}

async function rate(fleet: ChildProcess, per_s: number, items: number): Promise<RateResult> {
  const reply = await ask(fleet, { phase: 'rate', per_s, items });
  if (!('result' in reply)) throw new Error('no rate result');
  return reply.result;
}

async function benchAgentdesk(kind: BenchDbKind): Promise<RateResult[]> {
  const database = await freshDatabase(kind);
  log(`${kind}: starting the work server and ${AGENTS} agents`);
  const server: BenchServer = args.main
    ? await startOther(args.main, database.url)
    : await startWork(database.url, 16, args['cpu-prof']);
  const admin = kind === 'postgres' ? new pg.Client({ connectionString: database.url.replace(/\?.*$/, '') }) : null;
  await admin?.connect();
  const fleet = fork(AGENTS_MAIN, [JSON.stringify({ url: server.url, agents: AGENTS, types: TYPES })], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const results: RateResult[] = [];
  try {
    const pids = admin && database.schema ? await backendPids(admin, database.schema) : [];
    const pgCpu = () => pids.reduce((sum, pid) => sum + cpuMsOf(pid), 0);
    // The same idle window with no agent at all: what the server does by itself (sweeps, polls).
    log(`${kind}: idle for ${IDLE_S} s with no agent`);
    const [alone0, alonePg0] = [server.cpuMs(), pgCpu()];
    await new Promise((resolve) => setTimeout(resolve, IDLE_S * 1_000));
    const [alone1, alonePg1] = [server.cpuMs(), pgCpu()];
    const rssBefore = rssKb(server.pid);
    await ask(fleet, { phase: 'start' });
    const allWaiting = () => metric(server.url, 'agentdesk_work_claims_waiting').then((n) => n === AGENTS);
    await until(`${AGENTS} waiting claims`, allWaiting);
    log(`${kind}: warm-up`);
    await rate(fleet, WARMUP.per_s, WARMUP.items);
    await until(`${AGENTS} waiting claims`, allWaiting);
    // Let the warm-up's last writes and the sweeps settle before the idle window.
    await new Promise((resolve) => setTimeout(resolve, 2_000));

    log(`${kind}: idle for ${IDLE_S} s with ${AGENTS} waiting`);
    // The backends opened since (the listener, the pool grown by the warm-up) count too.
    pids.splice(0, pids.length, ...(admin && database.schema ? await backendPids(admin, database.schema) : []));
    const [server0, pg0] = [server.cpuMs(), pgCpu()];
    await new Promise((resolve) => setTimeout(resolve, IDLE_S * 1_000));
    const [server1, pg1] = [server.cpuMs(), pgCpu()];
    const rssWaiting = rssKb(server.pid);
    emit({
      system: 'agentdesk',
      db: kind,
      phase: 'idle',
      waiting: await metric(server.url, 'agentdesk_work_claims_waiting'),
      seconds: IDLE_S,
      server_cpu_ms_per_s: round((server1 - server0) / IDLE_S),
      ...(admin && { postgres_cpu_ms_per_s: round((pg1 - pg0) / IDLE_S), postgres_backends: pids.length }),
      server_cpu_ms_per_s_no_agents: round((alone1 - alone0) / IDLE_S),
      ...(admin && { postgres_cpu_ms_per_s_no_agents: round((alonePg1 - alonePg0) / IDLE_S) }),
      rss_mb_before_agents: round(rssBefore / 1024, 1),
      rss_mb_waiting: round(rssWaiting / 1024, 1),
      rss_kb_per_waiting_agent: round((rssWaiting - rssBefore) / AGENTS, 1),
      note: 'CPU from /proc/<pid>/stat (10 ms ticks); RSS per agent: VmRSS with the agents waiting less before they came (warm-up included)',
    });

    for (const { per_s, items } of RATES) {
      log(`${kind}: ${items} items at ${per_s}/s`);
      const reads0 = await metric(server.url, 'agentdesk_work_claim_reads_total');
      const [cpu0, pgc0] = [server.cpuMs(), pgCpu()];
      const result = await rate(fleet, per_s, items);
      const [cpu1, pgc1] = [server.cpuMs(), pgCpu()];
      const reads1 = await metric(server.url, 'agentdesk_work_claim_reads_total');
      results.push(result);
      emit({
        system: 'agentdesk',
        db: kind,
        phase: 'rate',
        agents: AGENTS,
        ...result,
        claim_statements_per_item: round((reads1 - reads0) / items, 3),
        server_cpu_ms_per_item: round((cpu1 - cpu0) / items, 3),
        ...(admin && { postgres_cpu_ms_per_item: round((pgc1 - pgc0) / items, 3) }),
      });
      await until(`${AGENTS} waiting claims`, allWaiting);
    }
  } finally {
    fleet.send({ phase: 'stop' } satisfies AgentsRequest);
    await Promise.race([once(fleet, 'exit'), new Promise((resolve) => setTimeout(resolve, 5_000))]);
    fleet.kill('SIGKILL');
    await admin?.end();
    await server.stop();
  }
  return results;
}

/** `node <main> work` as startWork runs this build. */
async function startOther(main: string, databaseUrl: string): Promise<BenchServer> {
  const port = await freePort();
  return startNode(
    main,
    ['work'],
    { WORK_PORT: String(port), DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: '16', LOG_LEVEL: 'warn' },
    port,
  );
}

/** graphile-worker on a fresh schema; with `http`, its jobs come over HTTP from another process. */
async function benchGraphile(http: boolean): Promise<{ per_s: number; p50_ms: number; p99_ms: number }[]> {
  const database = await freshDatabase('postgres');
  log(`graphile-worker: ${WORKERS} workers${http ? ', jobs over HTTP' : ''}`);
  const spec: GraphileSpec = {
    url: database.url,
    schema: database.schema!,
    workers: WORKERS,
    warmup: WARMUP.items,
    rates: RATES,
    http,
  };
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      [GRAPHILE_MAIN, JSON.stringify(spec)],
      { maxBuffer: 16 * 1024 * 1024 },
      (error, out, err) => {
        if (error) reject(new Error(`${error.message}\n${err}`));
        else resolve(out);
      },
    );
  });
  const lines = stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { per_s: number; p50_ms: number; p99_ms: number });
  for (const line of lines) emit({ ...line, db: 'postgres', phase: 'rate' });
  return lines;
}

async function main(): Promise<void> {
  const ours = new Map<BenchDbKind, RateResult[]>();
  let anchor: { per_s: number; p99_ms: number }[] | null = null;
  let overHttp: { per_s: number; p99_ms: number }[] | null = null;
  for (const kind of kinds) {
    ours.set(kind, await benchAgentdesk(kind));
    if (kind === 'postgres' && args.anchor === 'graphile-worker') {
      anchor = await benchGraphile(false);
      overHttp = await benchGraphile(true);
    }
  }
  if (!anchor) return;
  for (const [kind, results] of ours) {
    for (const result of results) {
      const theirs = anchor.find((line) => line.per_s === result.per_s);
      if (!theirs) continue;
      emit({
        target: 'agentdesk p99 submit → claimed ≤ graphile-worker p99 addJob → task start',
        db: kind,
        per_s: result.per_s,
        agentdesk_p99_ms: result.p99_ms,
        graphile_worker_p99_ms: theirs.p99_ms,
        met: result.p99_ms <= theirs.p99_ms,
      });
      const http = overHttp?.find((line) => line.per_s === result.per_s);
      if (http) {
        emit({
          compare:
            'agentdesk p99 submit → claimed against graphile-worker p99 with its jobs POSTed over HTTP (informational)',
          db: kind,
          per_s: result.per_s,
          agentdesk_p99_ms: result.p99_ms,
          graphile_worker_over_http_p99_ms: http.p99_ms,
          ratio: round(result.p99_ms / http.p99_ms, 2),
        });
      }
    }
  }
}

runMain(main);
