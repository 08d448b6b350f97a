import { afterEach, describe, expect, it } from 'vitest';
import type { Database } from '../../src/shared/db/database.js';
import { createTestDatabase, storesUnderTest, type TestDatabase } from '../support/databases.js';
import { pooled } from '../support/fetch-json.js';
import { killAllServers, sleep, startWorkServer } from '../support/processes.js';
import { auditItems, claimViolations, openForAudit, send } from './agent-loop-audit.js';

// Kill -9 during a claim burst: after restart no item is both claimed and queued, and no
// acknowledged claim is lost. Agents loop claim → complete against a real server, which is
// SIGKILLed mid-burst and restarted on the same database; then the stored state is audited.
// And leases outstanding at the kill still run out after the restart: the sweep reads them
// from the database, not from the memory of the process that handed them out.

const stores = await storesUnderTest();

const ITEMS = 400;
const AGENTS = 8;
const KILL_AFTER_COMPLETIONS = 100;

interface Claimed {
  id: string;
  agent: string;
  dispatchId: string;
}

describe.each(stores)('the agent loop survives kill -9 on %s', (kind) => {
  let database: TestDatabase | undefined;
  let audit: Database | undefined;
  afterEach(async () => {
    await killAllServers();
    await audit?.close();
    await database?.destroy();
    audit = undefined;
    database = undefined;
  });

  async function start(test: TestDatabase) {
    return startWorkServer({ env: { DATABASE_URL: test.config.url, LOG_LEVEL: 'warn' }, startTimeoutMs: 60_000 });
  }

  it(
    'kill -9 mid claim burst: nothing both claimed and queued, no acknowledged claim or completion lost',
    { timeout: 240_000 },
    async () => {
      database = await createTestDatabase(kind);
      const first = await start(database);
      const type = 'crash_claim';
      await pooled(ITEMS, 8, async (n) => {
        const created = await send(first.url, 'POST', '/work', { type, description: `crash claim ${n}` });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
      });

      const claims: Claimed[] = [];
      const completed = new Set<string>();
      const unexpected: unknown[] = [];
      let cut = 0;
      let killed: Promise<unknown> | undefined;
      const agent = async (index: number) => {
        const name = `crash-agent-${index}`;
        for (;;) {
          const claim = await send(first.url, 'POST', '/work/claim', { agent: name, types: [type], lease_s: 600 });
          if (claim.status === 0) return void (cut += 1);
          if (claim.status === 204) return;
          if (claim.status !== 200) return void unexpected.push({ claim: claim.status, body: claim.body });
          const open = (claim.body.dispatch_log as Array<{ id: string; completed_at: string | null }>).filter(
            (entry) => entry.completed_at === null,
          );
          expect(open).toHaveLength(1);
          claims.push({ id: claim.body.id, agent: name, dispatchId: open[0]!.id });
          const done = await send(first.url, 'PATCH', `/work/${claim.body.id}`, {
            status: 'completed',
            outcome: 'success',
            agent: name,
          });
          if (done.status === 0) return void (cut += 1);
          if (done.status !== 200) return void unexpected.push({ complete: done.status, body: done.body });
          completed.add(claim.body.id);
          if (completed.size === KILL_AFTER_COMPLETIONS) killed = first.kill();
        }
      };
      await Promise.all(Array.from({ length: AGENTS }, (_, index) => agent(index)));
      await killed;

      expect(unexpected).toEqual([]);
      expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
      // The kill landed mid-burst: requests were cut off, and items were left to claim.
      expect(cut).toBeGreaterThan(0);
      expect(completed.size).toBeGreaterThanOrEqual(KILL_AFTER_COMPLETIONS);
      expect(claims.length).toBeLessThan(ITEMS);
      expect(new Set(claims.map((claim) => claim.id)).size).toBe(claims.length);

      const second = await start(database);
      audit = await openForAudit(database);
      const stored = await auditItems(audit, { type });
      expect(stored.items.size).toBe(ITEMS);
      expect(claimViolations(stored)).toEqual([]);

      const lost: string[] = [];
      for (const claim of claims) {
        const item = stored.items.get(claim.id);
        const entry = stored.dispatches.get(claim.id)?.find((dispatch) => dispatch.id === claim.dispatchId);
        const expected = completed.has(claim.id)
          ? item?.status === 'completed' && item.outcome === 'success' && entry?.reason === 'completed'
          : // Its completion got no answer: it may or may not have landed, but the claim did.
            (item?.status === 'in_progress' && item.assigned_agent === claim.agent && entry?.completed_at === null) ||
            (item?.status === 'completed' && entry?.reason === 'completed');
        if (!expected || entry?.agent !== claim.agent || item?.attempts !== 1) {
          lost.push(`${claim.id} claimed by ${claim.agent}: ${JSON.stringify({ item, entry })}`);
        }
        // The API answers what the database holds.
        const shown = await send(second.url, 'GET', `/work/${claim.id}`);
        expect(shown.body).toMatchObject({
          status: item?.status,
          assigned_agent: item?.assigned_agent,
          attempts: item?.attempts,
        });
      }
      expect(lost).toEqual([]);

      // The rest of the queue is claimed afresh after the restart: never an item that was held.
      const held = new Set(
        [...stored.items.values()].filter((item) => item.status !== 'queued').map((item) => item.id),
      );
      const reclaimed: string[] = [];
      await Promise.all(
        Array.from({ length: 4 }, async (_, index) => {
          for (;;) {
            const claim = await send(second.url, 'POST', '/work/claim', { agent: `after-${index}`, types: [type] });
            if (claim.status === 204) return;
            expect(claim.status, JSON.stringify(claim.body)).toBe(200);
            if (held.has(claim.body.id)) reclaimed.push(claim.body.id);
            expect(claim.body.attempts).toBe(1);
          }
        }),
      );
      expect(reclaimed).toEqual([]);
      const after = await auditItems(audit, { type });
      expect(claimViolations(after)).toEqual([]);
      expect([...after.items.values()].filter((item) => item.status === 'queued')).toEqual([]);
      console.info(
        `[agent loop] ${kind}: kill -9 after ${claims.length} acknowledged claims, ${completed.size} completions; ${held.size} held or done at restart`,
      );
      expect(await second.stop()).toEqual({ code: 0, signal: null });
    },
  );

  it('leases outstanding at kill -9 still run out after the restart', { timeout: 180_000 }, async () => {
    database = await createTestDatabase(kind);
    const first = await start(database);
    const type = 'crash_lease';
    const COUNT = 12;
    // Long enough that the kill lands before any lease runs out, even on a loaded machine.
    const LEASE_S = 8;
    await pooled(COUNT, 4, async (n) => {
      const created = await send(first.url, 'POST', '/work', { type, description: `leased ${n}`, retry_delay_s: 0 });
      expect(created.status).toBe(201);
    });
    const leases = new Map<string, number>();
    for (let n = 0; n < COUNT; n += 1) {
      const claim = await send(first.url, 'POST', '/work/claim', { agent: 'doomed', types: [type], lease_s: LEASE_S });
      expect(claim.status, JSON.stringify(claim.body)).toBe(200);
      leases.set(claim.body.id, Date.parse(claim.body.lease_expires_at));
    }
    await first.kill();
    // The process died holding every lease, before any ran out.
    expect(Date.now()).toBeLessThan(Math.min(...leases.values()));

    const second = await start(database);
    const readyAt = Date.now();
    const lastExpiry = Math.max(...leases.values());
    for (;;) {
      const listed = await send(second.url, 'GET', `/work?type=${type}&status=queued&limit=100`);
      if (listed.body.length === COUNT) break;
      expect(
        Date.now() - Math.max(lastExpiry, readyAt),
        `${listed.body.length} of ${COUNT} back in the queue`,
      ).toBeLessThan(15_000);
      await sleep(100);
    }

    audit = await openForAudit(database);
    const stored = await auditItems(audit, { type });
    expect(claimViolations(stored)).toEqual([]);
    const lags: number[] = [];
    for (const [id, expiry] of leases) {
      expect(stored.items.get(id), id).toMatchObject({
        status: 'queued',
        attempts: 1,
        version: 3,
        assigned_agent: null,
      });
      const log = stored.dispatches.get(id) ?? [];
      expect(
        log.map((entry) => [entry.agent, entry.outcome, entry.reason]),
        id,
      ).toEqual([['doomed', 'failed', 'lease_expired']]);
      const closedAt = Date.parse(log[0]!.completed_at!);
      expect(closedAt).toBeGreaterThanOrEqual(expiry);
      // Within 2 s of the expiry, or of the restart when the restart came later than that.
      lags.push(closedAt - Math.max(expiry, readyAt));
    }
    console.info(`[agent loop] ${kind}: leases expired after restart, ${Math.max(...lags)} ms at most after due`);
    for (const lag of lags) expect(lag).toBeLessThan(2_000);

    const again = await send(second.url, 'POST', '/work/claim', { agent: 'survivor', types: [type] });
    expect(again.status).toBe(200);
    expect(again.body.attempts).toBe(2);
  });
});
