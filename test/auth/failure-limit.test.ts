import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/shared/config/config.js';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { ADMIN_SECRET, AUTH_ENV, bearer } from '../support/auth.js';
import { storesUnderTest } from '../support/databases.js';

// The 401 slow-down counts failures per client address and per presented
// credential prefix, and never refuses a credential that works. Behind a reverse proxy listed
// in TRUST_PROXY the client is the X-Forwarded-For address; anyone else's X-Forwarded-For is
// ignored, so a spoofed header neither escapes the count nor charges somebody else.

const LIMIT = 30;
const GARBAGE = LIMIT + 5;

function garbage(i: number): string {
  // Each with its own prefix, so only the address counts them.
  return `adk_${String(i).padStart(8, '0')}${'x'.repeat(35)}_nocrc0`;
}

describe('TRUST_PROXY', () => {
  const load = (value: string | undefined) =>
    loadConfig({ DATABASE_URL: 'sqlite::memory:', TRUST_PROXY: value }).trustProxy;

  it.each([
    [undefined, false],
    ['false', false],
    ['true', true],
    ['2', 2],
    ['127.0.0.1', ['127.0.0.1']],
    [' 10.0.0.0/8 , ::1, 192.168.1.7/32 ,loopback', ['10.0.0.0/8', '::1', '192.168.1.7/32', 'loopback']],
  ])('%s → %o', (value, expected) => {
    expect(load(value)).toEqual(expected);
  });

  it.each(['maybe', '10.0.0.0/33', '10.0.0.300', 'proxy.example.com', '-1', '0', '1.5', '10.0.0.1,,'])(
    'refuses %s',
    (value) => {
      expect(() => load(value)).toThrow(ConfigError);
      expect(() => load(value)).toThrow(/^TRUST_PROXY: /);
    },
  );
});

describe.each(await storesUnderTest())('failed sign-ins on %s', (kind) => {
  describe('without a trusted proxy', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startWorkApp(kind, { ...AUTH_ENV, AUTH_FAILURE_LIMIT: String(LIMIT) });
    });
    afterAll(() => t?.close());

    const from = (remoteAddress: string, headers: Record<string, string>) =>
      t.app.inject({ method: 'GET', url: '/work', remoteAddress, headers });

    it(`after ${GARBAGE} garbage tokens from one address, a valid admin token from it still gets through`, async () => {
      const answers: number[] = [];
      for (let i = 0; i < GARBAGE; i += 1) answers.push((await from('10.1.0.1', bearer(garbage(i)))).statusCode);
      expect(answers.slice(0, LIMIT)).toEqual(Array(LIMIT).fill(401));
      expect(answers.slice(LIMIT)).toEqual(Array(GARBAGE - LIMIT).fill(429));
      expect((await from('10.1.0.1', bearer(ADMIN_SECRET))).statusCode).toBe(200);
      const signIn = await t.app.inject({
        method: 'POST',
        url: '/session',
        remoteAddress: '10.1.0.1',
        headers: { 'content-type': 'application/json', 'x-agentdesk-csrf': '1' },
        payload: JSON.stringify({ token: ADMIN_SECRET }),
      });
      expect(signIn.statusCode).toBe(200);
      const whoAmI = await t.app.inject({
        method: 'GET',
        url: '/session',
        remoteAddress: '10.1.0.1',
        headers: bearer(ADMIN_SECRET),
      });
      expect(whoAmI.statusCode).toBe(200);
      // The address's failures stay slowed down, and other addresses are not.
      expect((await from('10.1.0.1', bearer('adk_guess'))).statusCode).toBe(429);
      expect((await from('10.1.0.2', bearer('adk_guess'))).statusCode).toBe(401);
    });

    it('one credential presented from many addresses is slowed down by its prefix', async () => {
      const token = `adk_prefix00${'x'.repeat(35)}_nocrc0`;
      const answers: number[] = [];
      for (let i = 0; i < GARBAGE; i += 1) answers.push((await from(`10.2.${i}.1`, bearer(token))).statusCode);
      expect(answers.slice(0, LIMIT)).toEqual(Array(LIMIT).fill(401));
      expect(answers.slice(LIMIT)).toEqual(Array(GARBAGE - LIMIT).fill(429));
      // Another credential from a fresh address is counted on its own.
      expect((await from('10.2.250.1', bearer(garbage(8)))).statusCode).toBe(401);
    });

    it('X-Forwarded-For is ignored: spoofing it neither escapes the count nor charges the named address', async () => {
      const answers: number[] = [];
      for (let i = 0; i < GARBAGE; i += 1) {
        answers.push(
          (await from('10.3.0.1', { ...bearer(garbage(100 + i)), 'x-forwarded-for': `203.0.113.${i}` })).statusCode,
        );
      }
      expect(answers.slice(LIMIT)).toEqual(Array(GARBAGE - LIMIT).fill(429));
      expect((await from('10.3.0.9', { ...bearer(garbage(200)), 'x-forwarded-for': '10.3.0.1' })).statusCode).toBe(401);
      expect(t.logs.lines.some((line) => line.includes('"client":"10.3.0.1"'))).toBe(true);
      expect(t.logs.text()).not.toContain('203.0.113.');
    });
  });

  describe('behind a trusted proxy', () => {
    let t: TestApp;
    const PROXY = '10.9.0.5';
    beforeAll(async () => {
      t = await startWorkApp(kind, {
        ...AUTH_ENV,
        AUTH_FAILURE_LIMIT: String(LIMIT),
        TRUST_PROXY: `${PROXY}, 10.8.0.0/16`,
      });
    });
    afterAll(() => t?.close());

    const via = (client: string, headers: Record<string, string>, remoteAddress = PROXY) =>
      t.app.inject({ method: 'GET', url: '/work', remoteAddress, headers: { ...headers, 'x-forwarded-for': client } });

    it('counts the client X-Forwarded-For names, and lets a valid token through from it', async () => {
      const answers: number[] = [];
      for (let i = 0; i < GARBAGE; i += 1)
        answers.push((await via('198.51.100.7', bearer(garbage(300 + i)))).statusCode);
      expect(answers.slice(0, LIMIT)).toEqual(Array(LIMIT).fill(401));
      expect(answers.slice(LIMIT)).toEqual(Array(GARBAGE - LIMIT).fill(429));
      expect((await via('198.51.100.7', bearer(ADMIN_SECRET))).statusCode).toBe(200);
      // Everyone else behind the same proxy is unaffected, through either listed proxy.
      expect((await via('198.51.100.8', bearer(garbage(400)))).statusCode).toBe(401);
      expect((await via('198.51.100.8', bearer(garbage(401)), '10.8.3.4')).statusCode).toBe(401);
      expect((await via('198.51.100.8', bearer(ADMIN_SECRET))).statusCode).toBe(200);
      // The request log names the client, not the proxy.
      expect(t.logs.lines.some((line) => line.includes('"client":"198.51.100.7"'))).toBe(true);
    });

    it('an X-Forwarded-For from an address that is not a listed proxy is ignored', async () => {
      const answers: number[] = [];
      for (let i = 0; i < GARBAGE; i += 1) {
        answers.push((await via(`198.51.100.${100 + i}`, bearer(garbage(500 + i)), '192.0.2.44')).statusCode);
      }
      expect(answers.slice(LIMIT)).toEqual(Array(GARBAGE - LIMIT).fill(429));
      expect((await via('198.51.100.200', bearer(garbage(600)))).statusCode).toBe(401);
    });
  });
});

describe.each(await storesUnderTest())('TRUST_PROXY as a hop count on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startWorkApp(kind, { ...AUTH_ENV, TRUST_PROXY: '1' });
  });
  afterAll(() => t?.close());

  it('the client is the address the one trusted hop appended, not what the caller wrote before it', async () => {
    const headers = { ...bearer(ADMIN_SECRET), 'x-forwarded-for': '203.0.113.9, 198.51.100.3' };
    expect((await t.app.inject({ method: 'GET', url: '/work', remoteAddress: '192.0.2.1', headers })).statusCode).toBe(
      200,
    );
    expect(t.logs.lines.some((line) => line.includes('"client":"198.51.100.3"'))).toBe(true);
    expect(t.logs.text()).not.toContain('"client":"203.0.113.9"');
  });
});
