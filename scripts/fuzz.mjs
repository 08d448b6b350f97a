// `npm run fuzz -- --runs 20000 [--seed N] [--keep-going] [vitest options]`: the fuzz suites of
// test/fuzz with as many cases as asked, on both stores, AUTH=off and AUTH=tokens (a quarter of
// the runs). The seed is printed at the start of each suite; `--seed` replays one.
// `--keep-going` runs every case and reports each distinct failure once, instead of stopping.
// A failure prints the exact replay: npm run fuzz -- --seed N --runs R <file> -t "<suite>".
import { spawnSync } from 'node:child_process';

const args = process.argv.slice(2);
// A long run explores: a fresh seed unless --seed names one (npm test keeps a fixed one).
// An exploring run is read by a person: it prints the tally of what was sent.
const env = { ...process.env, FUZZ_EXPLORE: '1', FUZZ_TALLY: process.env.FUZZ_TALLY ?? '1' };
const passed = [];
for (let index = 0; index < args.length; index += 1) {
  const arg = args[index];
  const [name, inline] = arg.split('=', 2);
  if (arg === '--keep-going') {
    env.FUZZ_KEEP_GOING = '1';
  } else if (name === '--runs' || name === '--seed') {
    const value = inline ?? args[(index += 1)];
    if (value === undefined || !/^-?\d+$/.test(value)) {
      console.error(`${name} takes an integer`);
      process.exit(2);
    }
    env[name === '--runs' ? 'FUZZ_RUNS' : 'FUZZ_SEED'] = value;
  } else {
    passed.push(arg);
  }
}
// Without a file of its own (a replay names one), every suite of test/fuzz.
const files = passed.some((arg) => arg.startsWith('test/')) ? [] : ['test/fuzz'];
const result = spawnSync('npx', ['vitest', 'run', ...files, ...passed], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
