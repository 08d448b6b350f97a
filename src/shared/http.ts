import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
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
import { isDatabaseUnavailable } from './db.js';
import {
  ConflictError,
  type FieldError,
  ForbiddenError,
  NotFoundError,
  PROBLEM_CONTENT_TYPE,
  type Problem,
  TooManyRequestsError,
  UnavailableError,
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

export interface HttpAppOptions {
  logger: Logger;
  bodyLimit: number;
  title: string;
  description: string;
  version: string;
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
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request');
  }
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
  return ajv;
}

/**
 * A Fastify instance with everything both services share: validation that coerces query
 * strings but never bodies, problem+json for every error, the OpenAPI document at
 * `/openapi.json` and its viewer at `/docs`, one log line per request. It never listens.
 */
export async function createHttpApp(options: HttpAppOptions): Promise<HttpApp> {
  const app = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    bodyLimit: options.bodyLimit,
    logController: new OneLinePerRequest(),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    ajv: { customOptions: { strict: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const bodyAjv = buildAjv({ coerceTypes: false });
  const queryAjv = buildAjv({ coerceTypes: true });
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? bodyAjv : queryAjv).compile(schema as object),
  );

  // Only JSON is accepted: anything else, plain text included, is a 415.
  app.removeContentTypeParser(['text/plain']);

  app.setErrorHandler((error, request, reply) => {
    const mapped = toProblem(error as FastifyError);
    if (mapped.status === 503) {
      // Expected while the database is away; the message is enough, a stack adds nothing.
      request.log.warn({ err: { message: (error as Error).message } }, 'database unavailable');
    } else if (mapped.status >= 500) {
      request.log.error({ err: error }, 'request failed');
    }
    if (error instanceof TooManyRequestsError) reply.header('retry-after', String(error.retry_after_s));
    return reply.code(mapped.status).type(PROBLEM_CONTENT_TYPE).send(mapped);
  });

  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .type(PROBLEM_CONTENT_TYPE)
      .send(problem(404, `No route for ${request.method} ${request.url.split('?')[0]}`)),
  );

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: options.title, description: options.description, version: options.version },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  return app;
}

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
export function toProblem(error: FastifyError): Problem {
  if (error instanceof ValidationError) {
    return problem(422, error.message, { errors: error.errors });
  }
  if (error instanceof NotFoundError) return problem(404, error.message);
  if (error instanceof ConflictError) return problem(409, error.message, error.extensions);
  if (error instanceof ForbiddenError) return problem(403, error.message);
  if (error instanceof TooManyRequestsError) return problem(429, error.message);
  if (error instanceof UnavailableError || isDatabaseUnavailable(error)) {
    return problem(503, 'The database is unavailable; retry shortly.');
  }
  if (error.validation) {
    const context = error.validationContext ?? 'body';
    // A path that names no resource (an id that is not a UUID) is a missing resource.
    if (context === 'params') return problem(404, 'No such resource');
    const errors = fieldErrors(error.validation as ErrorObject[], context);
    return problem(422, `Invalid ${context}: ${errors.map((e) => `${e.field} ${e.message}`).join('; ')}`, {
      errors,
    });
  }
  // JSON.parse quotes the text around the fault, which may be a secret: never echo it.
  if (error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || (error instanceof SyntaxError && error.statusCode === 400)) {
    return problem(400, 'The body is not valid JSON');
  }
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return problem(415, 'The body must be JSON, sent with Content-Type: application/json');
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
