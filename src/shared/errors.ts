// Domain errors know nothing of HTTP; `toProblem` is the single place that turns any error
// into an RFC 9457 problem document, so every route and both services answer alike.

export interface FieldError {
  field: string;
  message: string;
}

export abstract class DomainError extends Error {
  override name = this.constructor.name;
}

export class NotFoundError extends DomainError {}

/** The request is well-formed but conflicts with the current state of a resource. */
export class ConflictError extends DomainError {
  constructor(
    message: string,
    /** Extra members for the problem document, e.g. the allowed next states. */
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export class ValidationError extends DomainError {
  constructor(
    readonly errors: FieldError[],
    message = errors.map((error) => `${error.field}: ${error.message}`).join('; '),
  ) {
    super(message);
  }

  static of(field: string, message: string): ValidationError {
    return new ValidationError([{ field, message }]);
  }
}

export class ForbiddenError extends DomainError {}

/** The caller's precondition (If-Match) names a state the resource has left. */
export class PreconditionFailedError extends DomainError {
  constructor(
    message: string,
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/**
 * The database cannot grow: the disk (or the file system the database is on) is full. Nothing of
 * the refused write was kept; writes succeed again by themselves once space is freed.
 */
export class StorageFullError extends DomainError {
  /** Seconds a client should wait: freeing space takes a person or a clean-up job. */
  readonly retryAfterSeconds = 30;
}

/** The caller spent a budget; it may try again after `retryAfterSeconds`. */
export class RateLimitedError extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: FieldError[];
  [extension: string]: unknown;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  408: 'Request Timeout',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  421: 'Misdirected Request',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

const TYPE_SLUGS: Record<number, string> = {
  400: 'malformed-request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not-found',
  405: 'method-not-allowed',
  406: 'not-acceptable',
  408: 'request-timeout',
  409: 'conflict',
  412: 'precondition-failed',
  413: 'body-too-large',
  415: 'unsupported-media-type',
  421: 'misdirected-request',
  422: 'validation-failed',
  429: 'too-many-requests',
  431: 'headers-too-large',
  500: 'internal-error',
  502: 'bad-gateway',
  503: 'unavailable',
};

export function problem(status: number, detail: string, extra: Partial<Problem> = {}): Problem {
  return {
    type: `https://agentdesk.dev/problems/${TYPE_SLUGS[status] ?? 'error'}`,
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    ...extra,
  };
}
