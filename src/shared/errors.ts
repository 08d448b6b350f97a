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

/** The caller has more work in progress than it may; it may retry after `retry_after_s` seconds. */
export class TooManyRequestsError extends DomainError {
  constructor(
    message: string,
    readonly retry_after_s: number,
  ) {
    super(message);
  }
}

/** The backing store cannot be reached; the caller may retry. */
export class UnavailableError extends DomainError {}

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
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

const TYPE_SLUGS: Record<number, string> = {
  400: 'malformed-request',
  403: 'forbidden',
  404: 'not-found',
  405: 'method-not-allowed',
  406: 'not-acceptable',
  409: 'conflict',
  413: 'body-too-large',
  415: 'unsupported-media-type',
  422: 'validation-failed',
  429: 'too-many-requests',
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

export function titleOf(status: number): string {
  return TITLES[status] ?? 'Error';
}
