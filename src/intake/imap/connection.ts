// How agentdesk talks to an IMAP server: the imapflow options for a mailbox, and what went wrong
// when it fails, named by stage (DNS, connect, TLS, login, folder) in words a person can act on.

import { ImapFlow, type ImapFlowOptions } from 'imapflow';
import { ConnectionFailure } from '../failure.js';
import { type HostGuard, HostNotAllowed, normalizeHost } from '../host-guard.js';
import type { ConnectionTest } from '../schemas.js';
import type { MailboxRow } from '../tables.js';

export interface ImapTarget {
  host: string;
  port: number;
  tls: 'none' | 'starttls' | 'tls';
  username: string;
  auth: 'password' | 'xoauth2';
  folder: string;
}

export interface Timeouts {
  connectMs: number;
  socketMs: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = { connectMs: 15_000, socketMs: 5 * 60_000 };

export function imapTarget(row: MailboxRow): ImapTarget {
  if (row.kind !== 'imap' || row.host === null || row.port === null || row.tls === null || row.username === null) {
    throw new Error(`mailbox ${row.id} is not a complete IMAP mailbox`);
  }
  return {
    host: row.host,
    port: row.port,
    tls: row.tls,
    username: row.username,
    auth: row.auth === 'xoauth2' ? 'xoauth2' : 'password',
    folder: row.folder,
  };
}

export function imapOptions(
  target: ImapTarget,
  secret: string,
  guard: HostGuard,
  timeouts: Timeouts = DEFAULT_TIMEOUTS,
): ImapFlowOptions {
  return {
    // Stored normalized; an older row may still hold "[::1]".
    host: normalizeHost(target.host) ?? target.host,
    // The socket reaches only addresses the guard passed, resolved for it (host-guard.ts).
    tls: { lookup: guard.lookup },
    port: target.port,
    secure: target.tls === 'tls',
    // Required when asked for: a server that does not offer it is a failure, not clear text.
    doSTARTTLS: target.tls === 'starttls' ? true : target.tls === 'none' ? false : undefined,
    auth:
      target.auth === 'xoauth2'
        ? { user: target.username, accessToken: secret }
        : { user: target.username, pass: secret },
    logger: false,
    clientInfo: { name: 'agentdesk', vendor: 'agentdesk' },
    connectionTimeout: timeouts.connectMs,
    greetingTimeout: timeouts.connectMs,
    socketTimeout: timeouts.socketMs,
    // IDLE soon after each sync, so new mail is announced within moments; restarted every few
    // minutes because some servers and middleboxes drop a connection silent for longer.
    autoIdleDelay: 100,
    maxIdleTime: 4 * 60_000,
  };
}

interface ErrorLike {
  code?: unknown;
  message?: unknown;
  authenticationFailed?: unknown;
  tlsFailed?: unknown;
  responseText?: unknown;
  serverResponseCode?: unknown;
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL', 'ENODATA']);
/** Certificate checks, by Node's codes: a person can act on these, so they are named (in words). */
const CERTIFICATE_PROBLEMS: Array<[RegExp, string]> = [
  [/^(DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)$/, 'is self-signed'],
  [/^CERT_HAS_EXPIRED$/, 'has expired'],
  [/^CERT_NOT_YET_VALID$/, 'is not valid yet'],
  [/^(ERR_TLS_CERT_ALTNAME_INVALID|HOSTNAME_MISMATCH)$/, 'does not name this host'],
  [/^(UNABLE_TO_|CERT_)/, 'is not trusted'],
];

/** A server reply, trimmed to one line of reasonable length. */
function serverText(error: ErrorLike): string | null {
  const text = typeof error.responseText === 'string' ? error.responseText : null;
  return text ? text.replace(/\s+/g, ' ').slice(0, 300) : null;
}

/**
 * Names the stage an error belongs to; `during` is where it happened when the error cannot tell
 * (`session`: after the server greeted and the login went through).
 * Until an IMAP server has answered, every failure reads the same ("connect"): a closed port, a
 * silent one, and one where something else listens (or TLS where there is none) are not told
 * apart, so the connection test cannot be used to map a network's ports; and no library or
 * OpenSSL text is passed on. Messages are built from error codes and the server's own reply,
 * never from anything that could carry the secret.
 */
export function describeFailure(
  error: unknown,
  target: Pick<ImapTarget, 'host' | 'port' | 'username' | 'folder'>,
  during: 'connect' | 'session' | 'folder',
): ConnectionFailure {
  if (error instanceof ConnectionFailure) return error;
  if (error instanceof HostNotAllowed) return new ConnectionFailure('connect', `Refused to connect: ${error.message}`);
  const e = (error ?? {}) as ErrorLike;
  const code = typeof e.code === 'string' ? e.code : '';
  const where = `${target.host}:${target.port}`;
  const reply = serverText(e);
  if (code === 'EHOSTNOTALLOWED')
    return new ConnectionFailure('connect', `Refused to connect: ${typeof e.message === 'string' ? e.message : where}`);
  if (e.authenticationFailed === true) {
    return new ConnectionFailure(
      'login',
      `The server refused the login of ${target.username}${reply ? `: ${reply}` : ''}`,
    );
  }
  if (during === 'folder') {
    return new ConnectionFailure(
      'folder',
      `The folder "${target.folder}" cannot be opened${reply ? `: ${reply}` : ''}`,
    );
  }
  if (DNS_CODES.has(code)) return new ConnectionFailure('dns', `${target.host} does not resolve`);
  const certificate = CERTIFICATE_PROBLEMS.find(([pattern]) => pattern.test(code));
  if (certificate) return new ConnectionFailure('tls', `The certificate of ${where} ${certificate[1]}`);
  // Both come after an IMAP greeting: the server is known to be there.
  if (code === 'STARTTLS_INJECTION')
    return new ConnectionFailure(
      'tls',
      `${where} sent data before the TLS handshake of STARTTLS (possible tampering on the way)`,
    );
  if (e.tlsFailed === true && code === '' && typeof e.message === 'string' && /STARTTLS/.test(e.message)) {
    return new ConnectionFailure('tls', `${where} does not offer STARTTLS, which the mailbox's tls setting requires`);
  }
  if (during === 'session') return new ConnectionFailure('connect', `The connection to ${where} was lost`);
  return new ConnectionFailure(
    'connect',
    `No IMAP server answered at ${where}; check the host, the port and the tls setting`,
  );
}

/** The host's addresses, checked by the guard, so a name that does not resolve is reported as such and quickly. */
export async function checkHost(guard: HostGuard, host: string): Promise<void> {
  try {
    await guard.addresses(host);
  } catch (error) {
    if (error instanceof HostNotAllowed) throw new ConnectionFailure('connect', `Refused to connect: ${error.message}`);
    throw new ConnectionFailure('dns', `${host} does not resolve`);
  }
}

/** Connects, logs in and opens the folder; answers what it found or where it failed. Never throws. */
export async function probeImap(
  target: ImapTarget,
  secret: string,
  guard: HostGuard,
  timeouts: Timeouts,
): Promise<ConnectionTest> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  const client = new ImapFlow({ ...imapOptions(target, secret, guard, timeouts), disableAutoIdle: true });
  client.on('error', () => undefined);
  let stage: 'connect' | 'folder' = 'connect';
  try {
    await checkHost(guard, normalizeHost(target.host) ?? target.host);
    await client.connect();
    stage = 'folder';
    const box = await client.mailboxOpen(target.folder, { readOnly: true });
    return {
      ok: true,
      stage: null,
      message: `Logged in as ${target.username} and opened "${box.path}": ${box.exists} message${box.exists === 1 ? '' : 's'}`,
      ms: ms(),
      folder: {
        path: box.path,
        messages: box.exists,
        uid_validity: Number(box.uidValidity),
        uid_next: box.uidNext ?? null,
      },
    };
  } catch (error) {
    const failure = describeFailure(error, target, stage);
    return { ok: false, stage: failure.stage, message: failure.message, ms: ms(), folder: null };
  } finally {
    await client.logout().catch(() => client.close());
  }
}
