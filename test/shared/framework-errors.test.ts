import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorkApp } from '../../src/services/work.js';
import { type TestApp, captureLogs, startWorkApp, testConfig } from '../support/apps.js';
import { createTestDatabase, openTestDatabase } from '../support/databases.js';
import { startClassifyApp } from '../support/classify-app.js';

const run = promisify(execFile);

// Every answer either service gives is problem+json, the ones Node and
// Fastify's router write themselves included, and a wrong method on a known path is a 405
// with Allow. The router is the same on both stores, so SQLite alone is enough here.

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends bytes Node's parser or Fastify's router will refuse, which fetch() cannot send. */
function rawRequest(port: number, request: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
    socket.write(request);
  });
}

function get(path: string, extraHeaders = ''): string {
  return `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${extraHeaders}\r\n`;
}

function expectProblem(answer: RawAnswer, status: number): Record<string, unknown> {
  expect(answer.status, answer.body).toBe(status);
  expect(answer.headers['content-type']).toContain('application/problem+json');
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  expect(body).toMatchObject({
    status,
    type: expect.stringContaining('https://agentdesk.dev/problems/'),
    title: expect.any(String),
  });
  expect(typeof body.detail).toBe('string');
  return body;
}

describe('errors Node and the router raise are problem+json too', () => {
  let work: TestApp;
  let classify: TestApp;
  let workPort: number;
  let classifyPort: number;

  beforeAll(async () => {
    [work, classify] = await Promise.all([
      startWorkApp('sqlite'),
      startClassifyApp('sqlite', { LLM_PROVIDER: 'rules' }),
    ]);
    await work.app.listen({ host: '127.0.0.1', port: 0 });
    await classify.app.listen({ host: '127.0.0.1', port: 0 });
    workPort = (work.app.server.address() as { port: number }).port;
    classifyPort = (classify.app.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await work?.close();
    await classify?.close();
  });

  // The server answered a body it refused before reading it and closed at once, so a
  // client still sending met a reset (EPIPE) instead of the answer: half of fetch's tries failed.
  // The client runs in a process of its own: in this one, the server could not answer before
  // fetch had written everything, and the fault never showed.
  it('a body over the limit, or of a type not taken, reaches fetch as its problem, every time', async () => {
    const tries = [
      ...Array.from({ length: 6 }, () => ({
        url: `http://127.0.0.1:${workPort}/work`,
        mb: 8,
        type: 'application/json',
      })),
      ...Array.from({ length: 3 }, () => ({
        url: `http://127.0.0.1:${classifyPort}/classify`,
        mb: 16,
        type: 'application/json',
      })),
      ...Array.from({ length: 3 }, () => ({ url: `http://127.0.0.1:${workPort}/work`, mb: 4, type: 'text/plain' })),
    ];
    const client = `
      const answers = [];
      for (const { url, mb, type } of ${JSON.stringify(tries)}) {
        const body = '{"description":"' + 'x'.repeat(mb * 1024 * 1024) + '"}';
        try {
          const response = await fetch(url, { method: 'POST', headers: { 'content-type': type }, body });
          answers.push({ status: response.status, type: response.headers.get('content-type'), body: await response.json() });
        } catch (error) {
          answers.push({ error: String(error.cause?.code ?? error.message) });
        }
      }
      console.log(JSON.stringify(answers));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', client]);
    const answers = JSON.parse(stdout) as Array<{
      status?: number;
      type?: string;
      body?: { status: number };
      error?: string;
    }>;
    expect(answers.map((answer) => answer.error ?? answer.status)).toEqual([
      ...Array(9).fill(413),
      ...Array(3).fill(415),
    ]);
    for (const answer of answers) {
      expect(answer.type).toContain('application/problem+json');
      expect(answer.body?.status).toBe(answer.status);
    }
  });

  it('a path parameter over 100 characters is a 404 problem, not Fastify 414 JSON', async () => {
    const body = expectProblem(await rawRequest(workPort, get(`/work/agent/${'a'.repeat(101)}`)), 404);
    expect(body.detail).toBe('No such resource');
    expectProblem(await rawRequest(workPort, get(`/work/${'f'.repeat(300)}`)), 404);
  });

  it('a path that is not valid percent-encoded UTF-8 (%c0%ae) is a 400 problem', async () => {
    const body = expectProblem(await rawRequest(workPort, get('/work/%c0%ae%c0%ae')), 400);
    expect(body.detail).toMatch(/path/i);
    expectProblem(await rawRequest(classifyPort, get('/%c0%ae')), 400);
  });

  it('headers larger than Node accepts are a 431 problem', async () => {
    const answer = await rawRequest(workPort, get('/health', `X-Big: ${'b'.repeat(20_000)}\r\n`));
    expectProblem(answer, 431);
  });

  it('a lower-case method, or bytes that are not HTTP, are a 400 problem', async () => {
    const lower = expectProblem(await rawRequest(workPort, 'get /health HTTP/1.1\r\nHost: x\r\n\r\n'), 400);
    expect(lower.detail).toMatch(/method/i);
    expectProblem(await rawRequest(classifyPort, 'HELLO\r\n\r\n'), 400);
  });

  it('a wrong method on a known path is a 405 with Allow; an unknown path stays a 404', async () => {
    const onList = await work.app.inject({ method: 'DELETE', url: '/projects' });
    expect(onList.statusCode).toBe(405);
    expect(onList.headers['content-type']).toContain('application/problem+json');
    expect(onList.headers.allow).toBe('GET, HEAD, POST');
    expect(onList.json()).toMatchObject({ status: 405, title: 'Method Not Allowed' });

    const onItem = await work.app.inject({ method: 'PUT', url: '/work/0b9f8a52-2f0a-4e7e-9a39-3c8d1f1f2e10' });
    expect(onItem.statusCode).toBe(405);
    expect(onItem.headers.allow).toBe('DELETE, GET, HEAD, PATCH');

    const onClassify = await classify.app.inject({ method: 'GET', url: '/classify' });
    expect(onClassify.statusCode).toBe(405);
    expect(onClassify.headers.allow).toBe('POST');

    const unknown = await work.app.inject({ method: 'GET', url: '/nowhere' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers.allow).toBeUndefined();
  });

  it('11 KB of unknown query parameters: a short 422 that says how many errors it left out', async () => {
    const query = Array.from({ length: 1_600 }, (_, index) => `u${index}=1`).join('&');
    expect(query.length).toBeGreaterThan(11_000);
    const response = await work.app.inject({ method: 'GET', url: `/work?${query}` });
    expect(response.statusCode).toBe(422);
    expect(response.headers['content-type']).toContain('application/problem+json');
    expect(response.body.length).toBeLessThan(4_096);
    const body = response.json();
    expect(body.errors).toHaveLength(20);
    expect(body.errors[0]).toEqual({ field: 'u0', message: 'is not a known field' });
    expect(body.errors_omitted).toBe(1_580);
    expect(body.detail).toContain('and 1580 more');
  });

  it('a request that arrives while the service shuts down is a 503 problem with Retry-After', async () => {
    const testDatabase = await createTestDatabase('sqlite');
    const database = await openTestDatabase(testDatabase);
    const app = await buildWorkApp({
      config: testConfig(testDatabase),
      database,
      logger: captureLogs('warn').logger,
      webRoot: null,
    });
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let started: () => void = () => undefined;
    const inFlight = new Promise<void>((resolve) => (started = resolve));
    // A request still being served when close() begins; a second one waits behind it on the socket.
    app.get('/slow', { config: { access: 'public' }, schema: { hide: true } }, async () => {
      started();
      await released;
      return { ok: true };
    });
    // Registered after the app's own, so run once it has started refusing requests.
    let refusing: () => void = () => undefined;
    const shuttingDown = new Promise<void>((resolve) => (refusing = resolve));
    app.addHook('preClose', async () => refusing());
    let refused: () => void = () => undefined;
    const secondRefused = new Promise<void>((resolve) => (refused = resolve));
    app.addHook('onSend', async (request) => {
      if (request.url === '/work') refused();
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const port = (app.server.address() as { port: number }).port;
    try {
      const socket = connect(port, '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk) => chunks.push(chunk));
      const ended = new Promise((resolve) => socket.on('close', resolve));
      socket.write('GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      await inFlight;
      const closed = app.close();
      await shuttingDown;
      // The connection is busy, so closing leaves it open; its next request arrives mid-shutdown.
      socket.write('GET /work HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
      await secondRefused;
      release();
      await ended;
      await closed;
      const text = Buffer.concat(chunks).toString('utf8');
      const second = text.slice(text.indexOf('HTTP/1.1 503'));
      expect(second, text).toMatch(/^HTTP\/1.1 503/);
      expect(second.toLowerCase()).toContain('content-type: application/problem+json');
      expect(second.toLowerCase()).toContain('retry-after: 1');
      expect(second).toContain('"status":503');
    } finally {
      release();
      await app.close();
      await database.close();
      await testDatabase.destroy();
    }
  });
});
