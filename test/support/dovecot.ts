// A throwaway IMAP server: Debian's dovecot-imapd, started in a temporary folder with its own
// configuration (127.0.0.1, a free port, no TLS, one static password, maildirs owned by
// `nobody`). Tests deliver mail with IMAP APPEND through imapflow, as a mail client would, and
// may stop and start the server on the same port and mail to play an outage.

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ImapFlow } from 'imapflow';
import { freePort, sleep } from './processes.js';

export const DOVECOT_BINARY = '/usr/sbin/dovecot';

export interface DovecotOptions {
  /** Every user logs in with this password (a static passdb). */
  password?: string;
  port?: number;
  /**
   * Also accept OAuth 2 access tokens (XOAUTH2, OAUTHBEARER): dovecot asks a token
   * introspection endpoint this helper runs, which knows the tokens `issueToken` gave out.
   */
  oauth?: boolean;
}

export interface Dovecot {
  readonly host: '127.0.0.1';
  readonly port: number;
  readonly password: string;
  /** The folder holding the configuration, the mail and the log. */
  readonly root: string;
  running(): boolean;
  /** SIGTERM and wait for the master process to exit; the mail stays. */
  stop(): Promise<void>;
  /** Starts again on the same port with the same mail. */
  start(): Promise<void>;
  /** APPENDs each message to `folder` of `user` over one connection; answers their UIDs. */
  append(user: string, messages: Array<string | Buffer>, folder?: string): Promise<number[]>;
  /** Drops a message into the user's maildir, as local delivery does (works while the server is down). */
  deliverLocally(user: string, message: string | Buffer): void;
  /** A logged-in client for setup (create or delete folders); the caller logs out. */
  client(user: string): Promise<ImapFlow>;
  /**
   * Deletes `folder` and makes it again, so it gets a new UIDVALIDITY. Another session may hold
   * the folder selected and write its index into it while dovecot removes it; dovecot then
   * answers NO and the DELETE is tried again until the folder is gone (and `append` tries again
   * an APPEND that dovecot refuses with "deleted under us" for the same reason).
   */
  recreateFolder(user: string, folder: string): Promise<void>;
  /** An access token for `user` that the server will take with XOAUTH2 (needs `oauth`). */
  issueToken(user: string): string;
  /** The server's log, for a failing test's message. */
  log(): string;
  /** Stops the server and removes its folder. */
  close(): Promise<void>;
}

/** Dovecot's answer when a session's view of a folder was replaced by a new folder of that name. */
const DELETED_UNDER_US = 'Mailbox was deleted under us';

/** What the server answered to a failed command, which imapflow keeps off its error message. */
function serverText(error: unknown): string {
  const failed = error as {
    message?: string;
    responseStatus?: string;
    responseText?: string;
    executedCommand?: string;
  };
  return [failed.executedCommand, failed.responseStatus, failed.responseText ?? failed.message]
    .filter(Boolean)
    .join(' ');
}

export function dovecotInstalled(): boolean {
  return existsSync(DOVECOT_BINARY);
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) {
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  }
});

function configuration(root: string, port: number, password: string, oauth: boolean): string {
  const nobody = execFileSync('id', ['-u', 'nobody']).toString().trim();
  return `# Written by test/support/dovecot.ts for one test run.
base_dir = ${root}/run
state_dir = ${root}/state
instance_name = agentdesk-test-${port}
log_path = ${root}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login${oauth ? ' xoauth2 oauthbearer' : ''}
mail_location = maildir:${root}/mail/%u
mail_uid = nobody
mail_gid = nogroup
first_valid_uid = ${nobody}
last_valid_uid = ${nobody}
default_internal_user = dovecot
default_login_user = dovenull
# Tests stop and start the server while clients are connected; no grace period is needed.
shutdown_clients = yes
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
${
  oauth
    ? `passdb {
  driver = oauth2
  mechanisms = xoauth2 oauthbearer
  args = ${root}/oauth2.conf
}
`
    : ''
}passdb {
  driver = static
  args = password=${password}
}
userdb {
  driver = static
  args = uid=nobody gid=nogroup home=${root}/mail/%u
}
`;
}

async function acceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let greeting = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('data', (chunk: Buffer) => {
      greeting += chunk.toString('latin1');
      // The first greeting may be "waiting for authentication process"; the ready one names Dovecot.
      if (/\bready\b/i.test(greeting)) done(true);
    });
  });
}

export async function startDovecot(options: DovecotOptions = {}): Promise<Dovecot> {
  const root = await mkdtemp(join(tmpdir(), 'agentdesk-dovecot-'));
  const port = options.port ?? (await freePort());
  const password = options.password ?? 'dovecot-test-password';
  // mkdtemp makes the folder private to root; the mail processes run as nobody and must enter it.
  chmodSync(root, 0o755);
  for (const folder of ['run', 'state', 'mail']) mkdirSync(join(root, folder));
  chownSync(join(root, 'mail'), 65534, 65534);
  const configPath = join(root, 'dovecot.conf');
  // The token introspection endpoint dovecot asks (RFC 7662): a token is active if issued here.
  const tokens = new Map<string, string>();
  let introspection: Server | null = null;
  if (options.oauth) {
    introspection = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const token = new URLSearchParams(Buffer.concat(chunks).toString('utf8')).get('token') ?? '';
        const user = tokens.get(token);
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify(user ? { active: true, username: user } : { active: false }));
      });
    });
    await new Promise<void>((resolve) => introspection!.listen(0, '127.0.0.1', resolve));
    const { port: introspectionPort } = introspection.address() as AddressInfo;
    writeFileSync(
      join(root, 'oauth2.conf'),
      `introspection_mode = post\nintrospection_url = http://127.0.0.1:${introspectionPort}/introspect\nusername_attribute = username\nactive_attribute = active\nactive_value = true\nforce_introspection = yes\n`,
    );
  }
  writeFileSync(configPath, configuration(root, port, password, options.oauth === true));

  let child: ChildProcess | null = null;
  let delivered = 0;
  let exited: Promise<unknown> = Promise.resolve();

  async function start(): Promise<void> {
    if (child) return;
    // Its own process group: stopping it signals the master and every process it started,
    // so a client sees the server go away at once rather than when an orphan notices.
    const spawned = spawn(DOVECOT_BINARY, ['-F', '-c', configPath], {
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    const errors: string[] = [];
    spawned.stderr?.on('data', (chunk: Buffer) => errors.push(chunk.toString('utf8')));
    running.add(spawned);
    child = spawned;
    exited = once(spawned, 'exit').then(() => {
      running.delete(spawned);
      if (child === spawned) child = null;
    });
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      if (!child) throw new Error(`dovecot exited during start-up: ${errors.join('')}\n${readLog()}`);
      if (await acceptsConnections(port)) return;
      await sleep(50);
    }
    throw new Error(`dovecot did not accept connections on ${port}: ${errors.join('')}\n${readLog()}`);
  }

  async function stop(): Promise<void> {
    const current = child;
    if (!current) return;
    const group = -(current.pid as number);
    const signal = (name: NodeJS.Signals) => {
      try {
        process.kill(group, name);
      } catch {
        // the group is already gone
      }
    };
    signal('SIGTERM');
    const timer = setTimeout(() => signal('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
    // Processes the master left behind (log, stats, a session) go with it.
    signal('SIGKILL');
    // The master is gone; wait until its port is released so a restart can bind it.
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline && (await acceptsConnections(port))) await sleep(50);
  }

  function readLog(): string {
    try {
      return readFileSync(join(root, 'dovecot.log'), 'utf8');
    } catch {
      return '';
    }
  }

  async function client(user: string): Promise<ImapFlow> {
    const imap = new ImapFlow({
      host: '127.0.0.1',
      port,
      secure: false,
      doSTARTTLS: false,
      auth: { user, pass: password },
      logger: false,
      disableAutoIdle: true,
    });
    imap.on('error', () => undefined);
    await imap.connect();
    return imap;
  }

  await start();
  return {
    host: '127.0.0.1',
    port,
    password,
    root,
    running: () => child !== null,
    stop,
    start,
    client,
    async append(user, messages, folder = 'INBOX') {
      let imap = await client(user);
      try {
        const uids: number[] = [];
        for (const message of messages) {
          for (let attempt = 1; ; attempt += 1) {
            try {
              const answer = await imap.append(folder, message);
              if (!answer || answer.uid === undefined) throw new Error(`APPEND to ${folder} gave no UID`);
              uids.push(answer.uid);
              break;
            } catch (error) {
              // A folder just made again while another session still held the old one: that
              // session's index writes make dovecot refuse the next APPEND once; nothing was stored.
              if (attempt >= 5 || !serverText(error).includes(DELETED_UNDER_US)) {
                throw new Error(`APPEND to ${folder} failed: ${serverText(error)}\n${readLog()}`, { cause: error });
              }
              await imap.logout().catch(() => imap.close());
              await sleep(100 * attempt);
              imap = await client(user);
            }
          }
        }
        return uids;
      } finally {
        await imap.logout().catch(() => imap.close());
      }
    },
    async recreateFolder(user, folder) {
      const imap = await client(user);
      try {
        const deadline = Date.now() + 10_000;
        for (;;) {
          const listed = (await imap.list()).some((entry) => entry.path === folder);
          if (!listed) break;
          try {
            await imap.mailboxDelete(folder);
          } catch (error) {
            if (Date.now() > deadline)
              throw new Error(`DELETE ${folder} failed: ${serverText(error)}\n${readLog()}`, { cause: error });
            await sleep(100);
          }
        }
        await imap.mailboxCreate(folder).catch((error: unknown) => {
          throw new Error(`CREATE ${folder} failed: ${serverText(error)}\n${readLog()}`);
        });
      } finally {
        await imap.logout().catch(() => imap.close());
      }
    },
    deliverLocally(user, message) {
      const folder = join(root, 'mail', user);
      for (const part of ['', 'new', 'cur', 'tmp']) {
        const path = join(folder, part);
        if (!existsSync(path)) {
          mkdirSync(path, { mode: 0o700 });
          chownSync(path, 65534, 65534);
        }
      }
      delivered += 1;
      const file = join(folder, 'new', `${Date.now()}.M${delivered}P${process.pid}.agentdesk-test`);
      writeFileSync(file, message);
      chownSync(file, 65534, 65534);
    },
    issueToken(user) {
      if (!introspection) throw new Error('start dovecot with oauth: true to issue tokens');
      const token = `ya29.${randomBytes(18).toString('base64url')}`;
      tokens.set(token, user);
      return token;
    },
    log: readLog,
    async close() {
      await stop();
      introspection?.closeAllConnections();
      await new Promise<void>((resolve) => (introspection ? introspection.close(() => resolve()) : resolve()));
      rmSync(root, { recursive: true, force: true });
    },
  };
}
