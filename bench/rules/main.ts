import { availableParallelism, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { normalizeEmail, type Email } from '../../src/email/normalize.js';
import { classifyWithRules } from '../../src/classify/rules/classify.js';
import {
  evaluate,
  evaluateFields,
  FIELDS,
  loadLabelledSet,
  type LabelledEmail,
  type Score,
} from '../../test/support/rules-labelled.js';
import { PATHOLOGICAL_BODIES } from '../../test/support/rules-pathological.js';
import { runMain } from '../lib/run-main.js';

// `npm run bench:rules [-- --split dev --misses]`: the offline classifier on the labelled set
// (test/fixtures/rules-labelled): accuracy per split, language, category and field, then time per email and on
// bodies built to make a rule backtrack. In process, no server or database; misses on stderr.

const { values: args } = parseArgs({
  options: {
    /** Which part of the set to score: all, dev or holdout. Timing always runs over all of it. */
    split: { type: 'string', default: 'all' },
    /** Timed passes over the whole set. */
    rounds: { type: 'string', default: '40' },
    /** List the misclassified emails on stderr. */
    misses: { type: 'boolean', default: false },
  },
});

const MAX_CHARS = 6_000;
/** The per-email budget for a typical message. */
const TARGET_MS = 1;
const WARMUP_ROUNDS = 5;

function print(line: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ bench: 'rules', ...line })}\n`);
}

function chosenSplit(set: LabelledEmail[]): LabelledEmail[] {
  if (args.split === 'all') return set;
  if (args.split === 'dev') return set.filter((email) => !email.holdout);
  if (args.split === 'holdout') return set.filter((email) => email.holdout);
  throw new Error(`--split must be all, dev or holdout, not ${args.split}`);
}

function accuracy(): void {
  const set = chosenSplit(loadLabelledSet());
  const result = evaluate(set, (email) => classifyWithRules(normalizeEmail(email.input, MAX_CHARS)).category);
  const line = (scope: string, name: string, score: Score) =>
    print({ metric: 'accuracy', split: args.split, scope, name, ...score });
  line('overall', 'all', result.overall);
  for (const [name, score] of Object.entries(result.by_split)) if (score.emails > 0) line('split', name, score);
  for (const [name, score] of Object.entries(result.by_language)) line('language', name, score);
  for (const [name, score] of Object.entries(result.by_category)) line('category', name, score);
  if (args.misses) {
    for (const miss of result.misses)
      process.stderr.write(
        `miss ${miss.id}${miss.holdout ? ' (holdout)' : ''}: expected ${miss.expected}, got ${miss.got}\n`,
      );
  }
  // Per field: the category on every email, priority and deadline on those labelled with them.
  const fields = evaluateFields(set, (email) => {
    const answer = classifyWithRules(normalizeEmail(email.input, MAX_CHARS));
    return { category: answer.category, priority: answer.priority, deadline: answer.details.deadline };
  });
  for (const field of FIELDS)
    print({
      metric: 'field_accuracy',
      split: args.split,
      scope: 'overall',
      name: 'all',
      field,
      ...fields.overall[field],
    });
  for (const [language, scores] of Object.entries(fields.by_language)) {
    for (const field of FIELDS)
      print({
        metric: 'field_accuracy',
        split: args.split,
        scope: 'language',
        name: language,
        field,
        ...scores[field],
      });
  }
  if (args.misses) {
    for (const miss of fields.misses.filter((entry) => entry.field !== 'category')) {
      process.stderr.write(`miss ${miss.id} ${miss.field}: expected ${miss.expected}, got ${miss.got}\n`);
    }
  }
}

/**
 * Times `run` on every item, `rounds` times, and reports the spread of single calls (wall
 * clock), the p99 over items of each item's median, and the CPU time per call (process CPU over
 * all rounds): on a shared, loaded machine the tail of single calls is mostly the scheduler,
 * while the other two are the classifier's own.
 */
function time<T>(name: string, items: readonly T[], rounds: number, run: (item: T) => unknown): void {
  for (let round = 0; round < WARMUP_ROUNDS; round += 1) for (const item of items) run(item);
  const samples = new Float64Array(items.length * rounds);
  const perItem = items.map(() => new Float64Array(rounds));
  let next = 0;
  const cpuBefore = process.cpuUsage();
  for (let round = 0; round < rounds; round += 1) {
    items.forEach((item, index) => {
      const started = performance.now();
      run(item);
      const elapsed = performance.now() - started;
      samples[next++] = elapsed;
      perItem[index]![round] = elapsed;
    });
  }
  const cpu = process.cpuUsage(cpuBefore);
  samples.sort();
  const quantile = (sorted: Float64Array, fraction: number) =>
    sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)]!;
  const at = (fraction: number) => quantile(samples, fraction);
  // Each email's own median, robust to a preemption now and then; then the slowest 1% of emails.
  const medians = Float64Array.from(perItem, (times) => quantile(times.sort(), 0.5)).sort();
  const ms = (value: number) => Math.round(value * 1000) / 1000;
  const cpuMean = (cpu.user + cpu.system) / 1000 / samples.length;
  print({
    metric: 'time_per_email',
    name,
    emails: items.length,
    samples: samples.length,
    median_ms: ms(at(0.5)),
    p99_ms: ms(at(0.99)),
    max_ms: ms(at(1)),
    p99_of_email_medians_ms: ms(quantile(medians, 0.99)),
    cpu_mean_ms: ms(cpuMean),
    target_ms: TARGET_MS,
    load_average_1m: Math.round(loadavg()[0]! * 10) / 10,
    cores: availableParallelism(),
  });
}

function timing(): void {
  const set = loadLabelledSet();
  const rounds = Math.max(1, Number(args.rounds));
  const emails: Email[] = set.map((email) => normalizeEmail(email.input, MAX_CHARS));
  time('classify', emails, rounds, (email) => classifyWithRules(email));
  time('prepare_and_classify', set, rounds, (email) => classifyWithRules(normalizeEmail(email.input, MAX_CHARS)));
  // The longest text the classifier is ever given: a body cut to the default budget.
  const long = set
    .map((email) => email.input)
    .filter((input) => 'email_data' in input)
    .map((input) => input.email_data.body ?? '')
    .join('\n\n');
  const longEmail = normalizeEmail(
    { email_data: { subject: 'long', body: long.repeat(Math.ceil(MAX_CHARS / long.length) + 1) } },
    MAX_CHARS,
  );
  time(`classify_${longEmail.body.text.length}_chars`, [longEmail], rounds * 20, (email) => classifyWithRules(email));
  // Bodies built to make a rule backtrack: each must stay far from a per-email budget.
  for (const [name, body] of PATHOLOGICAL_BODIES) {
    const email = normalizeEmail({ email_data: { subject: body.slice(0, 200), body } }, MAX_CHARS);
    time(`pathological: ${name}`, [email], Math.max(3, Math.floor(rounds / 4)), (item) => classifyWithRules(item));
  }
}

async function main(): Promise<void> {
  accuracy();
  timing();
}

runMain(main);
