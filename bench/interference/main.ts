import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { freshDatabase, parseDbKind } from '../lib/databases.js';
import { percentiles, runProbe } from '../../test/support/latency-probe.js';
import type { LoadSpec } from '../lib/load.js';
import { PROBE_MAIN, SERVICES_MAIN, runLoad, startDesk, startFakeProvider } from '../lib/servers.js';
import { runMain } from '../lib/run-main.js';

// `npm run bench:interference [-- --db postgres --main <older build>/src/main.js]`: GET /work?limit=100 at 50/s from
// a probe process while idle, while two clients loop 5 MB HTML emails, and while 300 classifications are in flight,
// both services as `npm start` runs them.

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    duration: { type: 'string', default: '10' },
    /** The main.js to start, e.g. a copy of an older build to measure "before". */
    main: { type: 'string' },
    /** Only this phase: idle, huge_emails or concurrent_300. */
    phase: { type: 'string' },
  },
});

const kind = parseDbKind(args.db);
const DURATION_S = Number(args.duration);
const MAIN = args.main ? resolve(args.main) : SERVICES_MAIN;
const PROBE_RATE_PER_S = 50;
const PROBE_PATH = '/work?limit=100';
const SEED_ITEMS = 500;

interface Phase {
  name: 'idle' | 'huge_emails' | 'concurrent_300';
  load: Pick<LoadSpec, 'kind' | 'connections'> | null;
}

const PHASES: readonly Phase[] = [
  { name: 'idle', load: null },
  { name: 'huge_emails', load: { kind: 'classify_huge', connections: 2 } },
  { name: 'concurrent_300', load: { kind: 'classify', connections: 300 } },
];

function emit(line: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ bench: 'interference', db: kind, ...line })}\n`);
}

function progress(message: string): void {
  process.stderr.write(`[bench:interference ${kind}] ${message}\n`);
}

const round = (value: number) => Math.round(value * 100) / 100;

async function seed(workUrl: string): Promise<void> {
  for (let at = 0; at < SEED_ITEMS; at += 50) {
    await Promise.all(
      Array.from({ length: 50 }, (_, n) =>
        fetch(`${workUrl}/work`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ type: 'bench', description: `seed item ${at + n}`, priority: 3 }),
        }).then((response) => response.arrayBuffer()),
      ),
    );
  }
}

async function waitHealthy(url: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    try {
      if ((await fetch(`${url}/health`)).ok) return;
    } catch {
      // not yet
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`${url} did not become healthy`);
}

async function main(): Promise<void> {
  emit({
    case: 'setup',
    main: MAIN,
    probe: `GET ${PROBE_PATH} at ${PROBE_RATE_PER_S}/s, ${SEED_ITEMS} items`,
    duration_s: DURATION_S,
    load_avg_1_5_15: loadavg().map(round),
  });
  const fake = await startFakeProvider();
  const database = await freshDatabase(kind);
  const desk = await startDesk(MAIN, database.url, {
    LLM_PROVIDER: 'openai',
    LLM_BASE_URL: `${fake.url}/v1`,
    LLM_API_KEY: 'bench-key',
    // One load generator is one caller: let its 300 calls through rather than measure 429s.
    LLM_CONCURRENCY: '300',
  });
  try {
    await waitHealthy(desk.classifyUrl);
    await seed(desk.server.url);
    for (const phase of PHASES.filter((candidate) => args.phase === undefined || candidate.name === args.phase)) {
      progress(phase.name);
      // The load starts first and runs a second longer on each side, so the probe sees only steady load.
      const loading = phase.load
        ? runLoad({ ...phase.load, url: desk.classifyUrl, warmupS: 0, durationS: DURATION_S + 2 })
        : Promise.resolve(null);
      await new Promise((done) => setTimeout(done, 1_000));
      const probe = await runProbe(PROBE_MAIN, `${desk.server.url}${PROBE_PATH}`, PROBE_RATE_PER_S, DURATION_S * 1_000);
      const load = await loading;
      emit({
        case: phase.name,
        get_work: {
          ...percentiles(probe.timesMs),
          answered: probe.timesMs.length,
          non_2xx: probe.non2xx,
          errors: probe.errors,
        },
        ...(load && {
          classify: {
            answered_per_s: Math.round(load.ok / load.durationS),
            non_2xx: load.non2xx,
            errors: load.errors,
            status_codes: load.statusCodes,
          },
        }),
        load_avg_1_5_15: loadavg().map(round),
      });
      const ended = desk.server.ended();
      if (ended) throw new Error(`the services stopped during ${phase.name}: ${ended}`);
    }
  } finally {
    await desk.server.stop();
    await fake.stop();
  }
}

runMain(main);
