import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/shared/config/config.js';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { ADMIN_SECRET, AUTH_ENV, bearer } from '../support/auth.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';

// Which mode a service starts in, and the one guard the open desk (AUTH=off) keeps:
// only a Host naming a loopback address or a name in ALLOWED_HOSTS is served, so a web page
// cannot reach a developer's desk through DNS rebinding, and no cross-site request gets in.

describe('AUTH and HOST', () => {
  const load = (env: Record<string, string | undefined>) => loadConfig({ DATABASE_URL: 'sqlite::memory:', ...env });

  it.each([
    [{}, 'off'],
    [{ HOST: 'localhost' }, 'off'],
    [{ HOST: '127.0.0.2' }, 'off'],
    [{ HOST: '::1' }, 'off'],
    [{ HOST: '0.0.0.0' }, 'tokens'],
    [{ HOST: '::' }, 'tokens'],
    [{ HOST: '192.168.1.20' }, 'tokens'],
    [{ HOST: '127.0.0.1', AUTH: 'tokens' }, 'tokens'],
    [{ HOST: '0.0.0.0', AUTH: 'off', AUTH_OFF_I_UNDERSTAND_THE_RISK: 'true' }, 'off'],
  ])('%o → AUTH=%s', (env, mode) => {
    expect(load(env).auth.mode).toBe(mode);
  });

  it('AUTH=off on a non-loopback HOST refuses to start, saying why and how to consent', () => {
    for (const consent of [{}, { AUTH_OFF_I_UNDERSTAND_THE_RISK: 'false' }]) {
      expect(() => load({ HOST: '0.0.0.0', AUTH: 'off', ...consent })).toThrow(ConfigError);
    }
    expect(() => load({ HOST: '0.0.0.0', AUTH: 'off' })).toThrow(
      /AUTH=off with HOST=0\.0\.0\.0 lets anyone.*AUTH_OFF_I_UNDERSTAND_THE_RISK=true/,
    );
  });

  it('AGENTDESK_ADMIN_TOKEN must be 32 characters or more, and is never echoed or kept', () => {
    const short = 'short-secret-0123456789';
    expect(() => load({ AGENTDESK_ADMIN_TOKEN: short })).toThrow(/at least 32 characters/);
    try {
      load({ AGENTDESK_ADMIN_TOKEN: short });
    } catch (error) {
      expect((error as Error).message).not.toContain(short);
    }
    const config = load({ AGENTDESK_ADMIN_TOKEN: ADMIN_SECRET });
    expect(JSON.stringify(config)).not.toContain(ADMIN_SECRET);
    expect(config.auth.adminTokenHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each([
    { AUTH: 'maybe' },
    { CLASSIFY_RATE_LIMIT: '0' },
    { AUTH_FAILURE_LIMIT: 'lots' },
    { SESSION_TTL_HOURS: '0' },
  ])('refuses %o', (env) => {
    expect(() => load(env)).toThrow(ConfigError);
  });
});

describe.each(await storesUnderTest())('the open desk (AUTH=off) on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startWorkApp(kind, { ALLOWED_HOSTS: 'desk.lan, Build-Box' });
  });
  afterAll(() => t?.close());

  it.each([
    'localhost',
    'localhost:8080',
    '127.0.0.1:8080',
    '127.9.9.9',
    '[::1]:8080',
    'desk.lan',
    'DESK.LAN:8080',
    'build-box',
  ])('serves Host: %s', async (host) => {
    expect((await call(t.app, 'GET', '/work', undefined, { host })).status).toBe(200);
  });

  it.each([
    'evil.example',
    'evil.example:8080',
    '192.168.1.20:8080',
    'desk.lan.evil.example',
    '127.0.0.1.evil.example',
  ])('answers 421 to Host: %s, on every route', async (host) => {
    for (const [method, url] of [
      ['GET', '/work'],
      ['GET', '/health'],
      ['POST', '/work'],
      ['GET', '/'],
    ] as const) {
      const response = await call(t.app, method, url, method === 'POST' ? { type: 'x', description: 'y' } : undefined, {
        host,
      });
      expect(response.status).toBe(421);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
  });

  it('keeps X-User as the creator, as before', async () => {
    const response = await call(t.app, 'POST', '/work', { type: 'x', description: 'y' }, { 'x-user': 'alice' });
    expect(response.body.created_by).toBe('alice');
  });

  it('refuses a state change a browser marks as cross-site, and gives no CORS permission', async () => {
    const body = { type: 'x', description: 'from another site' };
    expect((await call(t.app, 'POST', '/work', body, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await call(t.app, 'POST', '/work', body, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await call(t.app, 'POST', '/work', body, { 'sec-fetch-site': 'same-site' })).status).toBe(403);
    expect(
      (await call(t.app, 'POST', '/work', body, { origin: 'http://localhost', 'sec-fetch-site': 'same-origin' }))
        .status,
    ).toBe(201);
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/work',
      headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    const read = await call(t.app, 'GET', '/work', undefined, { origin: 'http://evil.example' });
    expect(read.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe.each(await storesUnderTest())('AUTH=tokens on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startWorkApp(kind, { ...AUTH_ENV, AUTH_FAILURE_LIMIT: '3' });
  });
  afterAll(() => t?.close());

  it('/health stays open; the API description documents the bearer scheme', async () => {
    expect((await call(t.app, 'GET', '/health')).status).toBe(200);
    const doc = (await call(t.app, 'GET', '/openapi.json')).body;
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.session).toMatchObject({ type: 'apiKey', in: 'cookie' });
    expect(doc.paths['/work'].get.security).toEqual([{ bearer: [] }, { session: [] }]);
    expect(doc.paths['/work'].get.responses).toHaveProperty('401');
    // The document's default is a credential: a public route says it needs none.
    expect(doc.security).toEqual([{ bearer: [] }, { session: [] }]);
    expect(doc.paths['/health'].get.security).toEqual([]);
    expect((await call(t.app, 'GET', '/docs/')).status).toBe(200);
  });

  it('does not need the Host guard: a token is the guard', async () => {
    expect(
      (await call(t.app, 'GET', '/work', undefined, { host: 'desk.example.com', ...bearer(ADMIN_SECRET) })).status,
    ).toBe(200);
  });

  it('slows down repeated 401s from one address, never a good token, and only that address', async () => {
    const from = (remoteAddress: string, headers: Record<string, string>) =>
      t.app.inject({ method: 'GET', url: '/work', remoteAddress, headers });
    for (const headers of [{}, bearer('adk_guess'), bearer('another-guess')]) {
      expect((await from('10.0.0.1', headers)).statusCode).toBe(401);
    }
    const slowed = await from('10.0.0.1', bearer('adk_guess'));
    expect(slowed.statusCode).toBe(429);
    expect(Number(slowed.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(slowed.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(slowed.headers['content-type']).toMatch(/^application\/problem\+json/);
    // A credential that works is never refused by the slow-down: tokens carry 256
    // random bits, so letting it through teaches a guesser nothing it could use.
    expect((await from('10.0.0.1', bearer(ADMIN_SECRET))).statusCode).toBe(200);
    const signIn = await t.app.inject({
      method: 'POST',
      url: '/session',
      remoteAddress: '10.0.0.1',
      headers: { 'content-type': 'application/json', 'x-agentdesk-csrf': '1' },
      payload: JSON.stringify({ token: ADMIN_SECRET }),
    });
    expect(signIn.statusCode).toBe(200);
    const wrongSignIn = await t.app.inject({
      method: 'POST',
      url: '/session',
      remoteAddress: '10.0.0.1',
      headers: { 'content-type': 'application/json', 'x-agentdesk-csrf': '1' },
      payload: JSON.stringify({ token: 'adk_wrong' }),
    });
    expect(wrongSignIn.statusCode).toBe(429);
    expect((await from('10.0.0.2', bearer(ADMIN_SECRET))).statusCode).toBe(200);
    expect((await from('10.0.0.2', bearer('adk_guess'))).statusCode).toBe(401);
    // Public routes are not affected.
    expect((await t.app.inject({ method: 'GET', url: '/health', remoteAddress: '10.0.0.1' })).statusCode).toBe(200);
  });
});
