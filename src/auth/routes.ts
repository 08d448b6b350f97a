import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AuthConfig } from '../shared/config/config.js';
import { ConflictError, ForbiddenError } from '../shared/errors.js';
import type { HttpApp } from '../shared/http/types.js';
import { withHeaders } from '../shared/http/openapi.js';
import { problemResponses } from '../shared/http/schemas.js';
import { type Gate, openDeskPrincipal, readCookie } from './access-hook.js';
import type { Authenticator } from './authenticator.js';
import { ACCESS, CSRF_HEADER, SESSION_COOKIE } from './roles.js';
import {
  CreateTokenSchema,
  CreatedTokenSchema,
  SessionSchema,
  type SessionView,
  SignInSchema,
  TokenIdParamsSchema,
  TokenRecordSchema,
} from './schemas.js';
import type { TokenService } from './token-service.js';

// The CSRF header on the session routes: documented here, checked by the handlers (a 403, as the access hook
// answers elsewhere, rather than a 422), so it stays optional to validation.
const CsrfHeadersSchema = Type.Object({
  [CSRF_HEADER]: Type.Optional(
    Type.String({
      maxLength: 64,
      description:
        'Any value; required to sign in, and to sign out a browser that holds the session cookie (403 without it)',
    }),
  ),
});

function callerName(request: FastifyRequest): string {
  return request.principal?.name ?? 'anonymous';
}

export function registerTokenRoutes(app: HttpApp, tokens: TokenService): void {
  const tags = ['tokens'];
  const config = { access: ACCESS.admin };

  app.post(
    '/tokens',
    {
      config,
      schema: {
        operationId: 'createToken',
        tags,
        summary: 'Create an API token; the answer holds its secret, which is never shown again',
        body: CreateTokenSchema,
        response: {
          201: withHeaders(CreatedTokenSchema, 'Location', 'Cache-Control'),
          ...problemResponses(400, 413, 415, 422),
        },
      },
    },
    async (request, reply) => {
      const created = await tokens.create(request.body, callerName(request));
      return reply
        .code(201)
        .header('cache-control', 'no-store')
        .header('location', `/tokens/${created.id}`)
        .send(created);
    },
  );

  app.get(
    '/tokens',
    {
      config,
      schema: {
        operationId: 'listTokens',
        tags,
        summary: 'Every token, newest first, without secrets',
        response: { 200: Type.Array(TokenRecordSchema) },
      },
    },
    async () => tokens.list(),
  );

  app.get(
    '/tokens/:id',
    {
      config,
      schema: {
        operationId: 'getToken',
        tags,
        summary: 'One token, without its secret',
        params: TokenIdParamsSchema,
        response: { 200: TokenRecordSchema, ...problemResponses(404) },
      },
    },
    async (request) => tokens.get(request.params.id),
  );

  app.delete(
    '/tokens/:id',
    {
      config,
      schema: {
        operationId: 'revokeToken',
        tags,
        summary: 'Revoke a token at once, on every instance, with the browser sessions it opened',
        params: TokenIdParamsSchema,
        response: { 204: Type.Null({ description: 'Revoked' }), ...problemResponses(404) },
      },
    },
    async (request, reply) => {
      await tokens.revoke(request.params.id);
      return reply.code(204).send(null);
    },
  );
}

export interface SessionRouteDeps {
  config: AuthConfig;
  authenticator: Authenticator;
  gate: Gate;
}

function sessionCookie(request: FastifyRequest, value: string, maxAgeSeconds: number): string {
  const secure = request.protocol === 'https' || request.headers['x-forwarded-proto'] === 'https';
  return [
    `${SESSION_COOKIE}=${value}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${maxAgeSeconds}`,
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

/**
 * The browser's sign-in: a token is exchanged once for an HttpOnly, SameSite=Strict cookie,
 * so the page never holds the token and it never appears in a URL. EventSource sends the
 * cookie by itself; every state-changing request must also carry the CSRF header, which no
 * other site can add without a CORS permission this service never gives.
 */
export function registerSessionRoutes(app: HttpApp, { config, authenticator, gate }: SessionRouteDeps): void {
  const tags = ['session'];
  const access = { access: ACCESS.public };

  async function current(request: FastifyRequest, reply: FastifyReply): Promise<SessionView | FastifyReply> {
    if (config.mode === 'off') return { auth: 'off', principal: openDeskPrincipal(request) };
    if (request.headers.authorization !== undefined) {
      const match = /^Bearer +(\S+) *$/i.exec(request.headers.authorization);
      const found = match ? await authenticator.bearer(match[1] as string) : null;
      if (!found) return gate.unauthorized(request, reply, true);
      return { auth: 'tokens', principal: found.identity.principal };
    }
    const sessionId = readCookie(request.headers.cookie, SESSION_COOKIE);
    const found = sessionId === null ? null : await authenticator.session(sessionId);
    // A cookie that no longer works is dropped, so the browser stops sending it.
    if (sessionId !== null && !found) reply.header('set-cookie', sessionCookie(request, '', 0));
    return { auth: 'tokens', principal: found?.identity.principal ?? null };
  }

  app.get(
    '/session',
    {
      config: access,
      schema: {
        operationId: 'getSession',
        tags,
        summary: 'Whether authentication is on and who the caller is (null: not signed in)',
        description:
          'Public: answers without a credential. With `Authorization: Bearer` it checks that token; with the session cookie, that session (a cookie that no longer works is cleared).',
        response: { 200: withHeaders(SessionSchema, 'Cache-Control', 'Set-Cookie'), ...problemResponses(401, 429) },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return current(request, reply);
    },
  );

  app.post(
    '/session',
    {
      config: access,
      schema: {
        operationId: 'signIn',
        tags,
        summary: 'Sign a browser in: exchange a token for an HttpOnly session cookie',
        description: `Send the ${CSRF_HEADER} header. The cookie lasts SESSION_TTL_HOURS, or until the token expires or is revoked.`,
        headers: CsrfHeadersSchema,
        body: SignInSchema,
        response: {
          200: withHeaders(SessionSchema, 'Set-Cookie', 'Cache-Control'),
          ...problemResponses(400, 401, 403, 409, 413, 415, 422, 429),
        },
      },
    },
    async (request, reply) => {
      if (config.mode === 'off')
        throw new ConflictError('Authentication is off on this service (AUTH=off): there is nothing to sign in to.');
      if (request.headers[CSRF_HEADER] === undefined)
        throw new ForbiddenError(`Send the ${CSRF_HEADER} header to sign in.`);
      const found = await authenticator.bearer(request.body.token);
      if (!found) return gate.unauthorized(request, reply, true);
      const session = await authenticator.startSession(found.identity, config.sessionTtlMs);
      return reply
        .header('set-cookie', sessionCookie(request, session.id, session.max_age_seconds))
        .header('cache-control', 'no-store')
        .send({ auth: 'tokens', principal: found.identity.principal });
    },
  );

  app.delete(
    '/session',
    {
      config: access,
      schema: {
        operationId: 'signOut',
        tags,
        summary: 'Sign out: the session ends on every instance and the cookie is cleared',
        headers: CsrfHeadersSchema,
        response: {
          204: withHeaders(Type.Null({ description: 'Signed out' }), 'Set-Cookie'),
          ...problemResponses(403),
        },
      },
    },
    async (request, reply) => {
      const sessionId = readCookie(request.headers.cookie, SESSION_COOKIE);
      if (sessionId !== null) {
        if (request.headers[CSRF_HEADER] === undefined)
          throw new ForbiddenError(`Send the ${CSRF_HEADER} header to sign out.`);
        await authenticator.endSession(sessionId);
      }
      return reply
        .code(204)
        .header('set-cookie', sessionCookie(request, '', 0))
        .send(null);
    },
  );
}
