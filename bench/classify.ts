import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { type BenchDbKind, freshDatabase, parseDbKind } from './databases.js';
import { measurePrepareHugeHtml, promptSizes } from './email-preparation.js';
import type { LoadResult } from './load.js';
import { type BenchServer, runLoad, startClassify, startClassifyCeiling, startFakeProvider } from './servers.js';
import { runMain } from './run-main.js';
import { Tally } from './tally.js';

// `npm run bench:classify [-- --db postgres]`: the classification service under load, as issue
// 3 asks. Every party is its own process, so none steals another's event loop: the service as
// `npm start` runs it, the tests' fake provider answering at once, the ceiling (bare Fastify
// parsing the same JSON and answering a fixed result) and one autocannon per run. Every request
// is a new email, so each one passes dedupe and reaches the provider. The ceiling and the service
// alternate in rounds, so drift on a shared machine hits both alike. Then, in process, the time
// to prepare a 5 MB HTML email and the prompt size of every fixture. JSON lines on stdout,
// progress on stderr.

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '2' },
    /** A folder: the classify servers run with --cpu-prof and leave their profiles there. */
    'cpu-prof': { type: 'string' },
    /** Only this case (fake_openai_provider or rules_provider), e.g. to profile one alone. */
    case: { type: 'string' },
  },
});

const kind = parseDbKind(args.db);
const DURATION_S = Number(args.duration);
const WARMUP_S = Number(args.warmup);
const CONNECTIONS = Number(args.connections);
const ROUNDS = Math.max(1, Number(args.rounds));

/** With the fake provider answering at once, the service must reach this share of the ceiling. */
const TARGET_RATIO = 0.5;

interface Case {
  name: 'fake_openai_provider' | 'rules_provider';
  provider: string;
  env(fake: BenchServer): Record<string, string>;
  /** What a correct answer looks like, checked once before the load. */
  expect(result: ClassifyAnswer): boolean;
}

interface ClassifyAnswer {
  category?: string;
  confidence?: number;
  dedupe?: { status?: string };
}

const CASES: readonly Case[] = [
  {
    name: 'fake_openai_provider',
    provider: 'openai SDK -> test/helpers/fake-llm.ts in its own process, answering at once',
    env: (fake) => ({ LLM_PROVIDER: 'openai', LLM_BASE_URL: `${fake.url}/v1`, LLM_API_KEY: 'bench-key' }),
    // The fake's default answer, so not the fallback a failed call would give.
    expect: (result) => result.category === 'action_required' && result.confidence === 0.92,
  },
  {
    name: 'rules_provider',
    provider: 'rules (offline)',
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

/** One request before the load: a service answering with the fallback would measure nothing. */
async function checkAnswers(service: BenchServer, benchCase: Case): Promise<void> {
  const response = await fetch(`${service.url}/classify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email_data: { subject: 'Please approve the Q3 budget by Friday', body: 'Could you approve it?' }, id: 'bench-check' }),
  });
  const result = (await response.json()) as ClassifyAnswer;
  if (!response.ok || !benchCase.expect(result) || result.dedupe?.status !== 'new') {
    throw new Error(`${benchCase.name}: unexpected answer ${response.status} ${JSON.stringify(result).slice(0, 500)}`);
  }
}

/** CPU the given processes used while one load run went on, beside its result. */
async function loadWithCpu(target: BenchServer, watched: BenchServer[]): Promise<{ result: LoadResult; cpuMs: number[] }> {
  const before = watched.map((server) => server.cpuMs());
  const result = await runLoad({ kind: 'classify', url: target.url, connections: CONNECTIONS, warmupS: 0, durationS: DURATION_S / ROUNDS });
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
  await checkAnswers(service, benchCase);
  progress(`${benchCase.name}: warm-up, then ceiling and service alternating in ${ROUNDS} round(s)`);
  // Apart from the measured runs, so the CPU counted below is for measured requests only.
  for (const server of [ceiling, service]) {
    await runLoad({ kind: 'classify', url: server.url, connections: CONNECTIONS, warmupS: 0, durationS: WARMUP_S });
  }
  const [bare, real] = [new Tally(), new Tally()];
  let [ceilingCpu, ceilingAnswered, serviceCpu, fakeCpu, answered] = [0, 0, 0, 0, 0];
  for (let slice = 0; slice < ROUNDS; slice += 1) {
    const bareRun = await loadWithCpu(ceiling, [ceiling]);
    bare.add([bareRun.result]);
    ceilingCpu += bareRun.cpuMs[0]!;
    ceilingAnswered += bareRun.result.ok;
    const realRun = await loadWithCpu(service, [service, fake]);
    real.add([realRun.result]);
    serviceCpu += realRun.cpuMs[0]!;
    fakeCpu += realRun.cpuMs[1]!;
    answered += realRun.result.ok;
  }
  // A service that died mid-run leaves only connection errors behind: say so instead.
  for (const [role, server] of [['service', service], ['fake provider', fake], ['ceiling', ceiling]] as const) {
    const ended = server.ended();
    if (ended) throw new Error(`${benchCase.name}: the ${role} stopped during the load, ${ended}`);
  }
  const warnings = service.outputLines();
  const peakRss = await service.stop();
  const shape = { connections: CONNECTIONS, duration_s: DURATION_S, rounds: ROUNDS, load_avg_1_5_15: loadBefore };

  const { value: ceilingRps, ...ceilingStats } = bare.summary();
  emit({
    case: 'ceiling_bare_fastify',
    paired_with: benchCase.name,
    ...shape,
    requests_per_sec: ceilingRps,
    ...ceilingStats,
    server_cpu_us_per_request: cpuPerRequest(ceilingCpu, ceilingAnswered),
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
    ...(benchCase.name === 'fake_openai_provider' && { target: TARGET_RATIO, met: ratio >= TARGET_RATIO }),
    server_cpu_us_per_request: cpuPerRequest(serviceCpu, answered),
    ...(benchCase.name === 'fake_openai_provider' && { fake_provider_cpu_us_per_request: cpuPerRequest(fakeCpu, answered) }),
    warnings_logged: warnings,
    peak_rss_mb: peakRss,
  });
}

async function main(): Promise<void> {
  emit({
    case: 'setup',
    server: 'node dist/src/main.js classify, LOG_LEVEL=warn',
    load_generator: 'autocannon in a child process per run; every request a new email',
    ceiling: 'bench/classify-ceiling-server.ts: bare Fastify, parses the same JSON body, answers a fixed result of the same shape',
    cpus: cpus().length,
    node: process.version,
    load_avg_1_5_15: loadAverage(),
  });
  const cases = CASES.filter((candidate) => args.case === undefined || candidate.name === args.case);
  if (cases.length === 0) throw new Error(`--case must be one of ${CASES.map((candidate) => candidate.name).join(', ')}`);
  const [fake, ceiling] = await Promise.all([startFakeProvider(), startClassifyCeiling()]);
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
