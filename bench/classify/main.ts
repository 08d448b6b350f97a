import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { analyzeSchema, freshDatabase, parseDbKind, postgresAdminUrl } from '../lib/databases.js';
import { measurePrepareHugeHtml, promptSizes } from '../lib/email-preparation.js';
import { cpuTicks, StealMeter } from '../lib/host-steal.js';
import { DUPLICATE_EMAILS, duplicateBody, type LoadKind, type LoadResult } from '../lib/load.js';
import { type BenchServer, runLoad, startClassify, startFakeProvider } from '../lib/servers.js';
import { startClassifyCeiling } from './ceiling.js';
import { runMain } from '../lib/run-main.js';
import { Tally } from '../lib/tally.js';

// `npm run bench:classify [-- --db postgres --case <one case>]`: new emails, duplicates and the rules provider
// against a bare-Fastify ceiling making the same provider call, each party a process of its own, taking turns.
// Then, in process, a 5 MB email's preparation and each fixture's prompt size. See bench/README.md, Classification.

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '2' },
    /** A folder: the classify servers run with --cpu-prof and leave their profiles there. */
    'cpu-prof': { type: 'string' },
    /** Only this case (fake_openai_provider, fake_openai_duplicates or rules_provider), e.g. to profile one alone. */
    case: { type: 'string' },
  },
});

const kind = parseDbKind(args.db);
const DURATION_S = Number(args.duration);
const WARMUP_S = Number(args.warmup);
const CONNECTIONS = Number(args.connections);
const ROUNDS = Math.max(1, Number(args.rounds));

interface Case {
  name: 'fake_openai_provider' | 'fake_openai_duplicates' | 'rules_provider';
  provider: string;
  load: LoadKind;
  /** The share of the ceiling the targets ask for, where they ask for one. */
  target?: number;
  env(fake: BenchServer): Record<string, string>;
  /** What a correct answer looks like, checked once before the load. */
  expect(result: ClassifyAnswer): boolean;
}

interface ClassifyAnswer {
  category?: string;
  confidence?: number;
  dedupe?: { status?: string };
}

const fakeOpenAi = (fake: BenchServer) => ({
  LLM_PROVIDER: 'openai',
  LLM_BASE_URL: `${fake.url}/v1`,
  LLM_API_KEY: 'bench-key',
});
// The fake's default answer, so not the fallback a failed call would give.
const fakeAnswered = (result: ClassifyAnswer) => result.category === 'action_required' && result.confidence === 0.92;

const CASES: readonly Case[] = [
  {
    name: 'fake_openai_provider',
    provider: 'openai SDK -> test/support/fake-llm.ts in its own process, answering at once; every email new',
    load: 'classify',
    target: 0.5,
    env: fakeOpenAi,
    expect: fakeAnswered,
  },
  {
    name: 'fake_openai_duplicates',
    provider: `as above; ${DUPLICATE_EMAILS} emails classified once before the run, then sent again and again`,
    load: 'classify_duplicate',
    target: 2,
    env: fakeOpenAi,
    expect: fakeAnswered,
  },
  {
    name: 'rules_provider',
    provider: 'rules (offline); every email new',
    load: 'classify',
    env: () => ({ LLM_PROVIDER: 'rules' }),
    expect: (result) => result.category !== undefined && result.category !== 'uncategorized',
  },
];

function emit(line: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ bench: 'classify', db: kind, ...line })}\n`);
}

function progress(message: string): void {
  process.stderr.write(`[bench:classify ${kind}] ${message}\n`);
}

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
const loadAverage = () => loadavg().map((value) => round(value));

async function classifyOnce(service: BenchServer, body: string): Promise<{ status: number; result: ClassifyAnswer }> {
  const response = await fetch(`${service.url}/classify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  return { status: response.status, result: (await response.json()) as ClassifyAnswer };
}

/** The duplicate load's emails, each classified once, a few at a time. */
async function primeDuplicates(service: BenchServer): Promise<void> {
  const bodies = Array.from({ length: DUPLICATE_EMAILS }, (_, n) => duplicateBody(n));
  for (let at = 0; at < bodies.length; at += CONNECTIONS) {
    const answers = await Promise.all(bodies.slice(at, at + CONNECTIONS).map((body) => classifyOnce(service, body)));
    const failed = answers.find((answer) => answer.status !== 200 || answer.result.dedupe?.status !== 'new');
    if (failed)
      throw new Error(
        `priming duplicates: unexpected answer ${failed.status} ${JSON.stringify(failed.result).slice(0, 500)}`,
      );
  }
}

/** One request before the load: a service answering with the fallback would measure nothing. */
async function checkAnswers(service: BenchServer, benchCase: Case): Promise<void> {
  const duplicate = benchCase.load === 'classify_duplicate';
  const body = duplicate
    ? duplicateBody(0)
    : JSON.stringify({
        email_data: { subject: 'Please approve the Q3 budget by Friday', body: 'Could you approve it?' },
        id: 'bench-check',
      });
  const { status, result } = await classifyOnce(service, body);
  if (status !== 200 || !benchCase.expect(result) || result.dedupe?.status !== (duplicate ? 'duplicate' : 'new')) {
    throw new Error(`${benchCase.name}: unexpected answer ${status} ${JSON.stringify(result).slice(0, 500)}`);
  }
}

/** CPU the given processes used while one load run went on, beside its result. */
async function loadWithCpu(
  target: BenchServer,
  load: LoadKind,
  watched: BenchServer[],
  steal: StealMeter,
): Promise<{ result: LoadResult; cpuMs: number[] }> {
  const before = watched.map((server) => server.cpuMs());
  const ticks = cpuTicks();
  const result = await runLoad({
    kind: load,
    url: target.url,
    connections: CONNECTIONS,
    warmupS: 0,
    durationS: DURATION_S / ROUNDS,
  });
  steal.add(ticks, cpuTicks());
  return { result, cpuMs: watched.map((server, index) => server.cpuMs() - before[index]!) };
}

/**
 * Microseconds of CPU per answered request. Other load on the machine moves it less than it
 * moves requests/s (a process waiting for a core uses none), though caches and clock speed still do.
 */
const cpuPerRequest = (cpuMs: number, requests: number) => Math.round((cpuMs * 1_000) / requests);

async function measure(benchCase: Case, ceiling: BenchServer, fake: BenchServer): Promise<void> {
  const database = await freshDatabase(kind);
  const service = await startClassify(database.url, benchCase.env(fake), args['cpu-prof']);
  const loadBefore = loadAverage();
  if (benchCase.load === 'classify_duplicate') await primeDuplicates(service);
  await checkAnswers(service, benchCase);
  progress(`${benchCase.name}: warm-up, then ceiling and service alternating in ${ROUNDS} round(s)`);
  // Apart from the measured runs, so the CPU counted below is for measured requests only.
  await runLoad({ kind: 'classify', url: ceiling.url, connections: CONNECTIONS, warmupS: 0, durationS: WARMUP_S });
  await runLoad({ kind: benchCase.load, url: service.url, connections: CONNECTIONS, warmupS: 0, durationS: WARMUP_S });
  // Statistics, as autovacuum keeps them on a desk that has run a while: planned against tables
  // it still takes for empty, PostgreSQL scans the whole dedupe table for each batch.
  if (database.schema) await analyzeSchema(postgresAdminUrl(), database.schema);
  const [bare, real] = [new Tally(), new Tally()];
  const [bareSteal, realSteal] = [new StealMeter(), new StealMeter()];
  let [ceilingCpu, ceilingFakeCpu, ceilingAnswered, serviceCpu, fakeCpu, answered] = [0, 0, 0, 0, 0, 0];
  for (let slice = 0; slice < ROUNDS; slice += 1) {
    const bareRun = await loadWithCpu(ceiling, 'classify', [ceiling, fake], bareSteal);
    bare.add([bareRun.result]);
    ceilingCpu += bareRun.cpuMs[0]!;
    ceilingFakeCpu += bareRun.cpuMs[1]!;
    ceilingAnswered += bareRun.result.ok;
    const realRun = await loadWithCpu(service, benchCase.load, [service, fake], realSteal);
    real.add([realRun.result]);
    serviceCpu += realRun.cpuMs[0]!;
    fakeCpu += realRun.cpuMs[1]!;
    answered += realRun.result.ok;
  }
  // A service that died mid-run leaves only connection errors behind: say so instead.
  for (const [role, server] of [
    ['service', service],
    ['fake provider', fake],
    ['ceiling', ceiling],
  ] as const) {
    const ended = server.ended();
    if (ended) throw new Error(`${benchCase.name}: the ${role} stopped during the load, ${ended}`);
  }
  const warnings = service.outputLines();
  const peakRss = await service.stop();
  const shape = { connections: CONNECTIONS, duration_s: DURATION_S, rounds: ROUNDS, load_avg_1_5_15: loadBefore };

  const { value: ceilingRps, ...ceilingStats } = bare.summary();
  emit({
    case: 'ceiling_bare_sdk_route',
    paired_with: benchCase.name,
    ...shape,
    requests_per_sec: ceilingRps,
    ...ceilingStats,
    server_cpu_us_per_request: cpuPerRequest(ceilingCpu, ceilingAnswered),
    fake_provider_cpu_us_per_request: cpuPerRequest(ceilingFakeCpu, ceilingAnswered),
    host_steal_pct: bareSteal.percent(),
  });
  const { value: rps, ...stats } = real.summary();
  const ratio = round(rps / ceilingRps);
  emit({
    case: benchCase.name,
    provider: benchCase.provider,
    ...shape,
    requests_per_sec: rps,
    ...stats,
    ratio_to_ceiling: ratio,
    ...(benchCase.target !== undefined && { target: benchCase.target, met: ratio >= benchCase.target }),
    server_cpu_us_per_request: cpuPerRequest(serviceCpu, answered),
    ...(benchCase.name !== 'rules_provider' && { fake_provider_cpu_us_per_request: cpuPerRequest(fakeCpu, answered) }),
    host_steal_pct: realSteal.percent(),
    warnings_logged: warnings,
    peak_rss_mb: peakRss,
  });
}

async function main(): Promise<void> {
  emit({
    case: 'setup',
    server: 'node dist/src/main.js classify, LOG_LEVEL=warn',
    load_generator:
      'autocannon in a child process per run; new emails, or duplicates of emails classified before the run',
    ceiling:
      'bench/classify/classify-ceiling-server.ts: bare Fastify, the same official-SDK call to the same fake provider, its answer returned (no email parsing, no database)',
    cpus: cpus().length,
    node: process.version,
    load_avg_1_5_15: loadAverage(),
  });
  const cases = CASES.filter((candidate) => args.case === undefined || candidate.name === args.case);
  if (cases.length === 0)
    throw new Error(`--case must be one of ${CASES.map((candidate) => candidate.name).join(', ')}`);
  const fake = await startFakeProvider();
  const ceiling = await startClassifyCeiling(`${fake.url}/v1`);
  try {
    for (const benchCase of cases) await measure(benchCase, ceiling, fake);
  } finally {
    await Promise.all([fake.stop(), ceiling.stop()]);
  }

  progress('preparing a 5 MB HTML email');
  emit({ case: 'prepare_5mb_html', ...measurePrepareHugeHtml() });
  for (const size of promptSizes()) emit({ case: 'prompt_size', ...size });
  emit({ case: 'done', load_avg_1_5_15: loadAverage() });
}

runMain(main);
