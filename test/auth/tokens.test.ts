import type { Kysely, KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToken, isWellFormedToken } from '../../src/auth/token-format.js';
import { CSRF_HEADER } from '../../src/auth/roles.js';
import type { Database } from '../../src/shared/db/database.js';
import { buildWorkApp } from '../../src/services/work.js';
import { captureLogs, testConfig } from '../support/apps.js';
import {
  ADMIN_SECRET,
  AUTH_ENV,
  type AuthPair,
  bearer,
  dumpDatabase,
  mintToken,
  startAuthPair,
} from '../support/auth.js';
import { createTestDatabase, openTestDatabase, storesUnderTest } from '../support/databases.js';
import { ISO_MS, UUID_RE, call } from '../support/http.js';

// Tokens as the API creates, lists and revokes them; what a token looks like; what
// is stored; what the logs and the other answers never show.

describe('the token format', () => {
  it('is adk_, 43 base62 characters, _ and a 6-character checksum', () => {
    const tokens = Array.from({ length: 200 }, generateToken);
    for (const token of tokens) {
      expect(token).toMatch(/^adk_[0-9A-Za-z]{43}_[0-9A-Za-z]{6}$/);
      expect(isWellFormedToken(token)).toBe(true);
    }
    expect(new Set(tokens).size).toBe(tokens.length);
  });

  it('refuses a changed character, a truncation or another shape', () => {
    const token = generateToken();
    const i = 10;
    const changed = token.slice(0, i) + (token[i] === 'a' ? 'b' : 'a') + token.slice(i + 1);
    for (const bad of [
      changed,
      token.slice(0, -1),
      `${token}x`,
      token.replace('adk_', 'adx_'),
      'adk_',
      '',
      'Bearer x',
    ]) {
      expect(isWellFormedToken(bad), bad).toBe(false);
    }
  });
});

describe.each(await storesUnderTest())('the token API on %s', (kind) => {
  let pair: AuthPair;
  const admin = bearer(ADMIN_SECRET);

  beforeAll(async () => {
    pair = await startAuthPair(kind);
  });
  afterAll(() => pair?.close());

  it('POST /tokens answers 201 with the record and the secret, once', async () => {
    const response = await call(pair.work, 'POST', '/tokens', { name: 'ci-bot', role: 'agent', agent: 'ci' }, admin);
    expect(response.status).toBe(201);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers.location).toBe(`/tokens/${response.body.id}`);
    expect(response.body).toEqual({
      id: expect.stringMatching(UUID_RE),
      name: 'ci-bot',
      role: 'agent',
      agent: 'ci',
      created_at: expect.stringMatching(ISO_MS),
      created_by: 'admin',
      expires_at: null,
      last_used_at: null,
      revoked_at: null,
      token: expect.any(String),
    });
    expect(isWellFormedToken(response.body.token)).toBe(true);
    const listed = await call(pair.work, 'GET', '/tokens', undefined, admin);
    const { token: _secret, ...record } = response.body;
    expect(listed.body).toContainEqual(record);
    expect(listed.text).not.toContain(response.body.token);
    expect((await call(pair.work, 'GET', `/tokens/${record.id}`, undefined, admin)).body).toEqual(record);
  });

  it('a token made by a token records its maker', async () => {
    const ops = await mintToken(pair.work, { role: 'admin', name: 'ops' });
    const made = await call(pair.work, 'POST', '/tokens', { name: 'made-by-ops', role: 'viewer' }, bearer(ops.token));
    expect(made.body.created_by).toBe('ops');
  });

  it.each([
    [{ name: 'x', role: 'agent' }, 'agent'],
    [{ name: 'x', role: 'viewer', agent: 'ada' }, 'agent'],
    [{ name: 'x', role: 'viewer', expires_at: '2001-01-01T00:00:00Z' }, 'expires_at'],
    [{ name: 'x', role: 'viewer', expires_at: 'tomorrow' }, 'expires_at'],
    [{ name: 'x', role: 'superuser' }, 'role'],
    [{ name: 'has space', role: 'viewer' }, 'name'],
    [{ role: 'viewer' }, 'name'],
    [{ name: 'x', role: 'viewer', token: 'adk_mine' }, 'token'],
  ])('422 for %o', async (body, field) => {
    const response = await call(pair.work, 'POST', '/tokens', body, admin);
    expect(response.status).toBe(422);
    expect(response.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it('a token with an expiry works until then', async () => {
    const soon = new Date(Date.now() + 60 * 60 * 1000).toISOString();
    const response = await call(
      pair.work,
      'POST',
      '/tokens',
      { name: 'temp', role: 'viewer', expires_at: soon },
      admin,
    );
    expect(response.body.expires_at).toBe(soon);
    expect((await call(pair.work, 'GET', '/work', undefined, bearer(response.body.token))).status).toBe(200);
  });

  it('DELETE /tokens/{id} revokes at once and keeps the record', async () => {
    const viewer = await mintToken(pair.work, { role: 'viewer', name: 'short-lived' });
    expect((await call(pair.work, 'GET', '/work', undefined, bearer(viewer.token))).status).toBe(200);
    expect((await call(pair.work, 'DELETE', `/tokens/${viewer.id}`, undefined, admin)).status).toBe(204);
    expect((await call(pair.work, 'GET', '/work', undefined, bearer(viewer.token))).status).toBe(401);
    expect((await call(pair.classify, 'POST', '/classify', { subject: 'x' }, bearer(viewer.token))).status).toBe(401);
    const record = (await call(pair.work, 'GET', `/tokens/${viewer.id}`, undefined, admin)).body;
    expect(record.revoked_at).toMatch(ISO_MS);
    // Revoking twice changes nothing; an unknown id is a 404.
    expect((await call(pair.work, 'DELETE', `/tokens/${viewer.id}`, undefined, admin)).status).toBe(204);
    expect((await call(pair.work, 'GET', `/tokens/${viewer.id}`, undefined, admin)).body.revoked_at).toBe(
      record.revoked_at,
    );
    expect(
      (await call(pair.work, 'DELETE', '/tokens/00000000-0000-4000-8000-000000000000', undefined, admin)).status,
    ).toBe(404);
  });

  it('last_used_at is written on first use and at most once a minute after', async () => {
    const viewer = await mintToken(pair.work, { role: 'viewer', name: 'busy' });
    const started = Date.now();
    for (let i = 0; i < 20; i += 1) {
      expect((await call(pair.work, 'GET', '/work/counts', undefined, bearer(viewer.token))).status).toBe(200);
    }
    let first: string | null = null;
    await expect
      .poll(async () => {
        first = (await call(pair.work, 'GET', `/tokens/${viewer.id}`, undefined, admin)).body.last_used_at;
        return first;
      })
      .toMatch(ISO_MS);
    expect(Date.parse(first!)).toBeGreaterThanOrEqual(started - 5);
    // A write of last_used_at is sent before the request's answer, so before the read below.
    for (let i = 0; i < 10; i += 1) await call(pair.work, 'GET', '/work/counts', undefined, bearer(viewer.token));
    expect((await call(pair.work, 'GET', `/tokens/${viewer.id}`, undefined, admin)).body.last_used_at).toBe(first);
  });

  it('a last use older than a minute is moved on by the next request', async () => {
    const viewer = await mintToken(pair.work, { role: 'viewer', name: 'idle' });
    const old = '2020-01-01T00:00:00.000Z';
    await (pair.database.kysely as Kysely<any>)
      .updateTable('tokens')
      .set({ last_used_at: old })
      .where('id', '=', viewer.id)
      .execute();
    await call(pair.work, 'GET', '/work/counts', undefined, bearer(viewer.token));
    await expect
      .poll(async () => (await call(pair.work, 'GET', `/tokens/${viewer.id}`, undefined, admin)).body.last_used_at)
      .not.toBe(old);
  });

  it('no secret in the logs, in any other answer, or in the database', async () => {
    const created = await call(pair.work, 'POST', '/tokens', { name: 'scanned', role: 'admin' }, admin);
    const secret: string = created.body.token;
    const answers: string[] = [];
    const record = async (response: { text: string; headers: Record<string, unknown> }) => {
      answers.push(response.text, JSON.stringify(response.headers));
    };
    await record(await call(pair.work, 'GET', '/work', undefined, bearer(secret)));
    await record(await call(pair.work, 'GET', '/tokens', undefined, bearer(secret)));
    await record(await call(pair.work, 'GET', `/tokens/${created.body.id}`, undefined, bearer(secret)));
    await record(await call(pair.work, 'GET', '/session', undefined, bearer(secret)));
    await record(
      await call(
        pair.work,
        'POST',
        '/work',
        { type: 'scan', description: 'made with the scanned token' },
        bearer(secret),
      ),
    );
    await record(await call(pair.work, 'GET', '/work', undefined, bearer(`${secret}x`)));
    await record(await call(pair.work, 'GET', '/work', undefined, bearer(secret.slice(0, -2))));
    await record(
      await call(pair.classify, 'POST', '/classify', { email_data: { subject: 'hi', body: 'there' } }, bearer(secret)),
    );
    await record(
      await call(
        pair.work,
        'POST',
        '/ui-api/classify',
        { email_data: { subject: 'proxied', body: 'x' } },
        bearer(secret),
      ),
    );
    const signIn = await call(pair.work, 'POST', '/session', { token: secret }, { [CSRF_HEADER]: '1' });
    expect(signIn.status).toBe(200);
    const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
    const sessionId = cookie.split('=')[1]!;
    await record({ text: signIn.text, headers: {} });
    await record(await call(pair.work, 'GET', '/work', undefined, { cookie }));
    await record(await call(pair.work, 'GET', '/session', undefined, { cookie }));
    await record(await call(pair.work, 'DELETE', `/tokens/${created.body.id}`, undefined, admin));
    await record(await call(pair.work, 'GET', '/work', undefined, bearer(secret)));
    for (const text of answers) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(ADMIN_SECRET);
    }
    expect(answers.join('\n')).not.toContain(sessionId);
    const logs = pair.logs.text();
    expect(logs.length).toBeGreaterThan(100);
    const dump = await dumpDatabase(pair.database);
    expect(dump).toContain('scanned');
    for (const text of [logs, dump]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(secret.slice(4, 40));
      expect(text).not.toContain(ADMIN_SECRET);
      expect(text).not.toContain(sessionId);
    }
  });
});

describe.each(await storesUnderTest())('a malformed token on %s', (kind) => {
  it('is refused before any database look-up; a well-formed one is looked up', async () => {
    const testDatabase = await createTestDatabase(kind);
    const database = await openTestDatabase(testDatabase);
    // Every query the app sends that names the tokens table is counted on its way out.
    const seen: string[] = [];
    const counting: KyselyPlugin = {
      transformQuery(args) {
        const text = JSON.stringify(args.node);
        if (text.includes('"tokens"')) seen.push(args.node.kind);
        return args.node;
      },
      async transformResult(args) {
        return args.result;
      },
    };
    const watched: Database = Object.assign(Object.create(database) as Database, {
      kysely: database.kysely.withPlugin(counting),
    });
    try {
      const app = await buildWorkApp({
        config: testConfig(testDatabase, AUTH_ENV),
        database: watched,
        logger: captureLogs('silent').logger,
        webRoot: null,
      });
      await app.ready();
      const good = generateToken();
      const badChecksum = `${good.slice(0, -1)}${good.endsWith('0') ? '1' : '0'}`;
      for (const malformed of ['adk_short', badChecksum, 'ghp_abcdef0123456789', 'x'.repeat(2000)]) {
        expect((await call(app, 'GET', '/work', undefined, bearer(malformed))).status, malformed).toBe(401);
      }
      expect(seen).toEqual([]);
      expect((await call(app, 'GET', '/work', undefined, bearer(good))).status).toBe(401);
      expect(seen).toEqual(['SelectQueryNode']);
      await app.close();
    } finally {
      await database.close();
      await testDatabase.destroy();
    }
  });
});
