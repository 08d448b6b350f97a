import type { Desk } from './desk.js';

/** FUZZ_TALLY=1 prints the tally: read when tuning the fuzzer, noise in the middle of `npm test`. */
export function printTally(text: string): void {
  if (process.env.FUZZ_TALLY === '1') console.log(text);
}

/** Which operations were sent and what they got, as a few readable lines. */
export function summarize(desk: Desk): { text: string; successShare: number } {
  let total = 0;
  let succeeded = 0;
  const byOperation = new Map<string, string[]>();
  const model = `model asked: ${desk.tally.get('(model answered)') ?? 0} answered, ${desk.tally.get('(model failed)') ?? 0} failed after retries`;
  for (const [key, count] of [...desk.tally].sort()) {
    if (key.startsWith('(')) continue;
    const status = Number(key.slice(key.lastIndexOf(' ') + 1));
    const name = key.slice(0, key.lastIndexOf(' '));
    total += count;
    if (status >= 200 && status < 300) succeeded += count;
    byOperation.set(name, [...(byOperation.get(name) ?? []), `${status}×${count}`]);
  }
  const missing = desk.operations.filter((op) => !byOperation.has(op.name)).map((op) => op.name);
  const lines = [...byOperation].map(([name, statuses]) => `  ${name}: ${statuses.join(' ')}`);
  if (missing.length > 0) lines.push(`  not drawn this run: ${missing.join(', ')}`);
  return {
    text: `[fuzz] ${desk.kind}, AUTH=${desk.mode}: ${total} requests, ${succeeded} answered 2xx; ${model}\n${lines.join('\n')}`,
    successShare: total === 0 ? 0 : succeeded / total,
  };
}
