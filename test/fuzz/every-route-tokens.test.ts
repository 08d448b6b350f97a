import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storesUnderTest } from '../support/databases.js';
import { type Desk, startDesk } from './desk.js';
import { fuzzSettings, runFuzz } from './fuzz-settings.js';
import { printTally, summarize } from './tally.js';

// The same fuzzer with AUTH=tokens: most requests carry AGENTDESK_ADMIN_TOKEN, the rest no
// credential, a malformed or unknown one, or a token of another role minted during the run
// (and maybe revoked since). The oracle expects 401 and 403 from the document's access levels.

const settings = fuzzSettings(200, 0.25);

describe.each(await storesUnderTest())('every route, fuzzed, on %s with AUTH=tokens', (kind) => {
  let desk: Desk;
  beforeAll(async () => {
    desk = await startDesk(kind, 'tokens', settings.keepGoing);
  });
  afterAll(async () => {
    await desk?.close();
  });

  it(
    `${settings.runs} cases with admin, role, missing and bad credentials`,
    async () => {
      await runFuzz(
        `every route on ${kind}, AUTH=tokens`,
        `test/fuzz/every-route-tokens.test.ts -t "on ${kind}"`,
        settings,
        desk.caseArbitrary,
        desk.runCase,
      );
      expect([...desk.failures.values()].join('\n\n════════\n\n')).toBe('');
      expect(await desk.checkEverything()).toEqual([]);
      printTally(summarize(desk).text);
    },
    60_000 + settings.runs * 400,
  );
});
