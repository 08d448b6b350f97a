import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LookupAddress } from 'node:dns';
import { buildGuardedLookup, createGuardedFetch } from '../../src/shared/net/guarded-fetch.js';
import type { HostResolver } from '../../src/shared/net/ssrf.js';
import type { TestApp } from '../support/apps.js';
import { storesUnderTest } from '../support/databases.js';
import { type FakeLlm, startFakeLlm } from '../support/fake-llm.js';
import { call } from '../support/http.js';
import { CALLER_KEY, SERVER_KEY, startClassifyApp, testResolver } from '../support/classify-app.js';

const PUBLIC_ADDRESS = '93.184.216.34';

/**
 * `rebind.example` answers with a public address the first time it is asked (the check when
 * the request arrives) and with loopback every time after (when a socket opens), as an
 * attacker's DNS server with a zero TTL would.
 */
function rebindingResolver(): HostResolver & { calls: string[]; reset(): void } {
  const calls: string[] = [];
  const resolver = async (hostname: string): Promise<string[]> => {
    calls.push(hostname);
    if (hostname === 'rebind.example')
      return calls.filter((name) => name === hostname).length === 1 ? [PUBLIC_ADDRESS] : ['127.0.0.1'];
    return testResolver(hostname);
  };
  return Object.assign(resolver, { calls, reset: () => void (calls.length = 0) });
}

let counter = 0;
function freshEmail(patch: Record<string, unknown> = {}): Record<string, unknown> {
  counter += 1;
  return {
    email_data: { subject: `Rebind ${counter}`, body: `Could you look at item ${counter}?` },
    id: `rebind-${counter}-${Date.now()}`,
    ...patch,
  };
}

describe.each(await storesUnderTest())('DNS rebinding of a caller base_url on %s', (kind) => {
  let callerFake: FakeLlm;
  let t: TestApp;
  const resolver = rebindingResolver();
  beforeAll(async () => {
    callerFake = await startFakeLlm();
    t = await startClassifyApp(
      kind,
      {
        LLM_PROVIDER: 'openai',
        LLM_API_KEY: SERVER_KEY,
        LLM_BASE_URL: 'http://127.0.0.1:9/v1',
        LLM_TIMEOUT_MS: '2000',
        LLM_MAX_RETRIES: '2',
        LLM_ALLOWED_HOSTS: 'localhost',
      },
      resolver,
    );
  });
  afterAll(async () => {
    await t.close();
    await callerFake.close();
  });
  afterEach(() => {
    callerFake.requests.length = 0;
    resolver.reset();
  });
  const classify = (body: unknown) => call(t.app, 'POST', '/classify', body);
  const port = () => new URL(callerFake.url).port;

  it.each([
    ['openai', () => `http://rebind.example:${port()}/v1`],
    ['anthropic', () => `http://rebind.example:${port()}`],
  ])('a %s host that passes the check but connects to loopback never gets the request', async (provider, baseUrl) => {
    const email = freshEmail({ provider, base_url: baseUrl(), api_key: CALLER_KEY });
    const response = await classify(email);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      category: 'uncategorized',
      needs_action: false,
      confidence: 0,
      dedupe: { message_id: email.id },
    });
    // Refused at connect time, and not retried: another try only gives the DNS another go.
    expect(response.body.reasoning).toContain('after 1 attempt (provider_error)');
    expect(callerFake.requests).toHaveLength(0);
    // The check and then the connection each asked: the refusal came from the second answer.
    expect(resolver.calls.filter((name) => name === 'rebind.example').length).toBeGreaterThanOrEqual(2);
    expect(response.text).not.toContain(CALLER_KEY);
    expect(t.logs.text()).not.toContain(CALLER_KEY);
  });

  it('an allow-listed host that resolves to loopback still reaches its server', async () => {
    const response = await classify(freshEmail({ base_url: `http://localhost:${port()}/v1`, api_key: CALLER_KEY }));
    expect(response.status).toBe(200);
    expect(response.body.category).toBe('action_required');
    expect(callerFake.requests).toHaveLength(1);
    expect(callerFake.requests[0]!.headers.authorization).toBe(`Bearer ${CALLER_KEY}`);
  });
});

describe('the guarded fetch', () => {
  let fake: FakeLlm;
  beforeAll(async () => {
    fake = await startFakeLlm();
  });
  afterAll(() => fake.close());

  // Node connects to an address literal without a lookup; a redirect could name one.
  it.each(['127.0.0.1', '[::ffff:127.0.0.1]'])(
    'refuses an address literal (%s) before sending anything',
    async (host) => {
      const guardedFetch = createGuardedFetch(testResolver);
      const port = new URL(fake.url).port;
      await expect(
        guardedFetch(`http://${host}:${port}/v1/chat/completions`, { method: 'POST', body: '{}' }),
      ).rejects.toMatchObject({ cause: { name: 'UnsafeBaseUrl' } });
      expect(fake.requests).toHaveLength(0);
    },
  );

  it('hands the socket the checked public addresses, filtered by family', async () => {
    const lookup = buildGuardedLookup(async () => [PUBLIC_ADDRESS, '2606:2800:220:1:248:1893:25c8:1946']);
    const all = await new Promise<LookupAddress[]>((resolve, reject) =>
      lookup('llm.public.example', { all: true }, (error, addresses) =>
        error ? reject(error) : resolve(addresses as LookupAddress[]),
      ),
    );
    expect(all).toEqual([
      { address: PUBLIC_ADDRESS, family: 4 },
      { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
    ]);
    const one = await new Promise<[string, number | undefined]>((resolve, reject) =>
      lookup('llm.public.example', { family: 6 }, (error, address, family) =>
        error ? reject(error) : resolve([address as string, family]),
      ),
    );
    expect(one).toEqual(['2606:2800:220:1:248:1893:25c8:1946', 6]);
  });

  it('fails the lookup when any answer is blocked', async () => {
    const lookup = buildGuardedLookup(async () => [PUBLIC_ADDRESS, '169.254.169.254']);
    const error = await new Promise<Error | null>((resolve) =>
      lookup('mixed.example', { all: true }, (failure) => resolve(failure)),
    );
    expect(error?.name).toBe('UnsafeBaseUrl');
    expect(error?.message).toContain('mixed.example');
  });
});
