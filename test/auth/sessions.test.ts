import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSRF_HEADER, SESSION_COOKIE } from '../../src/auth/roles.js';
import type { HttpApp } from '../../src/shared/http/types.js';
import { ADMIN_SECRET, type AuthPair, bearer, mintToken, startAuthPair } from '../support/auth.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';

// A browser exchanges its token once for an HttpOnly, SameSite=Strict session
// cookie; state changes through the cookie need the CSRF header and a same-origin Origin;
// revoking the token ends its sessions at once.

const CSRF = { [CSRF_HEADER]: '1' };

function cookieOf(setCookie: unknown): string {
  return String(Array.isArray(setCookie) ? setCookie[0] : setCookie).split(';')[0]!;
}

describe.each(await storesUnderTest())('browser sessions on %s', (kind) => {
  let pair: AuthPair;
  let app: HttpApp;

  beforeAll(async () => {
    pair = await startAuthPair(kind, { SESSION_TTL_HOURS: '2' });
    app = pair.work;
  });
  afterAll(() => pair?.close());

  async function signIn(token: string): Promise<string> {
    const response = await call(app, 'POST', '/session', { token }, CSRF);
    expect(response.status, response.text).toBe(200);
    return cookieOf(response.headers['set-cookie']);
  }

  it('GET /session says authentication is on and nobody is signed in', async () => {
    const response = await call(app, 'GET', '/session');
    expect(response.body).toEqual({ auth: 'tokens', principal: null });
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('sign-in sets an HttpOnly, SameSite=Strict cookie that is not the token', async () => {
    const agent = await mintToken(app, { role: 'agent', name: 'ada-browser', agent: 'ada' });
    const response = await call(app, 'POST', '/session', { token: agent.token }, CSRF);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      auth: 'tokens',
      principal: { name: 'ada', role: 'agent', agent: 'ada', token_id: agent.id },
    });
    const setCookie = String(response.headers['set-cookie']);
    expect(setCookie).toMatch(
      new RegExp(`^${SESSION_COOKIE}=[0-9A-Za-z]{43}; Path=/; HttpOnly; SameSite=Strict; Max-Age=7200$`),
    );
    expect(setCookie).not.toContain(agent.token);
    expect(response.text).not.toContain(agent.token);
    const cookie = cookieOf(setCookie);
    expect((await call(app, 'GET', '/session', undefined, { cookie })).body.principal).toMatchObject({
      name: 'ada',
      role: 'agent',
    });
  });

  it('the cookie reads; a state change also needs the CSRF header and a same-origin Origin', async () => {
    const cookie = await signIn((await mintToken(app, { role: 'agent', name: 'ada-2', agent: 'ada' })).token);
    expect((await call(app, 'GET', '/work', undefined, { cookie })).status).toBe(200);
    const body = { type: 'browser', description: 'from a session' };
    const bare = await call(app, 'POST', '/work', body, { cookie });
    expect(bare.status).toBe(403);
    expect(bare.body.detail).toContain(CSRF_HEADER);
    const crossSite = await call(app, 'POST', '/work', body, {
      cookie,
      ...CSRF,
      origin: 'http://evil.example',
      host: 'localhost',
    });
    expect(crossSite.status).toBe(403);
    const fetchMeta = await call(app, 'POST', '/work', body, { cookie, ...CSRF, 'sec-fetch-site': 'cross-site' });
    expect(fetchMeta.status).toBe(403);
    const ok = await call(app, 'POST', '/work', body, {
      cookie,
      ...CSRF,
      origin: 'http://localhost:80',
      host: 'localhost:80',
    });
    expect(ok.status).toBe(201);
    expect(ok.body.created_by).toBe('ada');
  });

  it('the role applies through the cookie as through the token', async () => {
    const cookie = await signIn((await mintToken(app, { role: 'viewer', name: 'watcher' })).token);
    expect((await call(app, 'GET', '/work', undefined, { cookie })).status).toBe(200);
    expect((await call(app, 'POST', '/projects', { name: 'nope' }, { cookie, ...CSRF })).status).toBe(403);
  });

  it('a bad token does not sign in, and says nothing about why', async () => {
    const revoked = await mintToken(app, { role: 'admin', name: 'gone' });
    await call(app, 'DELETE', `/tokens/${revoked.id}`, undefined, bearer(ADMIN_SECRET));
    const answers = new Set<string>();
    for (const token of ['adk_nope', revoked.token, 'x'.repeat(40)]) {
      const response = await call(app, 'POST', '/session', { token }, CSRF);
      expect(response.status).toBe(401);
      expect(response.headers['set-cookie']).toBeUndefined();
      answers.add(response.text);
    }
    expect(answers.size).toBe(1);
    expect((await call(app, 'POST', '/session', { token: ADMIN_SECRET })).status).toBe(403);
  });

  it('AGENTDESK_ADMIN_TOKEN signs in as admin', async () => {
    const cookie = await signIn(ADMIN_SECRET);
    expect((await call(app, 'GET', '/tokens', undefined, { cookie })).status).toBe(200);
  });

  it('revoking the token ends its sessions at once; the dead cookie is cleared', async () => {
    const minted = await mintToken(app, { role: 'viewer', name: 'revoked-browser' });
    const cookie = await signIn(minted.token);
    expect((await call(app, 'GET', '/work', undefined, { cookie })).status).toBe(200);
    expect((await call(app, 'DELETE', `/tokens/${minted.id}`, undefined, bearer(ADMIN_SECRET))).status).toBe(204);
    expect((await call(app, 'GET', '/work', undefined, { cookie })).status).toBe(401);
    const session = await call(app, 'GET', '/session', undefined, { cookie });
    expect(session.body.principal).toBeNull();
    expect(String(session.headers['set-cookie'])).toContain('Max-Age=0');
  });

  it('sign-out needs the CSRF header, ends the session and clears the cookie', async () => {
    const cookie = await signIn((await mintToken(app, { role: 'viewer', name: 'leaving' })).token);
    expect((await call(app, 'DELETE', '/session', undefined, { cookie })).status).toBe(403);
    expect((await call(app, 'GET', '/work', undefined, { cookie })).status).toBe(200);
    const out = await call(app, 'DELETE', '/session', undefined, { cookie, ...CSRF });
    expect(out.status).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(new RegExp(`^${SESSION_COOKIE}=; .*Max-Age=0`));
    expect((await call(app, 'GET', '/work', undefined, { cookie })).status).toBe(401);
  });

  it('a session ends when its token expires, whatever SESSION_TTL_HOURS says', async () => {
    const soon = new Date(Date.now() + 1_500).toISOString();
    const response = await call(
      app,
      'POST',
      '/tokens',
      { name: 'brief', role: 'viewer', expires_at: soon },
      bearer(ADMIN_SECRET),
    );
    const signedIn = await call(app, 'POST', '/session', { token: response.body.token }, CSRF);
    expect(String(signedIn.headers['set-cookie'])).toMatch(/Max-Age=[01]$/);
    const cookie = cookieOf(signedIn.headers['set-cookie']);
    await expect
      .poll(async () => (await call(app, 'GET', '/work', undefined, { cookie })).status, { timeout: 4_000 })
      .toBe(401);
  });

  it('a made-up cookie is a 401', async () => {
    for (const value of ['x', 'a'.repeat(43), '']) {
      expect((await call(app, 'GET', '/work', undefined, { cookie: `${SESSION_COOKIE}=${value}` })).status).toBe(401);
    }
  });
});

describe.each(await storesUnderTest())('sessions with AUTH=off on %s', (kind) => {
  let pair: AuthPair;
  beforeAll(async () => {
    pair = await startAuthPair(kind, { AUTH: 'off' });
  });
  afterAll(() => pair?.close());

  it('GET /session names the X-User caller; POST /session has nothing to do', async () => {
    expect((await call(pair.work, 'GET', '/session', undefined, { 'x-user': 'alice' })).body).toEqual({
      auth: 'off',
      principal: { name: 'alice', role: 'admin', agent: null, token_id: null },
    });
    expect((await call(pair.work, 'POST', '/session', { token: ADMIN_SECRET }, CSRF)).status).toBe(409);
  });
});
