import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storesUnderTest } from '../support/databases.js';
import { type Desk, startDesk } from './desk.js';
import { fuzzSettings, runFuzz } from './fuzz-settings.js';
import { printTally, summarize } from './tally.js';

// A fuzzer over every route: requests derived from the two OpenAPI documents, valid
// and mutated field by field, against both services listening on loopback, on both stores,
// with authentication off (the default on loopback). After every case: each answer has the
// status the request calls for, is never a 5xx, is problem+json when it is an error, and
// matches its declared schema; the database keeps its invariants (invariants.ts).
// `npm run fuzz -- --runs 20000` runs many more; `--seed N` replays a run.

const settings = fuzzSettings(200);

describe.each(await storesUnderTest())('every route, fuzzed from the OpenAPI documents, on %s (AUTH=off)', (kind) => {
  let desk: Desk;
  beforeAll(async () => {
    desk = await startDesk(kind, 'off', settings.keepGoing);
  });
  afterAll(async () => {
    await desk?.close();
  });

  it(
    `${settings.runs} cases of 1–3 concurrent requests: statuses, problem+json, schemas, invariants`,
    async () => {
      await runFuzz(
        `every route on ${kind}, AUTH=off`,
        `test/fuzz/every-route.test.ts -t "on ${kind}"`,
        settings,
        desk.caseArbitrary,
        desk.runCase,
      );
      expect([...desk.failures.values()].join('\n\n════════\n\n')).toBe('');
      expect(await desk.checkEverything()).toEqual([]);
      const summary = summarize(desk);
      printTally(summary.text);
      // A fuzzer whose requests all bounce off validation would prove little.
      expect(summary.successShare, summary.text).toBeGreaterThan(0.15);
    },
    60_000 + settings.runs * 400,
  );
});
