import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/shared/db/database.js';
import { type StoreKind, type TestDatabase, createTestDatabase, storesUnderTest } from '../support/databases.js';
import { pooled } from '../support/fetch-json.js';
import { type ServerProcess, killAllServers, sleep, startWorkServer } from '../support/processes.js';
import { auditItems, claimViolations, openForAudit, send } from './agent-loop-audit.js';

// Across instances: two real work-service processes on one database, claiming,
// waiting, sweeping leases and replaying Idempotency-Keys against each other. PostgreSQL is the
// store several instances share; the Idempotency-Key test also runs two processes on one
// SQLite file, which the service supports too.

const stores = await storesUnderTest();
const hasPostgres = stores.includes('postgres');

interface Pair {
  database: TestDatabase;
  audit: Database;
  a: ServerProcess;
  b: ServerProcess;
}

async function startPair(kind: StoreKind): Promise<Pair> {
  const database = await createTestDatabase(kind);
  const env = { DATABASE_URL: database.config.url, DATABASE_POOL_SIZE: '5', LOG_LEVEL: 'warn' };
  const [a, b] = await Promise.all([
    startWorkServer({ env, startTimeoutMs: 60_000 }),
    startWorkServer({ env, startTimeoutMs: 60_000 }),
  ]);
  return { database, audit: await openForAudit(database), a, b };
}

async function stopPair(pair: Pair | undefined): Promise<void> {
  await killAllServers();
  await pair?.audit.close();
  await pair?.database.destroy();
}

describe.skipIf(!hasPostgres)('the agent loop on two instances sharing one PostgreSQL', () => {
  let pair: Pair;
  beforeAll(async () => {
    pair = await startPair('postgres');
  });
  afterAll(() => stopPair(pair));

  const submit = async (server: ServerProcess, body: Record<string, unknown>) => {
    const created = await send(server.url, 'POST', '/work', { description: 'a task', ...body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body as { id: string };
  };

  it(
    '8 agents on both instances claim 500 items: each claimed exactly once, none lost',
    { timeout: 180_000 },
    async () => {
      const type = 'pair_burst';
      const { a, b } = pair;
      const submitted = await pooled(500, 8, (n) => submit(n % 2 ? a : b, { type, description: `burst ${n}` }));
      const claimedBy = new Map<string, string>();
      const duplicates: string[] = [];
      const unexpected: unknown[] = [];
      await Promise.all(
        Array.from({ length: 8 }, async (_, index) => {
          const agent = `pair-agent-${index}`;
          const server = index % 2 ? a : b;
          for (;;) {
            const claimed = await send(server.url, 'POST', '/work/claim', { agent, types: [type] });
            if (claimed.status === 204) return;
            if (claimed.status !== 200) {
              unexpected.push({ agent, status: claimed.status, body: claimed.body, error: claimed.error });
              return;
            }
            if (claimedBy.has(claimed.body.id)) duplicates.push(claimed.body.id);
            claimedBy.set(claimed.body.id, agent);
          }
        }),
      );
      expect(unexpected).toEqual([]);
      expect(duplicates).toEqual([]);
      expect(new Set(claimedBy.keys())).toEqual(new Set(submitted.map((item) => item.id)));
      // Both instances handed out work.
      const agents = new Set(claimedBy.values());
      expect([...agents].some((agent) => Number(agent.at(-1)) % 2 === 0)).toBe(true);
      expect([...agents].some((agent) => Number(agent.at(-1)) % 2 === 1)).toBe(true);

      for (const server of [a, b]) {
        const listed = await send(server.url, 'GET', `/work?type=${type}&limit=1000`);
        expect(listed.body).toHaveLength(500);
        for (const item of listed.body) {
          expect(item).toMatchObject({ status: 'in_progress', assigned_agent: claimedBy.get(item.id), attempts: 1 });
        }
      }
      const audit = await auditItems(pair.audit, { type });
      expect(audit.items.size).toBe(500);
      expect(claimViolations(audit)).toEqual([]);
      for (const [id, log] of audit.dispatches) {
        expect(log, id).toEqual([expect.objectContaining({ agent: claimedBy.get(id), completed_at: null })]);
        expect(audit.items.get(id)).toMatchObject({ status: 'in_progress', attempts: 1, version: 2 });
      }
    },
  );

  it(
    'a claim waiting on one instance is answered when an item is submitted on the other',
    { timeout: 120_000 },
    async () => {
      const { a, b } = pair;
      const latencies: number[] = [];
      const directions: Array<[ServerProcess, ServerProcess]> = [
        [a, b],
        [b, a],
        [a, b],
      ];
      for (const [round, [waiter, submitter]] of directions.entries()) {
        const type = `pair_poll_${round}`;
        const waiting = send(waiter.url, 'POST', '/work/claim', {
          agent: `poller-${round}`,
          types: [type],
          wait_s: 20,
        });
        // Long enough for the claim to find nothing and start waiting, even on a loaded machine.
        await sleep(1_500);
        // Counted from before the submit is sent: its own round trip is part of the wake-up.
        const submitting = Date.now();
        const item = await submit(submitter, { type });
        const answer = await waiting;
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        expect(answer.body).toMatchObject({ id: item.id, assigned_agent: `poller-${round}`, status: 'in_progress' });
        latencies.push(answer.at - submitting);
      }
      console.info(`[agent loop] cross-instance long-poll wake-up after submit: ${latencies.join(', ')} ms`);
      for (const latency of latencies) expect(latency).toBeLessThan(2_000);
    },
  );

  it(
    'leases claimed on one instance expire exactly once under both sweeps, attempt after attempt',
    { timeout: 180_000 },
    async () => {
      const creator = 'pair-sweep';
      const { a, b } = pair;
      const COUNT = 40;
      // A type per item, so each round claims each item once: with lease_s 1 and no retry delay,
      // the first items of a round are back in the queue before a loaded machine claims the last.
      const typeOf = (n: number) => `pair_sweep_${n}`;
      const items = await pooled(COUNT, 8, async (n) => {
        const body = { type: typeOf(n), description: 'a task', retry_delay_s: 0, max_attempts: 3 };
        const created = await send((n % 2 ? a : b).url, 'POST', '/work', body, { 'x-user': creator });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        return created.body as { id: string };
      });
      const ids = new Set(items.map((item) => item.id));
      const lags: number[] = [];

      for (let attempt = 1; attempt <= 3; attempt += 1) {
        // Claimed on A each time: B's sweep must expire leases it never handed out as well.
        const leases = new Map<string, string>();
        for (let n = 0; n < COUNT; n += 1) {
          const claimed = await send(a.url, 'POST', '/work/claim', {
            agent: `sleepy-${attempt}`,
            types: [typeOf(n)],
            lease_s: 1,
          });
          expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
          expect(claimed.body).toMatchObject({ id: items[n]!.id, attempts: attempt });
          leases.set(claimed.body.id, claimed.body.lease_expires_at);
        }
        expect(new Set(leases.keys())).toEqual(ids);
        const lastExpiry = Math.max(...[...leases.values()].map(Date.parse));
        const settled = attempt < 3 ? 'queued' : 'failed';
        for (;;) {
          const listed = await send(b.url, 'GET', `/work?created_by=${creator}&status=${settled}&limit=1000`);
          if (listed.body.length === COUNT) break;
          // Generous on a loaded machine; the 2 s bound is checked on the server's own timestamps below.
          expect(Date.now() - lastExpiry, `${listed.body.length} of ${COUNT} ${settled}`).toBeLessThan(15_000);
          await sleep(100);
        }
        // Both sweeps had every chance to expire each lease again.
        await sleep(1_500);

        const audit = await auditItems(pair.audit, { created_by: creator });
        expect(claimViolations(audit)).toEqual([]);
        for (const id of ids) {
          const item = audit.items.get(id);
          const log = audit.dispatches.get(id) ?? [];
          // Per attempt: the claim (+1) and the one expiry (+1), on top of the submit's version 1.
          expect(item, id).toMatchObject({
            status: settled,
            attempts: attempt,
            version: 1 + 2 * attempt,
            lease_expires_at: null,
          });
          expect(
            log.map((entry) => [entry.agent, entry.outcome, entry.reason]),
            id,
          ).toEqual(Array.from({ length: attempt }, (_, n) => [`sleepy-${n + 1}`, 'failed', 'lease_expired']));
          const expired = log.at(-1)!;
          lags.push(Date.parse(expired.completed_at!) - Date.parse(leases.get(id)!));
        }
        // One requeue per expiry: the event log holds one change to queued per attempt expired.
        const requeues = await requeueEvents(pair.audit, ids);
        for (const id of ids) expect(requeues.get(id) ?? 0, id).toBe(attempt < 3 ? attempt : 2);
      }
      const failed = await send(a.url, 'GET', `/work/${items[0]!.id}`);
      expect(failed.body.notes).toMatch(/attempt 3 of 3/);
      console.info(
        `[agent loop] lease expiry after lease_expires_at: max ${Math.max(...lags)} ms over ${lags.length} leases`,
      );
      for (const lag of lags) {
        expect(lag).toBeGreaterThanOrEqual(0);
        expect(lag).toBeLessThan(2_000);
      }
    },
  );
});

/** How many events record each item going back to queued (its submit excluded). */
async function requeueEvents(database: Database, ids: Set<string>): Promise<Map<string, number>> {
  const rows = await (database.kysely as Kysely<any>)
    .selectFrom('events')
    .select(['type', 'data'])
    .where('type', '=', 'work.updated')
    .execute();
  const counts = new Map<string, number>();
  for (const row of rows) {
    const data = JSON.parse(row.data) as { id: string; status: string };
    if (ids.has(data.id) && data.status === 'queued') counts.set(data.id, (counts.get(data.id) ?? 0) + 1);
  }
  return counts;
}

const pairStores = stores.map(
  (kind) =>
    [kind, kind === 'postgres' ? 'two instances on one PostgreSQL' : 'two processes on one SQLite file'] as const,
);

describe.each(pairStores)('Idempotency-Key on %s (%s)', (kind) => {
  let pair: Pair;
  beforeAll(async () => {
    pair = await startPair(kind);
  });
  afterAll(() => stopPair(pair));

  it(
    'the same key sent to both at once creates one item; the others replay it or get 409',
    { timeout: 120_000 },
    async () => {
      const { a, b } = pair;
      const db = pair.audit.kysely as Kysely<any>;
      let replays = 0;
      let conflicts = 0;
      for (let round = 0; round < 12; round += 1) {
        const key = `pair-key-${round}-${Date.now()}`;
        const body = { type: 'pair_idem', description: `idempotent ${key}` };
        const answers = await Promise.all(
          Array.from({ length: 8 }, (_, n) =>
            send(n % 2 ? a.url : b.url, 'POST', '/work', body, { 'idempotency-key': key, 'x-user': 'twin' }),
          ),
        );
        const created = answers.filter((answer) => answer.status === 201);
        const statuses = answers.map((answer) => answer.status);
        expect(
          statuses.every((status) => status === 201 || status === 409),
          JSON.stringify(answers.map((x) => x.body)),
        ).toBe(true);
        expect(created.length).toBeGreaterThan(0);
        expect(new Set(created.map((answer) => answer.body.id)).size).toBe(1);
        // Exactly one answer created the item; every other 201 says it is a replay.
        expect(created.filter((answer) => answer.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);
        for (const answer of answers.filter((x) => x.status === 409)) {
          expect(answer.headers.get('content-type')).toMatch(/application\/problem\+json/);
        }
        replays += created.length - 1;
        conflicts += statuses.length - created.length;
        const id = created[0]!.body.id as string;
        // Afterwards each instance replays the same item.
        for (const server of [a, b]) {
          const again = await send(server.url, 'POST', '/work', body, { 'idempotency-key': key, 'x-user': 'twin' });
          expect(again.status).toBe(201);
          expect(again.headers.get('idempotent-replayed')).toBe('true');
          expect(again.body.id).toBe(id);
        }
        const rows = await db
          .selectFrom('work_items')
          .select('id')
          .where('description', '=', body.description)
          .execute();
        expect(rows.map((row) => row.id)).toEqual([id]);
        const keys = await db
          .selectFrom('idempotency_keys')
          .select('scope')
          .where('idempotency_key', '=', key)
          .execute();
        expect(keys).toHaveLength(1);
      }
      console.info(
        `[agent loop] ${kind}: concurrent twins of one key answered ${replays} replays and ${conflicts} 409s`,
      );
    },
  );
});
