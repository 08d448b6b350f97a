import rateLimit from '@fastify/rate-limit';
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { AuthConfig } from '../shared/config/config.js';
import { isLoopbackHost } from '../shared/config/config.js';
import { PROBLEM_CONTENT_TYPE, problem } from '../shared/errors.js';
import type { HttpApp } from '../shared/http/types.js';
import { ProblemResponse, problemResponses } from '../shared/http/schemas.js';
import type { Authenticator, Identity, Principal, Proof } from './authenticator.js';
import { hashSecret } from './token-format.js';
import {
  ACCESS,
  type Access,
  CSRF_HEADER,
  ROLES_BY_ACCESS,
  SESSION_COOKIE,
  roleMay,
  roleWithArticle,
} from './roles.js';

// One onRequest hook guards every route of both services: the Host, cross-site requests, the credential and
// the role against the route's declared access level (`config: { access }`; without one, start-up fails).

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller; null only on public routes under AUTH=tokens. */
    principal: Principal | null;
    /** What the caller presented, for budgets and sessions; null under AUTH=off. */
    identity: Identity | null;
  }
  interface FastifyInstance {
    /** Every route with the access level it declared: the role matrix the tests hold us to. */
    accessTable(): Array<{ method: string; url: string; access: Access | undefined }>;
  }
  interface FastifyContextConfig {
    access?: Access;
    /** A long-lived response (SSE): ended as soon as its credential stops working. */
    stream?: boolean;
  }
}

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const ANONYMOUS = 'anonymous';
const NAME_RE = /^[A-Za-z0-9_.@-]{1,64}$/;
const STREAM_RECHECK_MS = 1_000;
const FAILURE_WINDOW_MS = 60_000;
/** Characters of a presented credential that key its failure count: `adk_` and 8 of the secret. */
const COUNTED_PREFIX_LENGTH = 12;

export interface AccessControlOptions {
  config: AuthConfig;
  authenticator: Authenticator;
}

function send(reply: FastifyReply, status: number, detail: string): FastifyReply {
  return reply.code(status).type(PROBLEM_CONTENT_TYPE).send(problem(status, detail));
}

/** The host name of a Host header or an Origin, without port or brackets; null when unreadable. */
export function hostName(value: string | undefined): string | null {
  if (!value) return null;
  try {
    return new URL(value.includes('://') ? value : `http://${value}`).hostname
      .toLowerCase()
      .replace(/^\[(.*)\]$/, '$1');
  } catch {
    return null;
  }
}

function sameOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (origin !== undefined) {
    try {
      // Both parsed with the Origin's scheme, so a default port written or left out compares equal.
      const from = new URL(origin);
      return from.host === new URL(`${from.protocol}//${request.headers.host ?? ''}`).host;
    } catch {
      return false;
    }
  }
  const site = request.headers['sec-fetch-site'];
  return site === undefined || site === 'same-origin' || site === 'none';
}

export function readCookie(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/** The caller under AUTH=off: X-User names them, and everyone may do everything, as before. */
export function openDeskPrincipal(request: FastifyRequest): Principal {
  const user = request.headers['x-user'];
  const name = typeof user === 'string' && NAME_RE.test(user) ? user : ANONYMOUS;
  return { name, role: 'admin', agent: null, token_id: null };
}

/**
 * Documents what the hook can answer in the OpenAPI description: with AUTH=off the Host guard's
 * 421 (every route); otherwise the security scheme, 401/403/429 and the access level.
 */
function describe(route: RouteOptions, mode: AuthConfig['mode'], described: WeakSet<object>): void {
  if (!route.schema) return;
  const schema = route.schema as Record<string, unknown> & { response?: Record<string, unknown>; description?: string };
  // A GET route's HEAD twin shares its schema object: describe it once.
  if (described.has(schema)) return;
  described.add(schema);
  if (mode === 'off') schema.response = { 421: ProblemResponse, ...schema.response };
  const access = route.config?.access;
  if (access === undefined) return;
  if (access === ACCESS.public) {
    // Public: the document's default (a credential) does not apply.
    schema.security = [];
    return;
  }
  schema.security = [...DOCUMENT_SECURITY];
  schema.response = { ...problemResponses(401, 403, 429), ...schema.response };
  const roles = ROLES_BY_ACCESS[access].join(', ');
  schema.description = [schema.description, `Access: ${access} (${roles}).`].filter(Boolean).join('\n\n');
}

/** Every operation needs one of these unless it says otherwise (`security: []`, the public ones). */
export const DOCUMENT_SECURITY: ReadonlyArray<Record<string, string[]>> = [{ bearer: [] }, { session: [] }];

/** The CSRF header as a documented parameter of the state-changing operations a browser calls. */
export const CSRF_PARAMETER = {
  name: CSRF_HEADER,
  in: 'header',
  required: false,
  description: `Required when the request is authenticated by the session cookie (a signed-in browser): without it the answer is 403. Any value; ignored with a bearer token.`,
  schema: { type: 'string', maxLength: 64 },
} as const;

const UNSAFE_OPERATIONS = new Set(['post', 'put', 'patch', 'delete']);

/**
 * Adds the CSRF parameter to every state-changing operation that takes a credential (the session
 * routes, which are public, declare it in their own schemas). Documentation only: the hook above
 * is what asks for it.
 */
export function documentCsrf<T extends { paths?: Record<string, Record<string, unknown>> }>(document: T): T {
  for (const methods of Object.values(document.paths ?? {})) {
    for (const [method, value] of Object.entries(methods)) {
      const operation = value as { security?: unknown[]; parameters?: unknown[] };
      if (!UNSAFE_OPERATIONS.has(method) || operation.security?.length === 0) continue;
      operation.parameters = [...(operation.parameters ?? []), { $ref: '#/components/parameters/csrf' }];
    }
  }
  return document;
}

export const SECURITY_SCHEMES = {
  bearer: { type: 'http', scheme: 'bearer', description: 'An API token: `adk_…` (or AGENTDESK_ADMIN_TOKEN)' },
  session: {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE,
    description: `A browser session from POST /session; state-changing requests also need the ${CSRF_HEADER} header`,
  },
} as const;

/**
 * Routes registered inside `register` (plugins we do not write: the docs viewer, static files)
 * are public unless they say otherwise.
 */
export async function publicScope(app: HttpApp, register: (scope: HttpApp) => Promise<void>): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook('onRoute', (route) => {
      route.config = { ...route.config, access: route.config?.access ?? ACCESS.public };
    });
    await register(scope as unknown as HttpApp);
  });
}

/** What routes that authenticate by themselves (sign-in) share with the hook. */
export interface Gate {
  /** Counts a failed authentication: a 401, or a 429 once the address or the credential's prefix collected too many. */
  unauthorized(request: FastifyRequest, reply: FastifyReply, presented: boolean): Promise<FastifyReply>;
}

/**
 * The start of the credential a request presents (bearer token, session cookie, or the token
 * a sign-in sends), hashed so not even a part of a secret is kept; null when none was presented.
 */
function presentedPrefix(request: FastifyRequest): string | null {
  let presented: string | null;
  const authorization = request.headers.authorization;
  if (authorization !== undefined) presented = /^Bearer +(\S+)/i.exec(authorization)?.[1] ?? authorization;
  else presented = readCookie(request.headers.cookie, SESSION_COOKIE);
  const body = request.body as { token?: unknown } | undefined;
  if (presented === null && typeof body?.token === 'string') presented = body.token;
  if (presented === null || presented === '') return null;
  return hashSecret(presented.slice(0, COUNTED_PREFIX_LENGTH));
}

/**
 * Must run before any route is registered. The hook checks, in this order:
 *   1. AUTH=off: only a Host that names a loopback address or one of ALLOWED_HOSTS (DNS rebinding)
 *   2. a state-changing request a browser marks as cross-site is refused (no CORS, no CSRF)
 *   3. the route's declared access level: public routes stop here
 *   4. the credential: `Authorization: Bearer`, else the session cookie (which needs the CSRF
 *      header on state-changing requests); none or a bad one is a 401 that says nothing more,
 *      or a 429 once its address or its prefix collected too many (a good one always passes)
 *   5. the role against the access level: 403
 */
export async function installAccessControl(
  app: HttpApp,
  { config, authenticator }: AccessControlOptions,
): Promise<Gate> {
  app.decorateRequest('principal', null);
  app.decorateRequest('identity', null);

  const routes: RouteOptions[] = [];
  const described = new WeakSet<object>();
  app.addHook('onRoute', (route) => {
    routes.push(route);
    // Routes of a public scope get their level after this hook; they are hidden from the docs anyway.
    describe(route, config.mode, described);
  });
  app.decorate('accessTable', () =>
    routes.flatMap((route) =>
      (Array.isArray(route.method) ? route.method : [route.method]).map((method) => ({
        method: String(method),
        url: route.url,
        access: route.config?.access,
      })),
    ),
  );
  app.addHook('onReady', async () => {
    const missing = routes.filter((route) => route.config?.access === undefined);
    if (missing.length > 0) {
      throw new Error(
        `routes without an access level: ${missing.map((r) => `${String(r.method)} ${r.url}`).join(', ')}`,
      );
    }
  });

  // Failures are counted twice: per client address (request.ip, which TRUST_PROXY makes the
  // real client behind a reverse proxy) and per prefix of what was presented, so one credential
  // tried from many addresses is slowed down too. Only failures are ever answered 429: a
  // credential that works is checked first and always let through, so garbage sent from a shared
  // address (a proxy, a NAT, the desk's own host) cannot lock out the valid callers behind it. A
  // right guess stays out of reach: tokens carry 256 random bits.
  await app.register(rateLimit, { global: false });
  const failuresByAddress = app.createRateLimit({
    max: config.failureLimit,
    timeWindow: FAILURE_WINDOW_MS,
    keyGenerator: (request) => request.ip,
  });
  const failuresByPrefix = app.createRateLimit({
    max: config.failureLimit,
    timeWindow: FAILURE_WINDOW_MS,
    keyGenerator: (request) => presentedPrefix(request) ?? '',
  });

  function tooMany(reply: FastifyReply, seconds: number): FastifyReply {
    reply.header('retry-after', String(seconds));
    return send(reply, 429, 'Too many failed authentications from this address or with this credential; retry later.');
  }

  /** A 401 that says the same for a missing, malformed, unknown, expired or revoked credential. */
  async function unauthorized(request: FastifyRequest, reply: FastifyReply, presented: boolean): Promise<FastifyReply> {
    const counts = [await failuresByAddress(request)];
    if (presentedPrefix(request) !== null) counts.push(await failuresByPrefix(request));
    const waits = counts.flatMap((counted) =>
      !counted.isAllowed && counted.isExceeded ? [Math.max(1, counted.ttlInSeconds)] : [],
    );
    if (waits.length > 0) return tooMany(reply, Math.max(...waits));
    reply.header(
      'www-authenticate',
      presented ? 'Bearer realm="agentdesk", error="invalid_token"' : 'Bearer realm="agentdesk"',
    );
    return send(
      reply,
      401,
      presented
        ? 'The credentials are not valid.'
        : 'Authentication required: send Authorization: Bearer <token>, or sign in.',
    );
  }

  /** Ends a stream as soon as the credential behind it stops working. */
  function watch(request: FastifyRequest, proof: Proof): void {
    let checking = false;
    const check = () => {
      if (checking) return;
      checking = true;
      authenticator.recheck(proof).then(
        (valid) => {
          checking = false;
          if (!valid) request.raw.socket?.destroy();
        },
        () => {
          checking = false;
        },
      );
    };
    const timer = setInterval(check, STREAM_RECHECK_MS);
    const stop = authenticator.onRevocation(check);
    request.raw.once('close', () => {
      clearInterval(timer);
      stop();
    });
  }

  app.addHook('onRequest', async (request, reply) => {
    if (config.mode === 'off') {
      const host = hostName(request.headers.host);
      if (host === null || !(isLoopbackHost(host) || config.allowedHosts.includes(host))) {
        return send(reply, 421, 'This desk answers only to a loopback address or a name in ALLOWED_HOSTS.');
      }
    }
    if (UNSAFE_METHODS.has(request.method) && !sameOrigin(request)) {
      return send(reply, 403, 'Cross-site requests are refused.');
    }
    if (request.is404) return;
    const access = request.routeOptions.config.access;
    if (access === undefined)
      throw new Error(`route ${request.routeOptions.url ?? request.url} declares no access level`);
    if (config.mode === 'off') {
      request.principal = openDeskPrincipal(request);
      return;
    }
    // With tokens nobody is who a header says: dropped before validation, so nothing reads it.
    delete request.headers['x-user'];
    if (access === ACCESS.public) return;

    const authorization = request.headers.authorization;
    const sessionId = readCookie(request.headers.cookie, SESSION_COOKIE);
    let found: Awaited<ReturnType<Authenticator['bearer']>> = null;
    if (authorization !== undefined) {
      const match = /^Bearer +(\S+) *$/i.exec(authorization);
      found = match ? await authenticator.bearer(match[1] as string) : null;
    } else if (sessionId !== null) {
      found = await authenticator.session(sessionId);
      // Only a browser sends the cookie by itself: a state change must prove it came from our page.
      if (found && UNSAFE_METHODS.has(request.method) && request.headers[CSRF_HEADER] === undefined) {
        return send(reply, 403, `A signed-in browser must send the ${CSRF_HEADER} header with this request.`);
      }
    }
    if (!found) return unauthorized(request, reply, authorization !== undefined || sessionId !== null);

    const { principal } = found.identity;
    if (!roleMay(principal.role, access)) {
      return send(
        reply,
        403,
        `${roleWithArticle(principal.role)} token may not do this (it needs ${ROLES_BY_ACCESS[access].join(' or ')}).`,
      );
    }
    request.principal = principal;
    request.identity = found.identity;
    if (request.routeOptions.config.stream) watch(request, found.proof);
  });

  return { unauthorized };
}
