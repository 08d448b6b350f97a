import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { AUTH_ENV, bearer, mintToken } from '../support/auth.js';
import { api, connectHttp, use } from './helpers.js';

// The /mcp endpoint's edges over a real socket: the methods a stateless endpoint refuses, bad
// requests as problem documents, DNS rebinding (Host) and cross-origin (Origin) refused, and
// under AUTH=off the agent named by X-User. None of this touches the store: SQLite only.

const ACCEPT = 'application/json, text/event-stream';
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'edge-test', version: '1' } },
};

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** node:http, because fetch will not send a Host of our choosing. */
function raw(base: string, method: string, headers: Record<string, string>, body?: string): Promise<Raw> {
  const url = new URL('/mcp', base);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: text === '' ? undefined : JSON.parse(text),
        });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** The answer's bytes as they came, for a body that must be empty. */
function rawText(
  base: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; headers: Raw['headers']; text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(new URL('/mcp', base), { method: 'POST', headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

async function listen(desk: TestApp): Promise<string> {
  await desk.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(desk.app.server.address() as AddressInfo).port}`;
}

describe('the /mcp endpoint with tokens', () => {
  let desk: TestApp;
  let base: string;
  let agent: Record<string, string>;
  const json = { 'content-type': 'application/json', accept: ACCEPT };

  beforeAll(async () => {
    desk = await startWorkApp('sqlite', AUTH_ENV);
    base = await listen(desk);
    agent = bearer((await mintToken(desk.app, { role: 'agent', agent: 'edge-bot' })).token);
  });
  afterAll(async () => desk?.close());

  it('answers 405 to GET and DELETE: it is stateless, with no server stream and no session', async () => {
    for (const method of ['GET', 'DELETE']) {
      const answer = await raw(base, method, { ...agent, accept: 'text/event-stream' });
      expect(answer.status, method).toBe(405);
      expect(answer.headers.allow).toBe('POST');
      expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
  });

  it('answers bad requests with problem documents', async () => {
    const body = JSON.stringify(INITIALIZE);
    const cases: Array<[string, Record<string, string>, string, number]> = [
      ['no credential', json, body, 401],
      ['no Accept for both JSON and SSE', { ...agent, 'content-type': 'application/json' }, body, 406],
      ['not JSON', { ...agent, ...json, 'content-type': 'text/plain' }, body, 415],
    ];
    for (const [what, headers, payload, status] of cases) {
      const answer = await raw(base, 'POST', headers, payload);
      expect(answer.status, what).toBe(status);
      expect(answer.headers['content-type'], what).toMatch(/^application\/problem\+json/);
      expect(answer.body).toMatchObject({ status, detail: expect.any(String) });
    }
    // The transport's own refusal is a problem document that is also the JSON-RPC error.
    const notAcceptable = await raw(base, 'POST', { ...agent, 'content-type': 'application/json' }, body);
    expect(notAcceptable.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
  });

  it("answers a body that is not JSON, or not a JSON-RPC message, with JSON-RPC's own errors", async () => {
    const cases: Array<[string, string, number]> = [
      ['broken JSON', '{"jsonrpc":', -32700],
      ['an empty body', '', -32700],
      ['not JSON-RPC', '{"hello":"world"}', -32600],
      ['a JSON-RPC version that is not 2.0', '{"jsonrpc":"1.0","id":1,"method":"ping"}', -32600],
      ['an empty batch', '[]', -32600],
      ['a batch holding a number', '[1]', -32600],
      ['a message with neither method nor result', '{"jsonrpc":"2.0","id":1}', -32600],
    ];
    for (const [what, payload, code] of cases) {
      const answer = await raw(base, 'POST', { ...agent, ...json }, payload);
      expect(answer.status, what).toBe(400);
      expect(answer.headers['content-type'], what).toMatch(/^application\/json/);
      expect(answer.body, what).toEqual({ jsonrpc: '2.0', id: null, error: { code, message: expect.any(String) } });
    }
  });

  it('answers a notification 202 with no body at all', async () => {
    const answer = await rawText(
      base,
      { ...agent, ...json },
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    );
    expect(answer.status).toBe(202);
    expect(answer.text).toBe('');
    expect(answer.headers['content-length'] ?? '0').toBe('0');
  });

  it('refuses a Host it does not serve (DNS rebinding) and another Origin, even with a valid token', async () => {
    const port = new URL(base).port;
    const body = JSON.stringify(INITIALIZE);
    const rebound = await raw(base, 'POST', { ...agent, ...json, host: `attacker.example:${port}` }, body);
    expect(rebound.status).toBe(421);
    const crossOrigin = await raw(base, 'POST', { ...agent, ...json, origin: 'http://attacker.example' }, body);
    expect(crossOrigin.status).toBe(403);
    // GET is no route here (stateless): whoever asks gets the 405 and nothing else.
    const get = await raw(base, 'GET', { ...agent, ...json, origin: 'http://attacker.example' });
    expect(get.status).toBe(405);
    // Loopback names and the page's own origin are served.
    const local = await raw(
      base,
      'POST',
      { ...agent, ...json, host: `localhost:${port}`, origin: `http://localhost:${port}` },
      body,
    );
    expect(local.status).toBe(200);
    expect(local.body).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'agentdesk' } } });
  });

  it('lets in the roles that read, and names an unknown tool as a protocol error', async () => {
    const intake = bearer((await mintToken(desk.app, { role: 'intake', name: 'mailroom' })).token);
    const refused = await raw(base, 'POST', { ...intake, ...json }, JSON.stringify(INITIALIZE));
    expect(refused.status).toBe(403);

    const client = await connectHttp(base, agent);
    await expect(client.callTool({ name: 'rm_rf', arguments: {} })).rejects.toMatchObject({ code: -32602 });
    await client.close();
  });

  it('answers tools/call with arguments that are not an object as invalid params, in one line', async () => {
    // `"arguments": null` was a -32603 with the schema library's dump.
    const call = (params: unknown) =>
      raw(base, 'POST', { ...agent, ...json }, JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params }));
    for (const params of [
      { name: 'claim_next_work', arguments: null },
      { name: 'claim_next_work', arguments: 'agent=edge-bot' },
      { name: 'claim_next_work', arguments: [1] },
      { name: 'claim_next_work', arguments: 5 },
      { arguments: {} },
      { name: 7 },
    ]) {
      const answer = await call(params);
      const what = JSON.stringify(params);
      expect(answer.status, what).toBe(200);
      expect(answer.body, what).toMatchObject({
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32602, message: expect.any(String) },
      });
      const { message } = answer.body.error;
      expect(message, what).not.toMatch(/\n/);
      expect(message.length, what).toBeLessThan(200);
      expect(message, what).not.toMatch(/invalid_type|"code"|expected/);
    }
    // Left out, the arguments are none: the tool's own validation answers.
    const none = await call({ name: 'claim_next_work' });
    expect(none.body.result ?? none.body.error, JSON.stringify(none.body)).toBeDefined();
    expect(none.body.error?.code).not.toBe(-32603);
  });
});

describe('the /mcp endpoint with AUTH=off', () => {
  let desk: TestApp;
  let base: string;

  beforeAll(async () => {
    desk = await startWorkApp('sqlite', { AUTH: 'off' });
    base = await listen(desk);
  });
  afterAll(async () => desk?.close());

  it('acts as the agent X-User names', async () => {
    await api(base, 'POST', '/work', { 'x-user': 'someone' }, { type: 'open_desk', description: 'for whoever claims' });
    const client = await connectHttp(base, { 'x-user': 'desk-bot' });
    const claimed = await use(client, 'claim_next_work', { types: ['open_desk'] });
    expect(claimed).toMatchObject({ assigned_agent: 'desk-bot', status: 'in_progress' });
    expect((await use(client, 'complete_work', { id: claimed.id })).status).toBe('completed');
    await client.close();
  });

  it('needs X-User, and still refuses a Host that is not loopback', async () => {
    const json = { 'content-type': 'application/json', accept: ACCEPT };
    const nameless = await raw(base, 'POST', json, JSON.stringify(INITIALIZE));
    expect(nameless.status).toBe(422);
    expect(nameless.body.detail).toContain('X-User');
    expect(nameless.body.errors[0].field).toBe('x-user');
    const port = new URL(base).port;
    const rebound = await raw(
      base,
      'POST',
      { ...json, 'x-user': 'desk-bot', host: `attacker.example:${port}` },
      JSON.stringify(INITIALIZE),
    );
    expect(rebound.status).toBe(421);
  });
});
