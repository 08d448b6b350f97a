// Microsoft Graph for one mailbox: an app-only token from the client-credentials grant, and the
// delta query on the mailbox's folder. Failures are named by stage like IMAP's (connection.ts).

import { lookup } from 'node:dns/promises';
import type { GraphMessage } from '../../email/index.js';
import { cleanDeep, cleanOptional } from '../clean-text.js';
import { ConnectionFailure } from '../failure.js';
import type { ConnectionTest } from '../schemas.js';

export interface GraphTarget {
  tenant_id: string;
  client_id: string;
  address: string;
  folder: string;
}

export interface GraphEndpoints {
  /** e.g. https://graph.microsoft.com/v1.0 */
  graphUrl: string;
  /** e.g. https://login.microsoftonline.com */
  loginUrl: string;
  timeoutMs: number;
}

export interface DeltaPage {
  messages: GraphMessage[];
  /** Where the round goes on (`@odata.nextLink`); null on its last page. */
  next_link: string | null;
  /** Where the next round starts (`@odata.deltaLink`, which ends the round); only on the last page. */
  delta_link: string | null;
}

/** The fields the classifier reads, and what the intake log keeps. */
const SELECT = [
  'id',
  'internetMessageId',
  'conversationId',
  'subject',
  'body',
  'uniqueBody',
  'bodyPreview',
  'from',
  'sender',
  'toRecipients',
  'ccRecipients',
  'replyTo',
  'receivedDateTime',
  'sentDateTime',
  'hasAttachments',
  'importance',
  'isRead',
  'flag',
  'internetMessageHeaders',
].join(',');

/** The longest Retry-After honoured as given; a longer one is waited this long, then asked again. */
const MAX_RETRY_AFTER_MS = 120_000;
const MAX_THROTTLED_TRIES = 8;

/** A saved delta link Graph no longer knows (410): the round starts over with a fresh query. */
export class DeltaExpired extends Error {
  constructor() {
    super('Graph no longer knows the saved delta link; starting a fresh delta query');
    this.name = 'DeltaExpired';
  }
}

export interface GraphClient {
  /** The first page of a round: from `link` (a saved next or delta link), or a fresh delta query. */
  delta(link: string | null): Promise<DeltaPage>;
  /** Resolves, authenticates and opens the folder: for the connection test. */
  probe(): Promise<{ folder: string; messages: number }>;
}

interface ErrorBody {
  error?: string | { code?: string; message?: string };
  error_description?: string;
}

function describe(body: ErrorBody | null): string {
  if (!body) return '';
  if (typeof body.error === 'string')
    return `${body.error}${body.error_description ? `: ${body.error_description.split('\n')[0]}` : ''}`;
  return [body.error?.code, body.error?.message].filter(Boolean).join(': ');
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return text === '' ? null : JSON.parse(text);
  } catch {
    return null;
  }
}

export function createGraphClient(
  target: GraphTarget,
  secret: string,
  endpoints: GraphEndpoints,
  sleep = (ms: number) => new Promise((r) => setTimeout(r, ms)),
): GraphClient {
  let token: { value: string; expires_at: number } | null = null;

  /** One request, waiting out 429 and 503; network failures are named, HTTP errors left to the caller. */
  async function call(url: string, init: RequestInit): Promise<Response> {
    for (let tries = 1; ; tries += 1) {
      let response: Response;
      try {
        response = await fetch(url, { ...init, signal: AbortSignal.timeout(endpoints.timeoutMs) });
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause;
        const code = cause?.code ?? (error as { name?: string }).name ?? 'error';
        const host = new URL(url).host;
        if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
          throw new ConnectionFailure('dns', `${host} does not resolve (${code})`);
        if (code === 'TimeoutError') throw new ConnectionFailure('timeout', `${host} did not answer in time`);
        if (/CERT|TLS|SSL/.test(code)) throw new ConnectionFailure('tls', `TLS with ${host} failed (${code})`);
        throw new ConnectionFailure('connect', `The connection to ${host} failed (${code})`);
      }
      if ((response.status === 429 || response.status === 503) && tries < MAX_THROTTLED_TRIES) {
        await response.arrayBuffer();
        const seconds = Number(response.headers.get('retry-after') ?? Number.NaN);
        await sleep(
          Number.isFinite(seconds) && seconds >= 0
            ? Math.min(seconds * 1000, MAX_RETRY_AFTER_MS)
            : Math.min(1000 * 2 ** tries, MAX_RETRY_AFTER_MS),
        );
        continue;
      }
      return response;
    }
  }

  async function accessToken(): Promise<string> {
    if (token && token.expires_at > Date.now() + 60_000) return token.value;
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: target.client_id,
      client_secret: secret,
      scope: `${new URL(endpoints.graphUrl).origin}/.default`,
    });
    const response = await call(`${endpoints.loginUrl}/${encodeURIComponent(target.tenant_id)}/oauth2/v2.0/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    const body = (await readJson(response)) as ({ access_token?: string; expires_in?: number } & ErrorBody) | null;
    if (!response.ok) {
      const detail = describe(body);
      throw new ConnectionFailure(
        'login',
        `The token endpoint refused client ${target.client_id} of tenant ${target.tenant_id} (HTTP ${response.status}${detail ? `, ${detail}` : ''})`,
      );
    }
    if (!body?.access_token)
      throw new ConnectionFailure('login', 'The token endpoint answered without an access token');
    token = { value: body.access_token, expires_at: Date.now() + (body.expires_in ?? 3600) * 1000 };
    return token.value;
  }

  /** A Graph GET with the token; a 401 means it expired early: one new token, one more try. */
  async function get(url: string): Promise<unknown> {
    for (let attempt = 1; ; attempt += 1) {
      const response = await call(url, {
        headers: { authorization: `Bearer ${await accessToken()}`, prefer: 'odata.maxpagesize=50' },
      });
      if (response.status === 401 && attempt === 1) {
        await response.arrayBuffer();
        token = null;
        continue;
      }
      if (response.status === 410) {
        await response.arrayBuffer();
        throw new DeltaExpired();
      }
      if (!response.ok) {
        const detail = describe((await readJson(response)) as ErrorBody | null);
        const stage =
          response.status === 401 || response.status === 403
            ? 'login'
            : response.status === 404
              ? 'folder'
              : 'protocol';
        const what =
          stage === 'login'
            ? `Graph refused the app access to ${target.address}`
            : `The folder "${target.folder}" of ${target.address} cannot be read`;
        throw new ConnectionFailure(stage, `${what} (HTTP ${response.status}${detail ? `, ${detail}` : ''})`);
      }
      return readJson(response);
    }
  }

  const folderUrl = () =>
    `${endpoints.graphUrl}/users/${encodeURIComponent(target.address)}/mailFolders/${encodeURIComponent(target.folder)}`;

  return {
    async delta(link) {
      const url = link ?? `${folderUrl()}/messages/delta?$select=${SELECT}`;
      const body = (await get(url)) as {
        value?: GraphMessage[];
        '@odata.nextLink'?: string;
        '@odata.deltaLink'?: string;
      } | null;
      if (!body || !Array.isArray(body.value))
        throw new ConnectionFailure('protocol', 'Graph answered a delta query without a value array');
      // Mail enters here: its text is cleaned once, before its ids name anything (clean-text.ts).
      return {
        messages: cleanDeep(body.value),
        next_link: cleanOptional(body['@odata.nextLink']) ?? null,
        delta_link: cleanOptional(body['@odata.deltaLink']) ?? null,
      };
    },
    async probe() {
      const host = new URL(endpoints.loginUrl).hostname;
      if (!/^[\d.]+$/.test(host) && host !== 'localhost') {
        try {
          await lookup(host);
        } catch (error) {
          throw new ConnectionFailure(
            'dns',
            `${host} does not resolve (${(error as { code?: string }).code ?? 'lookup failed'})`,
          );
        }
      }
      const folder = (await get(folderUrl())) as { displayName?: string; totalItemCount?: number } | null;
      return { folder: folder?.displayName ?? target.folder, messages: folder?.totalItemCount ?? 0 };
    },
  };
}

/** The connection test of a Graph mailbox: token, then the folder. Never throws. */
export async function probeGraph(client: GraphClient): Promise<ConnectionTest> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  try {
    const found = await client.probe();
    return {
      ok: true,
      stage: null,
      message: `Signed in with the app registration and opened "${found.folder}": ${found.messages} message${found.messages === 1 ? '' : 's'}`,
      ms: ms(),
      folder: { path: found.folder, messages: found.messages, uid_validity: null, uid_next: null },
    };
  } catch (error) {
    const failure =
      error instanceof ConnectionFailure
        ? error
        : new ConnectionFailure('protocol', `Graph: ${(error as Error).message}`);
    return { ok: false, stage: failure.stage, message: failure.message, ms: ms(), folder: null };
  }
}
