import type { ErrorObject } from 'ajv';
import type { FastifyError } from 'fastify';
import { isDatabaseUnavailable } from '../db/database.js';
import {
  ConflictError,
  type FieldError,
  ForbiddenError,
  NotFoundError,
  PreconditionFailedError,
  type Problem,
  RateLimitedError,
  StorageFullError,
  ValidationError,
  problem,
} from '../errors.js';
import { MalformedJsonError } from './json-body.js';

// The one mapping from any error (a domain error, a validation failure, the framework's own) to
// the RFC 9457 problem document the client sees; the app factory (app.ts) answers with it.

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
  if (error instanceof StorageFullError) {
    return problem(503, 'The database cannot store this write: its disk is full. Nothing of it was kept; retry later.');
  }
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
