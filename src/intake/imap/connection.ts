// How agentdesk talks to an IMAP server: the imapflow options for a mailbox, and what went wrong
// when it fails, named by stage (DNS, connect, TLS, login, folder) in words a person can act on.
// Messages are built from error codes and the server's own reply, never from anything that
// could carry the secret.

import { lookup } from 'node:dns/promises';
import { ImapFlow, type ImapFlowOptions } from 'imapflow';
import { ConnectionFailure } from '../failure.js';
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
  return { host: row.host, port: row.port, tls: row.tls, username: row.username, auth: row.auth === 'xoauth2' ? 'xoauth2' : 'password', folder: row.folder };
}

export function imapOptions(target: ImapTarget, secret: string, timeouts: Timeouts = DEFAULT_TIMEOUTS): ImapFlowOptions {
  return {
    host: target.host,
    port: target.port,
    secure: target.tls === 'tls',
    // Required when asked for: a server that does not offer it is a failure, not clear text.
    doSTARTTLS: target.tls === 'starttls' ? true : target.tls === 'none' ? false : undefined,
    auth: target.auth === 'xoauth2' ? { user: target.username, accessToken: secret } : { user: target.username, pass: secret },
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

const TLS_CODE = /^(ERR_SSL|ERR_TLS|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|HOSTNAME_MISMATCH|ClosedAfterConnectTLS|STARTTLS_INJECTION)/;
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL', 'ENODATA']);
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'CONNECT_TIMEOUT', 'GREETING_TIMEOUT', 'UPGRADE_TIMEOUT', 'ETIMEOUT']);
const CONNECT_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'NoConnection', 'EConnectionClosed', 'ClosedAfterConnectText']);

/** A server reply, trimmed to one line of reasonable length. */
function serverText(error: ErrorLike): string | null {
  const text = typeof error.responseText === 'string' ? error.responseText : null;
  return text ? text.replace(/\s+/g, ' ').slice(0, 300) : null;
}

/** Names the stage an error belongs to; `during` is where it happened when the error cannot tell. */
export function describeFailure(error: unknown, target: Pick<ImapTarget, 'host' | 'port' | 'username' | 'folder'>, during: 'connect' | 'folder'): ConnectionFailure {
  if (error instanceof ConnectionFailure) return error;
  const e = (error ?? {}) as ErrorLike;
  const code = typeof e.code === 'string' ? e.code : '';
  const where = `${target.host}:${target.port}`;
  const reply = serverText(e);
  if (e.authenticationFailed === true) {
    return new ConnectionFailure('login', `The server refused the login of ${target.username}${reply ? `: ${reply}` : ''}`);
  }
  if (during === 'folder') {
    return new ConnectionFailure('folder', `The folder "${target.folder}" cannot be opened${reply ? `: ${reply}` : ''}`);
  }
  if (DNS_CODES.has(code)) return new ConnectionFailure('dns', `${target.host} does not resolve (${code})`);
  if (e.tlsFailed === true || TLS_CODE.test(code)) {
    const detail = typeof e.message === 'string' ? e.message.replace(/\s+/g, ' ').slice(0, 200) : code;
    return new ConnectionFailure('tls', `TLS with ${where} failed: ${detail}${code && !detail.includes(code) ? ` (${code})` : ''}`);
  }
  if (TIMEOUT_CODES.has(code)) return new ConnectionFailure('timeout', `${where} did not answer in time (${code})`);
  if (code === 'ECONNREFUSED') return new ConnectionFailure('connect', `Nothing accepts connections on ${where} (ECONNREFUSED)`);
  if (CONNECT_CODES.has(code)) return new ConnectionFailure('connect', `The connection to ${where} failed (${code})`);
  // A TLS client speaking to a clear-text port, or the reverse, ends in a parse error or a
  // hang-up before the greeting; say which setting to look at.
  if (code.startsWith('ParserError') || code === 'InvalidResponse') {
    return new ConnectionFailure('protocol', `${where} did not answer like an IMAP server (${code}); check the port and the tls setting`);
  }
  const message = typeof e.message === 'string' ? e.message.replace(/\s+/g, ' ').slice(0, 200) : 'unknown error';
  return new ConnectionFailure('protocol', `${where}: ${message}${code ? ` (${code})` : ''}`);
}

/** Resolves the host first, so a name that does not exist is reported as such and quickly. */
export async function checkDns(host: string): Promise<void> {
  if (/^[\d.]+$/.test(host) || host.includes(':')) return;
  try {
    await lookup(host);
  } catch (error) {
    const code = (error as ErrorLike).code;
    throw new ConnectionFailure('dns', `${host} does not resolve (${typeof code === 'string' ? code : 'lookup failed'})`);
  }
}

/** Connects, logs in and opens the folder; answers what it found or where it failed. Never throws. */
export async function probeImap(target: ImapTarget, secret: string, timeouts: Timeouts): Promise<ConnectionTest> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  const client = new ImapFlow({ ...imapOptions(target, secret, timeouts), disableAutoIdle: true });
  client.on('error', () => undefined);
  let stage: 'connect' | 'folder' = 'connect';
  try {
    await checkDns(target.host);
    await client.connect();
    stage = 'folder';
    const box = await client.mailboxOpen(target.folder, { readOnly: true });
    return {
      ok: true,
      stage: null,
      message: `Logged in as ${target.username} and opened "${box.path}": ${box.exists} message${box.exists === 1 ? '' : 's'}`,
      ms: ms(),
      folder: { path: box.path, messages: box.exists, uid_validity: Number(box.uidValidity), uid_next: box.uidNext ?? null },
    };
  } catch (error) {
    const failure = describeFailure(error, target, stage);
    return { ok: false, stage: failure.stage, message: failure.message, ms: ms(), folder: null };
  } finally {
    await client.logout().catch(() => client.close());
  }
}
