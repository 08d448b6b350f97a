import { type Server, type Socket, createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHostGuard, normalizeHost } from '../../src/intake/host-guard.js';
import { loadConfig } from '../../src/shared/config/config.js';
import { type ImapTarget, probeImap } from '../../src/intake/imap/connection.js';
import { type Dovecot, startDovecot } from '../support/dovecot.js';
import { freePort } from '../support/processes.js';

// The guard on mailbox hosts, where the socket opens (a DNS answer that
// changed since the mailbox was saved cannot point it elsewhere), and a connection test that
// does not tell a closed port from a silent or a foreign one.

const PASSWORD = 'guard-test-imap-password';
/** Connect and greeting timeouts short enough for a silent port to end the probe quickly. */
const TIMEOUTS = { connectMs: 500, socketMs: 5_000 };

/** A resolver that answers from a script, one answer per call (the last one repeats). */
function scripted(answers: Record<string, string[][]>) {
  const calls = new Map<string, number>();
  return async (hostname: string) => {
    const script = answers[hostname];
    if (!script) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    const n = calls.get(hostname) ?? 0;
    calls.set(hostname, n + 1);
    return script[Math.min(n, script.length - 1)]!;
  };
}

interface Listener {
  port: number;
  connections: number;
  close(): Promise<void>;
}

async function listen(onConnection: (socket: Socket) => void): Promise<Listener> {
  const sockets = new Set<Socket>();
  const state = { connections: 0 };
  const server: Server = createServer((socket) => {
    state.connections += 1;
    sockets.add(socket);
    socket.on('error', () => undefined);
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    get connections() {
      return state.connections;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const target = (host: string, port: number, extra: Partial<ImapTarget> = {}): ImapTarget => ({
  host,
  port,
  tls: 'none',
  username: 'guard',
  auth: 'password',
  folder: 'INBOX',
  ...extra,
});

describe('mailbox host guard', () => {
  it('refuses link-local and metadata addresses always, loopback and private ones unless listed', async () => {
    const resolve = scripted({
      'public.example': [['93.184.216.34']],
      'intranet.example': [['10.1.2.3']],
      'mixed.example': [['93.184.216.34', '192.168.1.10']],
      'meta.example': [['169.254.169.254']],
    });
    const open = createHostGuard([], resolve);
    const listed = createHostGuard(
      ['intranet.example', '192.168.0.0/16', '127.0.0.1', 'meta.example', '169.254.169.254'],
      resolve,
    );
    const verdict = async (guard: typeof open, host: string) =>
      guard.check(host).then(
        () => 'ok',
        (error: Error) => error.message,
      );
    for (const host of [
      'public.example',
      '93.184.216.34',
      '2606:2800:220:1:248:1893:25c8:1946',
      'no-such-name.example',
    ])
      expect(await verdict(open, host), host).toBe('ok');
    for (const host of [
      'intranet.example',
      'mixed.example',
      '127.0.0.1',
      '10.0.0.1',
      '::1',
      '::ffff:127.0.0.1',
      'fc00::1',
      '100.64.0.1',
    ]) {
      expect(await verdict(open, host), host).toMatch(/loopback or private address; .*OUTBOUND_ALLOWED_HOSTS/);
    }
    for (const host of ['intranet.example', 'mixed.example', '127.0.0.1', '192.168.7.7'])
      expect(await verdict(listed, host), host).toBe('ok');
    expect(await verdict(listed, '10.0.0.1')).toMatch(/not allowed/);
    for (const host of [
      'meta.example',
      '169.254.169.254',
      '::ffff:169.254.169.254',
      '::ffff:a9fe:a9fe',
      'fd00:ec2::254',
      'fe80::1',
      '0.0.0.0',
      '::',
      '100.100.100.200',
      '224.0.0.1',
    ]) {
      expect(await verdict(listed, host), host).toMatch(/link-local, cloud metadata or unspecified address/);
    }
  });

  it('reads INTAKE_ALLOWED_HOSTS as names, addresses and CIDR ranges, and names it when an entry is wrong', () => {
    expect(
      loadConfig({ INTAKE_ALLOWED_HOSTS: ' [::1], 10.0.0.0/8 ,Mail.Corp.example,' }).outbound.allowedHosts,
    ).toEqual(['::1', '10.0.0.0/8', 'mail.corp.example']);
    expect(loadConfig({}).outbound.allowedHosts).toEqual([]);
    for (const wrong of ['10.0.0.0/33', 'mail.example/8', '10.0.0.0/8/1', '::1/129', '10.0.0.0/x']) {
      expect(() => loadConfig({ INTAKE_ALLOWED_HOSTS: wrong }), wrong).toThrow(/INTAKE_ALLOWED_HOSTS/);
    }
  });

  it('takes an IPv6 address with or without brackets, and nothing else in brackets', () => {
    expect(normalizeHost('[::1]')).toBe('::1');
    expect(normalizeHost(' [2001:DB8::25] ')).toBe('2001:db8::25');
    expect(normalizeHost('::1')).toBe('::1');
    expect(normalizeHost('Mail.Example.com')).toBe('mail.example.com');
    expect(normalizeHost('[mail.example.com]')).toBeNull();
    expect(normalizeHost('[127.0.0.1]')).toBeNull();
    expect(normalizeHost('::1]')).toBeNull();
  });
});

describe('the connection test against what listens on a port', () => {
  let dovecot: Dovecot;
  const listeners: Listener[] = [];
  beforeAll(async () => {
    dovecot = await startDovecot({ password: PASSWORD });
  });
  afterAll(async () => {
    await Promise.all(listeners.map((listener) => listener.close()));
    await dovecot?.close();
  });
  const track = async (listener: Promise<Listener>) => {
    const started = await listener;
    listeners.push(started);
    return started;
  };

  it('connects to the address the guard resolved, so a listed name reaches a private server', async () => {
    const guard = createHostGuard(['mail.corp.example'], scripted({ 'mail.corp.example': [['127.0.0.1']] }));
    // No DNS server knows this name: only the guard's answer can have opened the socket.
    const answer = await probeImap(target('mail.corp.example', dovecot.port), PASSWORD, guard, TIMEOUTS);
    expect(answer).toMatchObject({ ok: true, folder: { path: 'INBOX' } });
  });

  it('refuses at connect time a name that now resolves to a loopback address (DNS rebinding)', async () => {
    const listener = await track(listen((socket) => socket.write('* OK IMAP4rev1 ready\r\n')));
    // Public when the mailbox was saved and when the test starts; loopback when the socket opens.
    const guard = createHostGuard(
      [],
      scripted({ 'mail.rebind.example': [['93.184.216.34'], ['93.184.216.34'], ['127.0.0.1']] }),
    );
    await guard.check('mail.rebind.example');
    const answer = await probeImap(target('mail.rebind.example', listener.port), PASSWORD, guard, TIMEOUTS);
    expect(answer).toMatchObject({ ok: false, stage: 'connect' });
    expect(answer.message).toMatch(/not allowed/);
    expect(listener.connections).toBe(0);
    // An address literal never goes through a lookup: it is checked before the socket opens.
    const literal = await probeImap(target('127.0.0.1', listener.port), PASSWORD, createHostGuard([]), TIMEOUTS);
    expect(literal).toMatchObject({ ok: false, stage: 'connect', message: expect.stringMatching(/not allowed/) });
    expect(listener.connections).toBe(0);
  });

  it('answers a closed, a silent and a foreign port, and TLS to a clear-text one, in the same words', async () => {
    const guard = createHostGuard(['127.0.0.1']);
    const silent = await track(listen(() => undefined));
    const ssh = await track(listen((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n')));
    const http = await track(
      listen((socket) => socket.once('data', () => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'))),
    );
    const postgresLike = await track(listen((socket) => socket.destroy()));
    const ports = [await freePort(), silent.port, ssh.port, http.port, postgresLike.port];
    const answers = await Promise.all(
      ports.map((port) => probeImap(target('127.0.0.1', port), PASSWORD, guard, TIMEOUTS)),
    );
    answers.push(await probeImap(target('127.0.0.1', dovecot.port, { tls: 'tls' }), PASSWORD, guard, TIMEOUTS));
    ports.push(dovecot.port);
    const shapes = answers.map((answer, index) => ({
      ok: answer.ok,
      stage: answer.stage,
      message: answer.message.replace(`:${ports[index]}`, ':PORT'),
    }));
    expect(new Set(shapes.map((shape) => JSON.stringify(shape))).size, JSON.stringify(shapes)).toBe(1);
    expect(shapes[0]).toEqual({
      ok: false,
      stage: 'connect',
      message: 'No IMAP server answered at 127.0.0.1:PORT; check the host, the port and the tls setting',
    });
  });
});
