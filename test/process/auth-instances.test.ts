import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSRF_HEADER } from '../../src/auth/roles.js';
import { ADMIN_SECRET } from '../support/auth.js';
import { type TestDatabase, createTestDatabase, storesUnderTest } from '../support/databases.js';
import { type ServerProcess, killAllServers, runUntilExit, sleep, startWorkServer } from '../support/processes.js';

// Two real instances on one PostgreSQL schema, as behind a load balancer. A token
// revoked through one is refused by the other within a second, whether it comes as a bearer
// token, as a browser session, or holds an event stream open. Run `npm run build:server` first.

const hasPostgres = (await storesUnderTest()).includes('postgres');
const REVOCATION_BUDGET_MS = 1_000;

async function request(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const response = await fetch(base + path, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? null : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
}

const admin = { authorization: `Bearer ${ADMIN_SECRET}` };

/** Asks `base` again and again until it answers 401; resolves with the time of that answer. */
async function firstRefusal(base: string, headers: Record<string, string>, deadline: number): Promise<number> {
  while (Date.now() < deadline) {
    const { status } = await request(base, 'GET', '/work/counts', headers);
    if (status === 401) return Date.now();
    expect(status).toBe(200);
    await sleep(10);
  }
  throw new Error('never refused');
}

describe.skipIf(!hasPostgres)('revocation across two instances on PostgreSQL', () => {
  let database: TestDatabase;
  let a: ServerProcess;
  let b: ServerProcess;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const env = {
      DATABASE_URL: database.config.url,
      AUTH: 'tokens',
      AGENTDESK_ADMIN_TOKEN: ADMIN_SECRET,
      AUTH_FAILURE_LIMIT: '100000',
    };
    [a, b] = await Promise.all([startWorkServer({ env }), startWorkServer({ env })]);
  });

  afterAll(async () => {
    await killAllServers();
    await database?.destroy();
  });

  async function mint(role = 'viewer'): Promise<{ id: string; token: string }> {
    const created = await request(a.url, 'POST', '/tokens', admin, { name: `${role}-${Date.now()}`, role });
    expect(created.status).toBe(201);
    return created.body;
  }

  it('a bearer token revoked on A is refused by B within a second (three times over)', async () => {
    const delays: number[] = [];
    for (let round = 0; round < 3; round += 1) {
      const { id, token } = await mint();
      const headers = { authorization: `Bearer ${token}` };
      // B has answered for this token, so B has it cached.
      for (let i = 0; i < 5; i += 1) expect((await request(b.url, 'GET', '/work/counts', headers)).status).toBe(200);
      const watching = firstRefusal(b.url, headers, Date.now() + 5_000);
      expect((await request(a.url, 'DELETE', `/tokens/${id}`, admin)).status).toBe(204);
      const revokedAt = Date.now();
      delays.push((await watching) - revokedAt);
    }
    console.log(JSON.stringify({ test: 'revocation seen by the other instance', ms: delays }));
    for (const delay of delays) expect(delay).toBeLessThan(REVOCATION_BUDGET_MS);
  });

  it('a browser session opened on A and used on B ends on B within a second', async () => {
    const { id, token } = await mint();
    const signIn = await request(a.url, 'POST', '/session', { [CSRF_HEADER]: '1' }, { token });
    expect(signIn.status).toBe(200);
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!;
    expect((await request(b.url, 'GET', '/work/counts', { cookie })).status).toBe(200);
    const watching = firstRefusal(b.url, { cookie }, Date.now() + 5_000);
    await request(a.url, 'DELETE', `/tokens/${id}`, admin);
    const revokedAt = Date.now();
    expect((await watching) - revokedAt).toBeLessThan(REVOCATION_BUDGET_MS);
  });

  it('an event stream held open on B with the token ends soon after A revokes it', async () => {
    const { id, token } = await mint();
    const response = await fetch(`${b.url}/events`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    await reader.read();
    const ended = (async () => {
      for (;;) {
        const chunk = await reader.read().catch(() => ({ done: true }));
        if (chunk.done) return Date.now();
      }
    })();
    await request(a.url, 'DELETE', `/tokens/${id}`, admin);
    const revokedAt = Date.now();
    const endedAt = await Promise.race([ended, sleep(5_000).then(() => Number.POSITIVE_INFINITY)]);
    // The stream is checked on the revocation notice and once a second besides.
    expect(endedAt - revokedAt).toBeLessThan(2 * REVOCATION_BUDGET_MS);
  });
});

describe('AUTH=off on a network address', () => {
  it('refuses to start, and says why', async () => {
    const sqlite = await createTestDatabase('sqlite');
    try {
      const refused = await runUntilExit({ DATABASE_URL: sqlite.config.url, HOST: '0.0.0.0', AUTH: 'off' });
      expect(refused.exit.code).toBe(2);
      expect(refused.stderr).toContain('AUTH=off with HOST=0.0.0.0');
      expect(refused.stderr).toContain('AUTH_OFF_I_UNDERSTAND_THE_RISK=true');
      const short = await runUntilExit({
        DATABASE_URL: sqlite.config.url,
        AGENTDESK_ADMIN_TOKEN: 'too-short-a-secret',
      });
      expect(short.exit.code).toBe(2);
      expect(short.stderr).toContain('AGENTDESK_ADMIN_TOKEN');
      expect(short.stderr + short.stdout).not.toContain('too-short-a-secret');
    } finally {
      await sqlite.destroy();
    }
  });

  it('starts with the explicit consent, and on a network address defaults to tokens', async () => {
    const sqlite = await createTestDatabase('sqlite');
    try {
      const open = await startWorkServer({
        env: { DATABASE_URL: sqlite.config.url, HOST: '0.0.0.0', AUTH: 'off', AUTH_OFF_I_UNDERSTAND_THE_RISK: 'true' },
      });
      expect((await request(open.url, 'GET', '/work', {})).status).toBe(200);
      await open.stop();
      const guarded = await startWorkServer({ env: { DATABASE_URL: sqlite.config.url, HOST: '0.0.0.0' } });
      expect((await request(guarded.url, 'GET', '/work', {})).status).toBe(401);
      expect((await request(guarded.url, 'GET', '/health', {})).status).toBe(200);
      await guarded.stop();
    } finally {
      await sqlite.destroy();
    }
  });
});
