import type { Static } from 'typebox';
import type { ProblemSchema } from '../shared/http/schemas.js';

// What a call to agentdesk can end in besides its answer: the service refused (a problem
// document, RFC 9457) or it could not be reached at all. Callers tell the two apart by class:
// the CLI maps them to exit codes 1 and 3, the MCP server to tool errors.

/** The problem document every agentdesk error answers with. */
export type Problem = Static<typeof ProblemSchema>;

/** The service answered with an error status; `problem` is its problem document. */
export class ProblemError extends Error {
  override name = 'ProblemError';
  readonly status: number;
  readonly type: string;
  readonly title: string;
  readonly detail: string;
  readonly errors: Problem['errors'];

  constructor(readonly problem: Problem) {
    super(problem.detail || problem.title);
    this.status = problem.status;
    this.type = problem.type;
    this.title = problem.title;
    this.detail = problem.detail;
    this.errors = problem.errors;
  }
}

/** No HTTP answer at all: refused connection, DNS failure, reset, timeout. */
export class UnreachableError extends Error {
  override name = 'UnreachableError';

  constructor(
    readonly url: string,
    options: { cause: unknown },
  ) {
    super(`cannot reach agentdesk at ${url}: ${describeCause(options.cause)}`, options);
  }
}

function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  // undici's "fetch failed" hides the useful part (ECONNREFUSED, ENOTFOUND) in its own cause.
  const inner = cause.cause;
  if (cause instanceof TypeError && inner instanceof Error) {
    const code = (inner as NodeJS.ErrnoException).code;
    return code ? `${code} (${inner.message})` : inner.message;
  }
  return cause.name === 'TimeoutError' ? 'timed out' : cause.message;
}
