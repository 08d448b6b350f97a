import { type AddressInfo, type Socket, connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { AUTH_ENV, bearer, mintToken } from '../support/auth.js';
import { startClassifyApp } from '../support/classify-app.js';

// How long a client may take to send its request, over real sockets: a body that stalls or
// drips past its bound gets a 408 problem document and a closed connection (sooner for a caller
// no credential identified), slow headers too, and one address may hold only so many
// connections. Answers that take long on purpose (a claim's long poll, the event stream) are
// not cut. The bounds are small here; the assertions wait generously, never on a tight figure.
// Nothing here touches the store: SQLite only.

const LIMITS = {
  REQUEST_TIMEOUT_MS: '4000',
  REQUEST_TIMEOUT_UNAUTHENTICATED_MS: '400',
  BODY_IDLE_TIMEOUT_MS: '2000',
  BODY_IDLE_TIMEOUT_UNAUTHENTICATED_MS: '300',
};

/** Long enough for any bound above on a loaded machine, short of the test's own timeout. */
const GENEROUS_MS = 20_000;

interface Exchange {
  socket: Socket;
  /** What the server sent, and that it closed the connection, resolved on close. */
  closed: Promise<string>;
}

async function listen(desk: TestApp): Promise<number> {
  await desk.app.listen({ port: 0, host: '127.0.0.1' });
  return (desk.app.server.address() as AddressInfo).port;
}

function open(port: number): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    const closed = new Promise<string>((done) =>
      socket.once('close', () => done(Buffer.concat(chunks).toString('utf8'))),
    );
    socket.once('error', () => {});
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

function head(path: string, headers: Record<string, string>, length: number): string {
  const lines = [
    `POST ${path} HTTP/1.1`,
    'Host: 127.0.0.1',
    'Connection: close',
    'Content-Type: application/json',
    `Content-Length: ${length}`,
  ];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Resolves after `ms`: the pace of a slow client, never a wait for the server's state. */
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function expectTimedOut(answer: string): void {
  expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  expect(answer).toMatch(/content-type: application\/problem\+json/i);
  expect(answer).toMatch(/connection: close/i);
  const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { status: number; detail: string };
  expect(body).toMatchObject({ status: 408, detail: expect.any(String) });
}

/** Sends one byte every `everyMs` until the server closes the connection, or `max` bytes. */
async function drip(exchange: Exchange, everyMs: number, max: number): Promise<void> {
  let gone = false;
  void exchange.closed.then(() => (gone = true));
  for (let sent = 0; sent < max && !gone; sent += 1) {
    exchange.socket.write(' ');
    await pause(everyMs);
  }
}

describe('request deadlines on the work service', () => {
  let desk: TestApp;
  let port: number;
  let agent: Record<string, string>;

  beforeAll(async () => {
    desk = await startWorkApp('sqlite', { ...AUTH_ENV, ...LIMITS });
    port = await listen(desk);
    agent = bearer((await mintToken(desk.app, { role: 'agent', agent: 'slow-bot' })).token);
  });
  afterAll(async () => desk?.close());

  it(
    'answers 408 to a sign-in whose body stalls, and closes the connection',
    async () => {
      const exchange = await open(port);
      exchange.socket.write(head('/session', { 'x-agentdesk-csrf': '1' }, 100) + '{"to');
      expectTimedOut(await exchange.closed);
    },
    GENEROUS_MS,
  );

  it(
    'answers 408 to a sign-in that drips its body, each pause short, past the whole bound',
    async () => {
      const exchange = await open(port);
      exchange.socket.write(head('/session', { 'x-agentdesk-csrf': '1' }, 10_000));
      // 100 ms apart is under the idle bound; 40 bytes take far longer than the whole bound.
      await drip(exchange, 100, 40);
      expectTimedOut(await exchange.closed);
    },
    GENEROUS_MS,
  );

  it(
    'answers 408 to headers that never end',
    async () => {
      const exchange = await open(port);
      exchange.socket.write('POST /session HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      expect(await exchange.closed).toMatch(/^HTTP\/1\.1 408 /);
    },
    GENEROUS_MS,
  );

  it(
    'gives a caller its credential identified the longer bounds, and then cuts it too',
    async () => {
      const body = JSON.stringify({ type: 'slow', description: 'sent in two halves' });
      const slowButFine = await open(port);
      slowButFine.socket.write(head('/work', agent, Buffer.byteLength(body)) + body.slice(0, 10));
      // Longer than a pause allowed before authentication, well within the one after it.
      await pause(500);
      slowButFine.socket.write(body.slice(10));
      expect(await slowButFine.closed).toMatch(/^HTTP\/1\.1 201 /);

      const stalled = await open(port);
      stalled.socket.write(head('/work', agent, Buffer.byteLength(body)) + body.slice(0, 10));
      expectTimedOut(await stalled.closed);
    },
    GENEROUS_MS,
  );

  it(
    'does not cut an answer that takes longer than the bounds: a long poll and the event stream',
    async () => {
      const stream = await fetch(`http://127.0.0.1:${port}/events`, {
        headers: { ...agent, accept: 'text/event-stream' },
      });
      expect(stream.status).toBe(200);
      // Waits 5 s: longer than every bound above.
      const claim = await fetch(`http://127.0.0.1:${port}/work/claim`, {
        method: 'POST',
        headers: { ...agent, 'content-type': 'application/json' },
        body: JSON.stringify({ agent: 'slow-bot', wait_s: 5, types: ['nothing-of-this-type'] }),
      });
      expect(claim.status).toBe(204);
      // The stream, open all that time, still delivers.
      const created = await fetch(`http://127.0.0.1:${port}/work`, {
        method: 'POST',
        headers: { ...agent, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'after-the-wait', description: 'seen on the stream' }),
      });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };
      const reader = stream.body!.getReader();
      let seen = '';
      while (!seen.includes(id)) {
        const { value, done } = await reader.read();
        if (done) break;
        seen += new TextDecoder().decode(value);
      }
      expect(seen).toContain(id);
      await reader.cancel();
    },
    GENEROUS_MS,
  );
});

describe('connections per address', () => {
  let desk: TestApp;
  let port: number;

  beforeAll(async () => {
    desk = await startWorkApp('sqlite', { MAX_CONNECTIONS_PER_ADDRESS: '4' });
    port = await listen(desk);
  });
  afterAll(async () => desk?.close());

  it(
    'closes a connection over the cap of one address, and takes one again once another closed',
    async () => {
      // Kept-alive connections that each answered a request: open, idle, within every bound.
      const held: Exchange[] = [];
      for (let index = 0; index < 4; index += 1) {
        const exchange = await open(port);
        exchange.socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
        await expect.poll(() => exchange.socket.bytesRead > 0, { timeout: GENEROUS_MS }).toBe(true);
        held.push(exchange);
      }
      const refused = await open(port);
      refused.socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      expect(await refused.closed).toBe('');

      held[0]!.socket.destroy();
      await held[0]!.closed;
      await expect
        .poll(
          async () => {
            const again = await open(port);
            again.socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
            return (await again.closed).slice(0, 12);
          },
          { timeout: GENEROUS_MS },
        )
        .toBe('HTTP/1.1 200');
      for (const exchange of held) exchange.socket.destroy();
    },
    GENEROUS_MS,
  );
});

describe('request deadlines on the classification service', () => {
  let classify: TestApp;
  let port: number;

  beforeAll(async () => {
    classify = await startClassifyApp('sqlite', { ...LIMITS, LLM_PROVIDER: 'rules' });
    port = await listen(classify);
  });
  afterAll(async () => classify?.close());

  it(
    'answers 408 to a classification whose body stalls',
    async () => {
      const exchange = await open(port);
      exchange.socket.write(head('/classify', {}, 200) + '{"email_data":');
      expectTimedOut(await exchange.closed);
    },
    GENEROUS_MS,
  );
});
