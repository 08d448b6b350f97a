import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { ADMIN_SECRET, AUTH_ENV, bearer, mintToken } from '../support/auth.js';
import { storesUnderTest } from '../support/databases.js';
import { parsePrometheus } from '../support/prometheus.js';
import { api, connectHttp } from './helpers.js';

// A claim that waits (wait_s) for an agent that stopped listening must not take the next item:
// the item would sit on a lease nobody holds. The MCP endpoint is stateless, so a cancellation
// arrives in a POST of its own, and a hang-up only shows on the socket; both must end the wait.

const admin = bearer(ADMIN_SECRET);
const WAIT_S = 20;

describe.each(await storesUnderTest())('an abandoned claim over MCP on %s', (kind) => {
  let desk: TestApp;
  let base: string;
  let botToken: string;

  beforeAll(async () => {
    desk = await startWorkApp(kind, AUTH_ENV);
    await desk.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(desk.app.server.address() as AddressInfo).port}`;
    botToken = (await mintToken(desk.app, { role: 'agent', agent: 'bot-1' })).token;
  });
  afterAll(async () => desk?.close());

  /** Nothing logged at error level: a caller going away is ordinary. */
  function expectNoErrorsLogged(): void {
    const errors = desk.logs.lines.filter((line) => (JSON.parse(line) as { level: number }).level >= 50);
    expect(errors).toEqual([]);
  }

  /** The long polls waiting in the service, as its /metrics reports them. */
  async function waitingClaims(): Promise<number | undefined> {
    const response = await desk.app.inject({ method: 'GET', url: '/metrics', headers: admin });
    return parsePrometheus(response.body).value('agentdesk_work_claims_waiting');
  }

  let nextCallId = 1_000;
  /**
   * Once the given-up claim no longer waits, submits an item and checks it is still there for
   * the next claim: the given-up one took nothing.
   */
  async function expectNobodyClaims(type: string): Promise<void> {
    await expect.poll(waitingClaims, { timeout: 10_000 }).toBe(0);
    const submitted = await api(base, 'POST', '/work', admin, { type, description: 'after the claim was given up' });
    expect(submitted.status).toBe(201);
    const item = await api(base, 'GET', `/work/${submitted.body.id}`, admin);
    expect(item.body.status).toBe('queued');
    expect(item.body.assigned_agent).toBeNull();
    const next = await claimCall((nextCallId += 1), type, 0);
    expect(next.status).toBe(200);
    expect(JSON.stringify(await next.json())).toContain(submitted.body.id);
  }

  it('a client that hangs up ends its waiting claim', async () => {
    const hangUp = new AbortController();
    const call = fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        ...bearer(botToken),
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'claim_next_work', arguments: { wait_s: WAIT_S, types: ['hang_up'] } },
      }),
      signal: hangUp.signal,
    });
    await expect.poll(waitingClaims, { timeout: 10_000 }).toBe(1);
    hangUp.abort();
    await expect(call).rejects.toThrow();
    await expectNobodyClaims('hang_up');
    expectNoErrorsLogged();
  });

  /** One JSON-RPC message POSTed to /mcp as the bot, as a client's transport sends it. */
  function post(message: Record<string, unknown>): Promise<Response> {
    return fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        ...bearer(botToken),
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', ...message }),
    });
  }
  const claimCall = (id: number, type: string, waitS: number) =>
    post({
      id,
      method: 'tools/call',
      params: { name: 'claim_next_work', arguments: { wait_s: waitS, types: [type] } },
    });
  const cancellation = (requestId: number) =>
    post({ method: 'notifications/cancelled', params: { requestId, reason: 'the agent stopped' } });

  it('a cancellation that overtakes its call stops the call as it arrives', async () => {
    expect((await cancellation(41)).status).toBe(202);
    const started = Date.now();
    const answer = await claimCall(41, 'overtaken', WAIT_S);
    expect(answer.status).toBe(202);
    expect(await answer.text()).not.toContain('jsonrpc');
    expect(Date.now() - started).toBeLessThan(WAIT_S * 500);
    await expectNobodyClaims('overtaken');
    expectNoErrorsLogged();
  });

  it('a cancellation that comes after its answer leaves the next call with that id alone', async () => {
    const first = await claimCall(42, 'late_cancel', 0);
    expect(first.status).toBe(200);
    expect((await cancellation(42)).status).toBe(202);
    const submitted = await api(base, 'POST', '/work', admin, {
      type: 'late_cancel',
      description: 'for the call after the late cancellation',
    });
    expect(submitted.status).toBe(201);
    const again = await claimCall(42, 'late_cancel', 0);
    expect(again.status).toBe(200);
    expect(JSON.stringify(await again.json())).toContain(submitted.body.id);
  });

  it('a tool call the client cancels ends its waiting claim', async () => {
    const client = await connectHttp(base, bearer(botToken));
    const stop = new AbortController();
    const call = client.callTool(
      { name: 'claim_next_work', arguments: { wait_s: WAIT_S, types: ['cancelled'] } },
      undefined,
      { signal: stop.signal },
    );
    await expect.poll(waitingClaims, { timeout: 10_000 }).toBe(1);
    stop.abort();
    await expect(call).rejects.toThrow();
    await expectNobodyClaims('cancelled');
    expectNoErrorsLogged();
    await client.close();
  });
});
