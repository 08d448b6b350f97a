import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_SECRET, AUTH_ENV } from '../support/auth.js';
import { type CliRun, runCli, runCliJson } from '../support/cli.js';
import { type TestDatabase, createTestDatabase, storesUnderTest } from '../support/databases.js';
import { type ServerProcess, killAllServers, startWorkServer } from '../support/processes.js';
import { api } from '../mcp/helpers.js';

// `agentdesk search "…"` against a real work service (AUTH=tokens) on each store: lines a person
// reads, JSON for scripts, a bad query refused with exit 1. Run `npm run build:server` first.

function ok(run: CliRun): CliRun {
  expect(run.code, `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(0);
  return run;
}

const SLOW = 120_000;

describe.each(await storesUnderTest())('agentdesk search on %s', (kind) => {
  let database: TestDatabase;
  let work: ServerProcess;
  let env: Record<string, string>;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    work = await startWorkServer({ env: { ...AUTH_ENV, DATABASE_URL: database.config.url } });
    env = { AGENTDESK_URL: work.url, AGENTDESK_TOKEN: ADMIN_SECRET };
  }, SLOW);

  afterAll(async () => {
    await killAllServers();
    await database?.destroy();
  });

  it(
    'prints each match with where it matched and its passage; --json for scripts',
    async () => {
      const auth = { authorization: `Bearer ${ADMIN_SECRET}` };
      const item = await api(work.url, 'POST', '/work', auth, {
        type: 'ops',
        description: 'Rotate the <vault> passphrase',
      });
      expect(item.status).toBe(201);
      const printed = ok(await runCli(['search', 'passphrase vault'], env)).stdout;
      expect(printed).toContain(`${item.body.id.slice(0, 8)}  queued  ops  p3  Rotate the <vault> passphrase`);
      expect(printed).toContain('in description: Rotate the <[vault]> [passphrase]');
      const { body: asJson } = await runCliJson(['search', 'passphrase'], env);
      expect(asJson.results.map((r: { item: { id: string } }) => r.item.id)).toEqual([item.body.id]);
      expect(ok(await runCli(['search', 'nothing-like-this'], env)).stdout).toBe('No items match.\n');
      const refused = await runCli(['search', 'the'], env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/common words/);
    },
    SLOW,
  );
});
