// A fake Microsoft Graph over real HTTP on 127.0.0.1, speaking the documented protocol the
// intake uses: the client-credentials token endpoint of the identity platform, a mail folder,
// and the delta query on its messages (`@odata.nextLink` pages, `@odata.deltaLink` ends a round
// and returns only what changed since), with 429 + Retry-After on demand and tokens that can be
// made to expire. Microsoft itself cannot be reached from here.

import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeGraphOptions {
  tenant: string;
  clientId: string;
  clientSecret: string;
  address: string;
  /** Folders by id or well-known name; "inbox" by default. */
  folders?: string[];
  pageSize?: number;
}

export interface FakeGraphRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  at: number;
  status: number;
}

export interface FakeGraph {
  /** The identity platform's base URL (INTAKE_GRAPH_LOGIN_URL). */
  loginUrl: string;
  /** Graph's base URL (INTAKE_GRAPH_URL). */
  graphUrl: string;
  requests: FakeGraphRequest[];
  /** Adds a message to a folder; answers its id. */
  add(message: Record<string, unknown>, folder?: string): string;
  /** Changes a message (a flag, read state): the next delta round sends it again. */
  update(id: string, changes: Record<string, unknown>): void;
  /** The next `count` Graph requests answer 429 with Retry-After: `seconds`. */
  throttle(count: number, seconds: number): void;
  /** Every token issued so far stops working. */
  expireTokens(): void;
  /** Tokens issued so far. */
  tokensIssued(): number;
  close(): Promise<void>;
}

interface Stored {
  id: string;
  folder: string;
  seq: number;
  message: Record<string, unknown>;
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): number {
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  return status;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startFakeGraph(options: FakeGraphOptions): Promise<FakeGraph> {
  const folders = new Set((options.folders ?? ['inbox']).map((folder) => folder.toLowerCase()));
  const pageSize = options.pageSize ?? 10;
  const messages: Stored[] = [];
  const tokens = new Set<string>();
  const requests: FakeGraphRequest[] = [];
  let issued = 0;
  let seq = 0;
  let throttled = 0;
  let retryAfter = 1;

  async function token(request: IncomingMessage, response: ServerResponse, tenant: string): Promise<number> {
    const form = new URLSearchParams(await readBody(request));
    if (tenant !== options.tenant)
      return send(response, 400, {
        error: 'invalid_request',
        error_description: `AADSTS90002: Tenant '${tenant}' not found.`,
      });
    if (form.get('grant_type') !== 'client_credentials' || form.get('scope') !== `${graphOrigin}/.default`) {
      return send(response, 400, {
        error: 'invalid_request',
        error_description: 'AADSTS900144: The request body must contain grant_type and scope.',
      });
    }
    if (form.get('client_id') !== options.clientId || form.get('client_secret') !== options.clientSecret) {
      return send(response, 401, {
        error: 'invalid_client',
        error_description: 'AADSTS7000215: Invalid client secret provided.',
      });
    }
    const value = randomBytes(24).toString('base64url');
    tokens.add(value);
    issued += 1;
    return send(response, 200, { token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: value });
  }

  /** A page of the round that started after change `since`, from `offset`, up to change `until`. */
  function deltaPage(
    response: ServerResponse,
    base: string,
    folder: string,
    since: number,
    until: number,
    offset: number,
  ): number {
    const changed = messages
      .filter((stored) => stored.folder === folder && stored.seq > since && stored.seq <= until)
      .sort((a, b) => a.seq - b.seq);
    const page = changed.slice(offset, offset + pageSize);
    const body: Record<string, unknown> = {
      '@odata.context': `${graphUrl}/$metadata#Collection(message)`,
      value: page.map((stored) => ({ '@odata.etag': `W/"${stored.seq}"`, ...stored.message })),
    };
    if (offset + pageSize < changed.length)
      body['@odata.nextLink'] = `${base}?$skiptoken=${since}.${until}.${offset + pageSize}`;
    else body['@odata.deltaLink'] = `${base}?$deltatoken=${until}`;
    return send(response, 200, body);
  }

  async function graph(request: IncomingMessage, response: ServerResponse, url: URL): Promise<number> {
    if (throttled > 0) {
      throttled -= 1;
      return send(
        response,
        429,
        { error: { code: 'TooManyRequests', message: 'Too many requests' } },
        { 'retry-after': String(retryAfter) },
      );
    }
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (!bearer || !tokens.has(bearer))
      return send(response, 401, {
        error: { code: 'InvalidAuthenticationToken', message: 'Access token has expired or is not yet valid.' },
      });
    const match = /^\/v1\.0\/users\/([^/]+)\/mailFolders\/([^/]+)(\/messages\/delta)?$/.exec(url.pathname);
    if (!match)
      return send(response, 400, { error: { code: 'BadRequest', message: `Unsupported path ${url.pathname}` } });
    const user = decodeURIComponent(match[1]!).toLowerCase();
    const folder = decodeURIComponent(match[2]!).toLowerCase();
    if (user !== options.address.toLowerCase() || !folders.has(folder)) {
      return send(response, 404, {
        error: { code: 'ErrorItemNotFound', message: 'The specified object was not found in the store.' },
      });
    }
    if (!match[3]) {
      return send(response, 200, {
        id: `folder-${folder}`,
        displayName: folder === 'inbox' ? 'Inbox' : folder,
        totalItemCount: messages.filter((m) => m.folder === folder).length,
      });
    }
    const base = `${origin}${url.pathname}`;
    const skip = url.searchParams.get('$skiptoken');
    const delta = url.searchParams.get('$deltatoken');
    if (skip !== null) {
      const [since, until, offset] = skip.split('.').map(Number);
      return deltaPage(response, base, folder, since!, until!, offset!);
    }
    if (delta !== null) {
      if (!/^\d+$/.test(delta))
        return send(response, 410, { error: { code: 'SyncStateNotFound', message: 'The sync state is not found.' } });
      return deltaPage(response, base, folder, Number(delta), seq, 0);
    }
    return deltaPage(response, base, folder, 0, seq, 0);
  }

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    const tokenPath = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(url.pathname);
    const handled =
      tokenPath && request.method === 'POST'
        ? token(request, response, decodeURIComponent(tokenPath[1]!))
        : request.method === 'GET'
          ? graph(request, response, url)
          : Promise.resolve(send(response, 405, {}));
    void handled.then((status) =>
      requests.push({
        method: request.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        at: Date.now(),
        status,
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  const graphUrl = `${origin}/v1.0`;
  const graphOrigin = origin;

  return {
    loginUrl: origin,
    graphUrl,
    requests,
    add(message, folder = 'inbox') {
      const id = `AAMk${randomBytes(9).toString('base64url')}`;
      seq += 1;
      messages.push({
        id,
        folder: folder.toLowerCase(),
        seq,
        message: { id, receivedDateTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'), ...message },
      });
      return id;
    },
    update(id, changes) {
      const stored = messages.find((m) => m.id === id);
      if (!stored) throw new Error(`no message ${id}`);
      seq += 1;
      stored.seq = seq;
      stored.message = { ...stored.message, ...changes };
    },
    throttle(count, seconds) {
      throttled = count;
      retryAfter = seconds;
    },
    expireTokens: () => tokens.clear(),
    tokensIssued: () => issued,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
