import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Ajv, type ErrorObject, type Options as AjvOptions } from 'ajv';
import addFormatsModule from 'ajv-formats';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { Logger } from 'pino';
import {
  type AccessControlOptions,
  CSRF_PARAMETER,
  DOCUMENT_SECURITY,
  type Gate,
  SECURITY_SCHEMES,
  documentCsrf,
  installAccessControl,
  publicScope,
} from '../auth/access-hook.js';
import { ACCESS } from '../auth/roles.js';
import { isDatabaseUnavailable } from './db.js';
import { Registry, installRequestMetrics, registerMetricsRoute } from './metrics.js';
import { createMethodIndex, lingerOverRefusedBody, onClientError, onFrameworkError } from './http-edges.js';
import { MalformedJsonError, parseJsonBody } from './json-body.js';
import { OPENAPI_LICENSE, OPENAPI_SERVERS, boundRequestSchemas, finishDocument } from './openapi.js';
import { problemResponses } from './schemas.js';
import type { Tracing } from './tracing.js';
import type { TrustProxy } from './config.js';
import {
  ConflictError,
  type FieldError,
  ForbiddenError,
  NotFoundError,
  PROBLEM_CONTENT_TYPE,
  PreconditionFailedError,
  type Problem,
  RateLimitedError,
  ValidationError,
  problem,
} from './errors.js';

export type HttpApp = FastifyInstance<
  import('node:http').Server,
  import('node:http').IncomingMessage,
  import('node:http').ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

declare module 'fastify' {
  interface FastifyInstance {
    /** For routes that authenticate by themselves (sign-in): the access hook's 401 and 429. */
    accessGate: Gate;
    /** This app's metrics (GET /metrics); features add their own to it. */
    metricsRegistry: Registry;
  }
}

export interface HttpAppOptions {
  logger: Logger;
  /** Who may call what: every route declares an access level, one hook enforces it. */
  access: AccessControlOptions;
  bodyLimit: number;
  title: string;
  description: string;
  version: string;
  /** Request spans, when tracing is on; registered before any hook so they cover them all. */
  tracing?: Tracing;
  /** TRUST_PROXY: who may name the client (`request.ip`) in X-Forwarded-For; nobody when absent. */
  trustProxy?: TrustProxy;
}

// ajv-formats is CommonJS with a default export; NodeNext sees the module object.
type AddFormats = (ajv: Ajv) => Ajv;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  (addFormatsModule as unknown as AddFormats)) as AddFormats;

/** One line per request, written when it completes, instead of Fastify's two. */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = {
      method: request.method,
      url: request.url,
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

type FormatCheck = (text: string) => boolean;

/** The years both stores hold in ISO 8601 form: PostgreSQL has no year 0 and SQLite compares text. */
const FIRST_TIME = Date.parse('0001-01-01T00:00:00.000Z');
const LAST_TIME = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * date-time as ajv-formats reads RFC 3339, and also a time JavaScript's Date can hold, in the
 * years 0001–9999 (UTC): ajv-formats takes a leap second (23:59:60) and an offset without minutes
 * (+16), which Date reads as an invalid date, and year 0, which PostgreSQL refuses; the services
 * turn every accepted time into a Date and store it. Refused here, such a time is a 422 on its
 * field instead of a RangeError or a database error, and a 500.
 */
function addStorableDateTime(ajv: Ajv): void {
  const rfc3339 = ajv.formats['date-time'] as { validate: FormatCheck } | FormatCheck | undefined;
  const wellFormed: FormatCheck = typeof rfc3339 === 'function' ? rfc3339 : (rfc3339?.validate ?? (() => true));
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (text: string) => {
      if (!wellFormed(text)) return false;
      const at = Date.parse(text);
      return at >= FIRST_TIME && at <= LAST_TIME;
    },
  });
}

function buildAjv(options: AjvOptions): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    useDefaults: true,
    removeAdditional: false,
    strict: false,
    ...options,
  });
  addFormats(ajv);
  addStorableDateTime(ajv);
  return ajv;
}

/**
 * A Fastify instance with everything both services share: validation that coerces query
 * strings but never bodies, problem+json for every error, the OpenAPI document at
 * `/openapi.json` and its viewer at `/docs`, `/metrics`, one log line per request. It never listens.
 */
export async function createHttpApp(options: HttpAppOptions): Promise<HttpApp> {
  const app = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    bodyLimit: options.bodyLimit,
    trustProxy: fastifyTrustProxy(options.trustProxy ?? false),
    logController: new OneLinePerRequest(),
    // Answered below as problem+json, with Retry-After, instead of Fastify's own 503 body.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    ajv: { customOptions: { strict: false } },
    frameworkErrors: onFrameworkError,
    clientErrorHandler: onClientError,
  }).withTypeProvider<TypeBoxTypeProvider>();
  await options.tracing?.instrument(app);

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
    return reply.code(503).type(PROBLEM_CONTENT_TYPE).send(problem(503, 'The service is shutting down; retry shortly.'));
  });

  app.addHook('onSend', lingerOverRefusedBody);

  const methods = createMethodIndex();
  app.addHook('onRoute', (route) => methods.add(route.method, route.url));
  // Fastify reads a body for these methods whether or not the route wants one (a DELETE too),
  // so each can answer the parser's 400, 413 and 415 and the JSON body check's 422: the
  // document says so.
  app.addHook('onRoute', (route) => {
    const reads = (Array.isArray(route.method) ? route.method : [route.method]).some((method) => BODY_METHODS.has(String(method)));
    if (!reads || !route.schema) return;
    const schema = route.schema as { response?: Record<string, unknown> };
    schema.response = { ...problemResponses(400, 413, 415, 422), ...schema.response };
  });
  app.addHook('onRoute', (route) => {
    if (route.schema) boundRequestSchemas(route.schema as Record<string, unknown>, route.bodyLimit ?? options.bodyLimit);
  });

  const bodyAjv = buildAjv({ coerceTypes: false });
  const queryAjv = buildAjv({ coerceTypes: true });
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
    if (error instanceof RateLimitedError) reply.header('retry-after', String(error.retryAfterSeconds));
    if (mapped.status === 503) {
      // Expected while the database is away; the message is enough, a stack adds nothing.
      request.log.warn({ err: { message: (error as Error).message } }, 'database unavailable');
    } else if (mapped.status >= 500) {
      request.log.error({ err: error }, 'request failed');
    }
    if (mapped.status === 503) reply.header('retry-after', RETRY_AFTER_SECONDS);
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
    return reply.code(404).type(PROBLEM_CONTENT_TYPE).send(problem(404, `No route for ${request.method} ${path}`));
  });

  app.decorate('accessGate', await installAccessControl(app, options.access));

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: options.title, description: options.description, version: options.version, license: { ...OPENAPI_LICENSE } },
      servers: [...OPENAPI_SERVERS],
      security: [...DOCUMENT_SECURITY],
      components: { securitySchemes: SECURITY_SCHEMES, parameters: { csrf: CSRF_PARAMETER } },
    },
    transformObject: (generated) =>
      documentCsrf(finishDocument((generated as { openapiObject: Parameters<typeof finishDocument>[0] }).openapiObject)) as never,
  });
  await publicScope(app, async (scope) => {
    await scope.register(swaggerUi, { routePrefix: '/docs' });
  });
  app.get(
    '/openapi.json',
    {
      config: { access: ACCESS.public },
      schema: {
        operationId: 'getOpenApiDocument',
        tags: ['openapi'],
        summary: 'This OpenAPI 3.1 document',
        response: { 200: Type.Object({}, { additionalProperties: true, description: 'The OpenAPI document' }) },
      },
    },
    async () => app.swagger(),
  );
  registerMetricsRoute(app, metricsRegistry);

  return app;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Seconds a client should wait before retrying a 503. */
const RETRY_AFTER_SECONDS = '1';

/** A problem lists at most this many field errors; the rest are counted, not listed. */
const MAX_LISTED_ERRORS = 20;

function joinField(path: string, name: unknown): string {
  return path ? `${path}.${String(name)}` : String(name);
}

function fieldErrors(errors: ErrorObject[], context: string): FieldError[] {
  const byField = new Map<string, string>();
  for (const error of errors) {
    const path = error.instancePath
      .split('/')
      .slice(1)
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .join('.');
    let field = path;
    let message = error.message ?? 'is invalid';
    if (error.keyword === 'required') {
      field = joinField(path, error.params.missingProperty);
      message = 'is required';
    } else if (error.keyword === 'additionalProperties') {
      field = joinField(path, error.params.additionalProperty);
      message = 'is not a known field';
    }
    field ||= context;
    // A nullable field fails each branch of its anyOf; the first branch's message is the useful one.
    if (!byField.has(field) || (error.keyword !== 'anyOf' && byField.get(field) === 'anyOf')) {
      byField.set(field, error.keyword === 'anyOf' ? 'anyOf' : message);
    }
  }
  return [...byField].map(([field, message]) => ({
    field,
    message: message === 'anyOf' ? 'has the wrong type' : message,
  }));
}

/** The one mapping from any error to the problem document the client sees. */
export function toProblem(error: FastifyError, consumes?: readonly string[]): Problem {
  if (error instanceof ValidationError) {
    return problem(422, error.message, { errors: error.errors });
  }
  if (error instanceof NotFoundError) return problem(404, error.message);
  if (error instanceof ConflictError) return problem(409, error.message, error.extensions);
  if (error instanceof ForbiddenError) return problem(403, error.message);
  if (error instanceof PreconditionFailedError) return problem(412, error.message, error.extensions);
  if (error instanceof RateLimitedError) return problem(429, error.message);
  if (isDatabaseUnavailable(error)) {
    return problem(503, 'The database is unavailable; retry shortly.');
  }
  if (error.validation) {
    const context = error.validationContext ?? 'body';
    // A path that names no resource (an id that is not a UUID) is a missing resource.
    if (context === 'params') return problem(404, 'No such resource');
    const all = fieldErrors(error.validation as ErrorObject[], context);
    const errors = all.slice(0, MAX_LISTED_ERRORS);
    const omitted = all.length - errors.length;
    const listed = errors.map((e) => `${e.field} ${e.message}`).join('; ');
    return problem(422, `Invalid ${context}: ${listed}${omitted > 0 ? `; and ${omitted} more` : ''}`, {
      errors,
      ...(omitted > 0 && { errors_omitted: omitted }),
    });
  }
  if (error instanceof MalformedJsonError) {
    return problem(400, error.empty ? 'The body is empty; send a JSON document' : 'The body is not valid JSON');
  }
  // JSON.parse quotes the text around the fault, which may be a secret: never echo it.
  if (error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || (error instanceof SyntaxError && error.statusCode === 400)) {
    return problem(400, 'The body is not valid JSON');
  }
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    // A route that takes files says which (its schema's `consumes`); every other one takes JSON.
    return consumes && consumes.length > 0
      ? problem(415, `This endpoint takes ${consumes.join(', ')}; send the file with one of these as its Content-Type`)
      : problem(415, 'The body must be JSON, sent with Content-Type: application/json');
  }
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return problem(413, `The body is larger than this endpoint accepts`);
  }
  const status = error.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return problem(status, error.message);
  }
  return problem(500, 'An unexpected error occurred.');
}
