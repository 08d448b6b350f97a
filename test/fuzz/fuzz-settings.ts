// How long and from where a fuzz run goes: FUZZ_RUNS cases (a few hundred in `npm test`),
// from FUZZ_SEED or a fresh seed, printed so that a failure can be replayed exactly:
//   npm run fuzz -- --seed <seed> --runs <runs>

import fc from 'fast-check';

export interface FuzzSettings {
  runs: number;
  /** FUZZ_RUNS as given (before `share`), which is what a replay passes again. */
  requested: number;
  seed: number;
  /** FUZZ_KEEP_GOING=1: run every case and report each distinct failure once, at the end. */
  keepGoing: boolean;
}

function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value)) throw new Error(`${name} must be an integer, not ${JSON.stringify(raw)}`);
  return value;
}

/** The seed of the cases `npm test` runs. */
const FIXED_SEED = 20_261_123;

/** `share` scales the run count for suites that should run fewer cases than the main one. */
export function fuzzSettings(defaultRuns: number, share = 1): FuzzSettings {
  const requested = positive('FUZZ_RUNS', defaultRuns);
  const runs = Math.max(1, Math.round(requested * share));
  // Seeds are 32-bit integers in fast-check. `npm test` uses one fixed seed, so CI judges every
  // change on the same cases; `npm run fuzz` explores with a fresh seed each run unless one is given.
  const fresh = (Date.now() ^ (Math.random() * 0x7fffffff)) | 0;
  const seed = positive('FUZZ_SEED', process.env.FUZZ_EXPLORE === '1' ? fresh : FIXED_SEED);
  return { runs, requested, seed, keepGoing: process.env.FUZZ_KEEP_GOING === '1' };
}

/** Runs `property` as fast-check does, printing the seed first (and again with any failure). */
/** `only`: the test file and -t filter that pick this one suite, for the replay line. */
export async function runFuzz<T>(
  label: string,
  only: string,
  settings: FuzzSettings,
  arbitrary: fc.Arbitrary<T>,
  check: (value: T) => Promise<void>,
): Promise<void> {
  const replay = `npm run fuzz -- --seed ${settings.seed} --runs ${settings.requested} ${only}`;
  console.log(`[fuzz] ${label}: ${settings.runs} cases, seed ${settings.seed} (replay: ${replay})`);
  try {
    // No shrinking: the server keeps its state between cases, so a smaller case would not
    // replay the same way; the failing request is printed whole instead.
    await fc.assert(fc.asyncProperty(arbitrary, check), {
      numRuns: settings.runs,
      seed: settings.seed,
      endOnFailure: true,
    });
  } catch (error) {
    (error as Error).message = `[fuzz] ${label} failed; replay: ${replay}\n${(error as Error).message}`;
    throw error;
  }
}
