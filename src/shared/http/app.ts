import swagger, { type FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { Logger } from 'pino';
import { Type } from 'typebox';
import type { HttpApp } from './types.js';
import { Registry, installRequestMetrics } from '../observability/metrics.js';
import { createMethodIndex, lingerOverRefusedBody, onClientError, onFrameworkError } from './edges.js';
import { parseJsonBody } from './json-body.js';
import {
  type NamedSchemas,
  OPENAPI_LICENSE,
  OPENAPI_SERVERS,
  boundRequestSchemas,
  finishDocument,
  nameSchemas,
} from './openapi.js';
import { toProblem } from './problem.js';
import { problemResponses } from './schemas.js';
import type { Tracing } from '../observability/tracing.js';
import type { RequestLimits, TrustProxy } from '../config/config.js';
import {
  capConnectionsPerAddress,
  createBodyDeadlines,
  releaseBodyDeadlines,
  serverTimeouts,
} from './request-deadlines.js';
import { PROBLEM_CONTENT_TYPE, RateLimitedError, StorageFullError, problem } from '../errors.js';
import { createAjv } from './validation.js';

// The app factory both services share: Fastify set up the same way for each. Who may call what
// is not decided here: the composition root (src/services) passes the access hook in, so this
// folder imports no feature.

declare module 'fastify' {
  interface FastifyInstance {
    /** This app's metrics (GET /metrics); features add their own to it. */
    metricsRegistry: Registry;
  }
  interface FastifyContextConfig {
    /** The path holds a credential (an answer link's token): the request log shows the route's pattern instead. */
    secretInPath?: boolean;
  }
}

type OpenApi = NonNullable<FastifyDynamicSwaggerOptions['openapi']>;

export interface DocumentAccess {
  /** components.securitySchemes: the credentials a caller may present. */
  securitySchemes: NonNullable<NonNullable<OpenApi['components']>['securitySchemes']>;
  /** The document-wide security requirement. */
  security: ReadonlyArray<NonNullable<OpenApi['security']>[number]>;
  /** components.parameters the access rules add to operations. */
  parameters: NonNullable<NonNullable<OpenApi['components']>['parameters']>;
  /** The types the document names in components.schemas and refers to by `$ref`; none when absent. */
  schemas?: NamedSchemas;
  /** A last pass over the finished document (the CSRF header on state-changing operations). */
  finish<T extends { paths?: Record<string, Record<string, unknown>> }>(document: T): T;
}

export interface HttpAppOptions {
  logger: Logger;
  /**
   * Who may call what: installs the hook that enforces the access level every route declares.
   * Runs before any route is registered, after the error handling is in place.
   */
  installAccess: (app: HttpApp) => Promise<void>;
  /** What the OpenAPI document says about access, from the root (src/auth knows it). */
  document: DocumentAccess;
  bodyLimit: number;
  title: string;
  description: string;
  version: string;
  /** Request spans, when tracing is on; registered before any hook so they cover them all. */
  tracing?: Tracing;
  /** TRUST_PROXY: who may name the client (`request.ip`) in X-Forwarded-For; nobody when absent. */
  trustProxy?: TrustProxy;
  /** How long a request may take to arrive, and connections per address (request-deadlines.ts). */
  requests: RequestLimits;
  /** Whether a credential identified the caller: read after the access hook, for the longer bounds. */
  authenticated: (request: FastifyRequest) => boolean;
}

/** One line per request, written when it completes, instead of Fastify's two. */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = {
      method: request.method,
      url: request.routeOptions.config.secretInPath ? request.routeOptions.url : request.url,
      client: request.ip,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    // A load balancer's health checks, every few seconds, would bury the requests that matter.
    else if (request.routeOptions.url === '/health' && reply.statusCode < 400) reply.log.debug(line, 'request');
    else reply.log.info(line, 'request');
  }
}

/**
 * TRUST_PROXY as Fastify takes it. Fastify trusts nobody when given a bare hop count, so the
 * count becomes what it means: the peer and the proxies in front of it, `hops` in all, are
 * trusted to have appended to X-Forwarded-For.
 */
function fastifyTrustProxy(trust: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return typeof trust === 'boolean' ? trust : [...trust];
}

/**
 * A Fastify instance with everything both services share: validation that coerces query
 * strings but never bodies, problem+json for every error, the OpenAPI document (its routes and
 * `/metrics` are added by the caller, at the access level it chooses), one log line per request.
 * It never listens.
 */
export async function createHttpApp(options: HttpAppOptions): Promise<HttpApp> {
  const timeouts = serverTimeouts(options.requests);
  const app = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    bodyLimit: options.bodyLimit,
    http: timeouts,
    requestTimeout: timeouts.requestTimeout,
    trustProxy: fastifyTrustProxy(options.trustProxy ?? false),
    logController: new OneLinePerRequest(),
    // Answered below as problem+json, with Retry-After, instead of Fastify's own 503 body.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    ajv: { customOptions: { strict: false } },
    frameworkErrors: onFrameworkError,
    // An answer link's signed token is one path segment longer than the router's default 100.
    routerOptions: { maxParamLength: 256 },
    clientErrorHandler: onClientError,
  }).withTypeProvider<TypeBoxTypeProvider>();
  await options.tracing?.instrument(app);
  capConnectionsPerAddress(app.server, options.requests.maxConnectionsPerAddress);

  // First, so every request is timed, those the hooks below refuse included.
  const metricsRegistry = new Registry();
  await installRequestMetrics(app, metricsRegistry);
  app.decorate('metricsRegistry', metricsRegistry);

  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (_request, reply) => {
    if (!closing) return;
    reply.header('connection', 'close').header('retry-after', RETRY_AFTER_SECONDS);
    return reply
      .code(503)
      .type(PROBLEM_CONTENT_TYPE)
      .send(problem(503, 'The service is shutting down; retry shortly.'));
  });

  // Runs after the access hook (installed below, but onRequest hooks all come before it).
  app.addHook('preParsing', createBodyDeadlines(options.requests, options.authenticated));
  app.addHook('onSend', releaseBodyDeadlines);
  app.addHook('onSend', lingerOverRefusedBody);

  const methods = createMethodIndex();
  app.addHook('onRoute', (route) => methods.add(route.method, route.url));
  // Fastify reads a body for these methods whether or not the route wants one (a DELETE too),
  // so each can answer the parser's 400, 413 and 415 and the JSON body check's 422: the
  // document says so.
  app.addHook('onRoute', (route) => {
    const reads = (Array.isArray(route.method) ? route.method : [route.method]).some((method) =>
      BODY_METHODS.has(String(method)),
    );
    if (!reads || !route.schema) return;
    const schema = route.schema as { response?: Record<string, unknown> };
    schema.response = { ...problemResponses(400, 413, 415, 422), ...schema.response };
  });
  // Every documented route: what the transport and the edges above may answer on any request (a
  // bad percent-escape's 400, Node's 408 and 431, the shutdown's 503), and no query parameter it
  // does not name, so that a misspelt filter is a 422 instead of a silently wider answer.
  app.addHook('onRoute', (route) => {
    const schema = route.schema as
      { hide?: boolean; querystring?: unknown; response?: Record<string, unknown> } | undefined;
    if (!schema || schema.hide === true) return;
    schema.querystring ??= NO_QUERY;
    schema.response = { ...problemResponses(...ANY_ROUTE_STATUSES), ...schema.response };
  });
  app.addHook('onRoute', (route) => {
    if (route.schema)
      boundRequestSchemas(route.schema as Record<string, unknown>, route.bodyLimit ?? options.bodyLimit);
  });

  const bodyAjv = createAjv({ coerceTypes: false });
  const queryAjv = createAjv({ coerceTypes: true });
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? bodyAjv : queryAjv).compile(schema as object),
  );

  // Only JSON is accepted: anything else, plain text included, is a 415. Every JSON body goes
  // through one parser that refuses what no store can keep (see json-body.ts).
  app.removeContentTypeParser(['text/plain', 'application/json']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  app.setErrorHandler((error, request, reply) => {
    const mapped = toProblem(error as FastifyError, request.routeOptions.schema?.consumes);
    if (error instanceof StorageFullError) {
      // Logged once when refusals start and once when writes succeed again (database.ts), not per request.
      reply.header('retry-after', String(error.retryAfterSeconds));
    } else if (mapped.status === 503) {
      // Expected while the database is away; the message is enough, a stack adds nothing.
      request.log.warn({ err: { message: (error as Error).message } }, 'database unavailable');
      reply.header('retry-after', RETRY_AFTER_SECONDS);
    } else if (mapped.status >= 500) {
      request.log.error({ err: error }, 'request failed');
    }
    if (error instanceof RateLimitedError) reply.header('retry-after', String(error.retryAfterSeconds));
    return reply.code(mapped.status).type(PROBLEM_CONTENT_TYPE).send(mapped);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = methods.allowed(path);
    if (allowed.length > 0) {
      return reply
        .code(405)
        .header('allow', allowed.join(', '))
        .type(PROBLEM_CONTENT_TYPE)
        .send(problem(405, `${request.method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`));
    }
    return reply
      .code(404)
      .type(PROBLEM_CONTENT_TYPE)
      .send(problem(404, `No route for ${request.method} ${path}`));
  });

  await options.installAccess(app);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: options.title,
        description: options.description,
        version: options.version,
        license: { ...OPENAPI_LICENSE },
      },
      servers: [...OPENAPI_SERVERS],
      security: [...options.document.security],
      components: { securitySchemes: options.document.securitySchemes, parameters: options.document.parameters },
    },
    transformObject: (generated) =>
      options.document.finish(
        nameSchemas(
          finishDocument((generated as { openapiObject: Parameters<typeof finishDocument>[0] }).openapiObject),
          options.document.schemas ?? { responses: {}, requests: {} },
          options.bodyLimit,
        ),
      ) as never,
  });
  return app;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The query of a route that takes no parameters: any is refused. */
const NO_QUERY = Type.Object({}, { additionalProperties: false });

/** What any documented route can answer, whatever it does (see onClientError and onFrameworkError). */
const ANY_ROUTE_STATUSES = [400, 408, 422, 431, 503] as const;

/** Seconds a client should wait before retrying a 503. */
const RETRY_AFTER_SECONDS = '1';
