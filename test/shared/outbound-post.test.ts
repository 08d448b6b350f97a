import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  RESPONSE_BODY_LIMIT,
  UnsafeOutboundUrl,
  checkOutboundUrl,
  createOutboundPoster,
  parseRetryAfter,
} from '../../src/shared/net/outbound-post.js';
import type { HostResolver } from '../../src/shared/net/ssrf.js';

// The POST a webhook delivery makes, against real HTTP receivers on 127.0.0.1: the address check
// at create and on every socket, no redirect followed, the timeout, the kept KiB, Retry-After.

interface Receiver {
  port: number;
  url: string;
  requests: { method: string; path: string; headers: IncomingMessage['headers']; body: string }[];
  close(): Promise<void>;
}

const receivers: Receiver[] = [];

async function receiver(answer: (response: ServerResponse, request: IncomingMessage) => void): Promise<Receiver> {
  const sockets = new Set<Socket>();
  const requests: Receiver['requests'] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({
        method: request.method!,
        path: request.url!,
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      answer(response, request);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const started: Receiver = {
    port,
    url: `http://127.0.0.1:${port}/hook`,
    requests,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  receivers.push(started);
  return started;
}

afterAll(async () => {
  await Promise.all(receivers.map((started) => started.close()));
});

/** A resolver from a script, one answer per call (the last one repeats); unknown names do not resolve. */
function scripted(answers: Record<string, string[][]>): HostResolver {
  const calls = new Map<string, number>();
  return async (hostname) => {
    const script = answers[hostname];
    if (!script) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    const n = calls.get(hostname) ?? 0;
    calls.set(hostname, n + 1);
    return script[Math.min(n, script.length - 1)]!;
  };
}

const POST = { headers: { 'webhook-id': 'msg_1' }, body: '{"type":"webhook.test"}', timeoutMs: 5_000 };
const ok = (response: ServerResponse) => response.end('ok');

describe('the outbound POST', () => {
  const posters: ReturnType<typeof createOutboundPoster>[] = [];
  const poster = (options: Parameters<typeof createOutboundPoster>[0]) => {
    const made = createOutboundPoster(options);
    posters.push(made);
    return made;
  };
  afterEach(async () => {
    await Promise.all(posters.splice(0).map((made) => made.close()));
  });

  it('refuses a loopback receiver unless 127.0.0.1 or the name it was reached by is listed', async () => {
    const target = await receiver(ok);
    const refused = await poster({ allowedHosts: [] }).post(target.url, POST);
    expect(refused).toMatchObject({ status_code: null, response_body: null, retry_after_s: null });
    expect(refused.error).toMatch(/host 127\.0\.0\.1 is not allowed: .*loopback or private.*OUTBOUND_ALLOWED_HOSTS/);
    expect(target.requests).toHaveLength(0);

    const byAddress = await poster({ allowedHosts: ['127.0.0.1'] }).post(target.url, POST);
    expect(byAddress).toMatchObject({ status_code: 200, response_body: 'ok', error: null, retry_after_s: null });
    const byName = await poster({
      allowedHosts: ['localhost'],
      resolve: scripted({ localhost: [['127.0.0.1']] }),
    }).post(`http://localhost:${target.port}/hook`, POST);
    expect(byName).toMatchObject({ status_code: 200, response_body: 'ok', error: null });
    expect(target.requests).toHaveLength(2);
    expect(target.requests[0]).toMatchObject({ method: 'POST', path: '/hook', body: POST.body });
    expect(target.requests[0]!.headers).toMatchObject({ 'webhook-id': 'msg_1', 'content-type': 'application/json' });
  });

  it('refuses link-local and metadata addresses even when listed, IPv4-mapped loopback when not listed', async () => {
    const listed = poster({ allowedHosts: ['169.254.169.254', '169.254.0.0/16', 'fe80::/10', 'meta.example'] });
    const resolve = scripted({ 'meta.example': [['169.254.169.254']] });
    for (const url of ['http://169.254.169.254/', 'http://[fe80::1]/', 'http://[::ffff:169.254.169.254]/']) {
      const result = await listed.post(url, POST);
      expect(result.error, url).toMatch(/link-local, cloud metadata or unspecified address/);
      expect(result.status_code).toBeNull();
      await expect(listed.check(url)).rejects.toThrow(UnsafeOutboundUrl);
    }
    await expect(checkOutboundUrl('http://meta.example/', { allowedHosts: ['meta.example'], resolve })).rejects.toThrow(
      /link-local/,
    );

    const target = await receiver(ok);
    const open = poster({ allowedHosts: [] });
    for (const host of ['[::ffff:127.0.0.1]', '[::ffff:7f00:1]']) {
      const url = `http://${host}:${target.port}/hook`;
      await expect(open.check(url)).rejects.toThrow(/loopback or private address.*OUTBOUND_ALLOWED_HOSTS/);
      expect((await open.post(url, POST)).error).toMatch(/not allowed/);
    }
    expect(target.requests).toHaveLength(0);
  });

  it('refuses a name that resolves to a private address, at create and again at connect (rebinding)', async () => {
    const target = await receiver(ok);
    const resolve = scripted({
      'intranet.example': [['10.1.2.3']],
      'mixed.example': [['93.184.216.34', '192.168.1.10']],
      'rebind.example': [['93.184.216.34'], ['127.0.0.1']],
    });
    const open = poster({ allowedHosts: [], resolve });
    for (const name of ['intranet.example', 'mixed.example'])
      await expect(open.check(`https://${name}/hook`), name).rejects.toThrow(`host ${name} is not allowed`);
    await expect(open.check('https://nowhere.example/')).rejects.toThrow('host nowhere.example does not resolve');
    // Public when the endpoint is saved; loopback when the socket opens.
    await open.check(`http://rebind.example:${target.port}/hook`);
    const result = await open.post(`http://rebind.example:${target.port}/hook`, POST);
    expect(result).toMatchObject({ status_code: null, error: expect.stringMatching(/rebind\.example is not allowed/) });
    expect(target.requests).toHaveLength(0);
  });

  it('refuses other schemes and credentials in the URL, as a result from post and an error from check', async () => {
    const open = poster({ allowedHosts: [] });
    for (const [url, message] of [
      ['ftp://example.com/', 'must use http or https'],
      ['not a url', 'must be an absolute http(s) URL'],
      ['https://user:secret@example.com/', 'must not carry credentials'],
    ] as const) {
      await expect(open.check(url)).rejects.toThrow(message);
      expect(await open.post(url, POST)).toMatchObject({ status_code: null, error: message });
    }
  });

  it('returns a redirect as the result and never follows it', async () => {
    const inside = await receiver(ok);
    const redirecting = await receiver((response) => {
      response.writeHead(302, { location: inside.url }).end('moved');
    });
    const listed = poster({ allowedHosts: ['127.0.0.1'] });
    const result = await listed.post(redirecting.url, POST);
    expect(result).toMatchObject({ status_code: 302, response_body: 'moved', error: null });
    const toPrivate = await receiver((response) => response.writeHead(307, { location: 'http://10.0.0.1/' }).end());
    expect(await listed.post(toPrivate.url, POST)).toMatchObject({ status_code: 307, response_body: '', error: null });
    expect(inside.requests).toHaveLength(0);
  });

  it('gives up after the timeout on a receiver that never answers, or stops half-way through its body', async () => {
    const silent = await receiver(() => undefined);
    const listed = poster({ allowedHosts: ['127.0.0.1'] });
    const hung = await listed.post(silent.url, { ...POST, timeoutMs: 150 });
    expect(hung).toMatchObject({ status_code: null, response_body: null, error: 'timed out after 150 ms' });

    const stalled = await receiver((response) => {
      response.writeHead(200);
      response.write('partial');
    });
    const half = await listed.post(stalled.url, { ...POST, timeoutMs: 150 });
    expect(half).toMatchObject({ status_code: 200, response_body: 'partial', error: 'timed out after 150 ms' });
  });

  it('keeps the first KiB of a large body and stops reading there', async () => {
    let settle!: (finished: boolean) => void;
    const closed = new Promise<boolean>((resolve) => (settle = resolve));
    const started = await receiver((response) => {
      response.writeHead(500, { 'content-type': 'text/plain' });
      // 64 MiB in 16 KiB chunks, as fast as the client reads them.
      const chunk = 'é'.repeat(8 * 1024);
      let written = 0;
      response.on('close', () => settle(response.writableFinished));
      const pump = () => {
        while (written < 4_096) {
          written += 1;
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
        response.end();
      };
      pump();
    });
    const result = await poster({ allowedHosts: ['127.0.0.1'] }).post(started.url, POST);
    expect(result.status_code).toBe(500);
    expect(result.error).toBeNull();
    // Two bytes a character: the KiB holds 512 of them, none cut in half.
    expect(result.response_body).toBe('é'.repeat(RESPONSE_BODY_LIMIT / 2));
    // The client hung up with most of the body unsent.
    expect(await closed).toBe(false);
  });

  it('answers a closed port, and reads Retry-After as seconds or as a date', async () => {
    const target = await receiver(ok);
    const port = target.port;
    await target.close();
    const refused = await poster({ allowedHosts: ['127.0.0.1'] }).post(`http://127.0.0.1:${port}/`, POST);
    expect(refused).toMatchObject({
      status_code: null,
      response_body: null,
      error: expect.stringMatching(/ECONNREFUSED/),
    });

    const now = new Date('2026-12-07T10:00:00Z');
    const busy = await receiver((response) =>
      response.writeHead(503, { 'retry-after': 'Mon, 07 Dec 2026 10:02:00 GMT' }).end(),
    );
    const ticks = [1_000, 1_042];
    const timed = poster({ allowedHosts: ['127.0.0.1'], now: () => now, monotonicMs: () => ticks.shift() ?? 0 });
    expect(await timed.post(busy.url, POST)).toMatchObject({ status_code: 503, retry_after_s: 120, latency_ms: 42 });
  });
});

describe('parseRetryAfter', () => {
  const now = new Date('2026-12-07T10:00:00Z');
  it.each([
    ['120', 120],
    [' 0 ', 0],
    ['Mon, 07 Dec 2026 10:00:30 GMT', 30],
    ['Mon, 07 Dec 2026 09:00:00 GMT', 0],
    [['7', '9'], 7],
    ['-5', null],
    ['1.5', null],
    ['soon', null],
    ['', null],
    [undefined, null],
  ] as const)('%j is %j', (value, seconds) => expect(parseRetryAfter(value, now)).toBe(seconds));
});
