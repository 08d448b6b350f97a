import { parseArgs } from 'node:util';
import { type BenchDbKind, freshDatabase, parseDbKind } from '../lib/databases.js';
import { runMain } from '../lib/run-main.js';
import { startWork } from '../lib/servers.js';

// `npm run bench:plan [-- --db postgres]`: how long one POST /work/plans at a plan's limits holds the database, and
// how long an unrelated submit sent meanwhile waits (on SQLite the plan holds the only writer).

const JSON_HEADERS = { 'content-type': 'application/json' };

async function timed(url: string, path: string, body: unknown): Promise<number> {
  const start = performance.now();
  const response = await fetch(`${url}${path}`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(body) });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return performance.now() - start;
}

/** `steps` steps, each depending on up to `perStep` of the steps before it. */
function planOf(steps: number, perStep: number) {
  const keys = Array.from({ length: steps }, (_, i) => `s${i}`);
  return {
    parent: { type: 'bench_plan', description: 'a plan at the limits' },
    steps: keys.map((key, i) => ({
      key,
      type: 'bench_step',
      description: `step ${i}`,
      depends_on_keys: keys.slice(Math.max(0, i - perStep), i),
    })),
  };
}

const SHAPES = [
  { name: '200 steps, none depending', steps: 200, perStep: 0 },
  { name: '200 steps, each on the 10 before', steps: 200, perStep: 10 },
  { name: '65 steps, each on up to the 50 before', steps: 65, perStep: 50 },
] as const;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round1 = (value: number) => Math.round(value * 10) / 10;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { db: { type: 'string', default: 'sqlite' }, rounds: { type: 'string', default: '7' } },
  });
  const kind: BenchDbKind = parseDbKind(values.db);
  const rounds = Number(values.rounds);
  const database = await freshDatabase(kind);
  const server = await startWork(database.url, 5);
  try {
    for (const shape of SHAPES) {
      const body = planOf(shape.steps, shape.perStep);
      const plan: number[] = [];
      const probe: number[] = [];
      // The first round warms the server up and is not counted.
      for (let round = 0; round <= rounds; round += 1) {
        const [planMs, probeMs] = await Promise.all([
          timed(server.url, '/work/plans', body),
          new Promise((resolve) => setTimeout(resolve, 5)).then(() =>
            timed(server.url, '/work', { type: 'bench_probe', description: 'unrelated' }),
          ),
        ]);
        if (round === 0) continue;
        plan.push(planMs);
        probe.push(probeMs);
      }
      const dependencies = body.steps.reduce((sum, step) => sum + step.depends_on_keys.length, 0);
      process.stdout.write(
        `${JSON.stringify({ bench: 'plan', db: kind, shape: shape.name, steps: shape.steps, dependencies, rounds, plan_ms_median: round1(median(plan)), plan_ms_max: round1(Math.max(...plan)), unrelated_submit_ms_median: round1(median(probe)), unrelated_submit_ms_max: round1(Math.max(...probe)) })}\n`,
      );
    }
  } finally {
    await server.stop();
  }
}

runMain(main);
