import { A2A_CONTENT_TYPE } from '@a2a-js/sdk';
import {
  A2AError,
  ContentTypeNotSupportedError,
  RequestMalformedError,
  TaskNotFoundError,
  UnsupportedOperationError,
  VersionNotSupportedError,
  restStatusFor,
  toRestErrorBody,
} from '@a2a-js/sdk/errors';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ProblemError } from '../client/errors.js';
import { PROBLEM_CONTENT_TYPE, ValidationError } from '../shared/errors.js';
import { MalformedJsonError } from '../shared/http/json-body.js';
import { toProblem } from '../shared/http/problem.js';
import { ProblemSchema } from '../shared/http/schemas.js';

// The HTTP+JSON binding's errors: A2A's REST error body (google.rpc.Status with an ErrorInfo
// naming the A2A error), with the HTTP status the SDK's own server gives each error, made by the
// SDK's toRestErrorBody and restStatusFor so that its client reads them as it reads its server's.

const RestErrorSchema = Type.Object(
  {
    error: Type.Object(
      {
        code: Type.Integer({ description: 'The HTTP status' }),
        status: Type.String({
          description: 'The gRPC status name: INVALID_ARGUMENT, NOT_FOUND, FAILED_PRECONDITION, …',
        }),
        message: Type.String(),
        details: Type.Array(Type.Unknown(), { description: 'An ErrorInfo whose reason names the A2A error' }),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true, description: "A2A's HTTP+JSON error" },
);

export function a2aError(description: string) {
  return {
    description,
    content: { [A2A_CONTENT_TYPE]: { schema: RestErrorSchema }, [PROBLEM_CONTENT_TYPE]: { schema: ProblemSchema } },
  };
}

/** An A2A error, or a refusal of the desk's API behind it, as A2A's REST error; null: neither. */
export function restError(error: unknown): { status: number; body: unknown } | null {
  let a2a = error;
  // As over JSON-RPC: not found is TaskNotFound; a role or a conflict the API refuses is unsupported.
  if (error instanceof ProblemError && error.status === 404) a2a = new TaskNotFoundError(error.detail);
  else if (error instanceof ProblemError && (error.status === 403 || error.status === 409)) {
    a2a = new UnsupportedOperationError(error.detail);
  } else if (error instanceof ProblemError && error.status < 500 && error.status !== 429) {
    a2a = new RequestMalformedError(error.detail);
  }
  if (!(a2a instanceof A2AError)) return null;
  const status = restStatusFor(a2a);
  return { status, body: toRestErrorBody(a2a, status) };
}

function sendError(reply: FastifyReply, status: number, error: unknown) {
  return reply.code(status).type(A2A_CONTENT_TYPE).send(toRestErrorBody(error, status));
}

/** What the parser, the schemas and the desk refuse, in A2A's format; anything else is the desk's problem. */
export function restErrors(
  error: Error & { validation?: unknown; validationContext?: string; code?: string },
  _request: FastifyRequest,
  reply: FastifyReply,
) {
  if (error instanceof MalformedJsonError) return sendError(reply, 400, new RequestMalformedError(error.message));
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return sendError(
      reply,
      415,
      new ContentTypeNotSupportedError('This binding takes application/json or application/a2a+json'),
    );
  }
  if (error.validation !== undefined) {
    if (error.validationContext === 'params') return sendError(reply, 404, new TaskNotFoundError('No such task'));
    if (error.validationContext === 'headers') {
      return sendError(reply, 400, new VersionNotSupportedError('Send A2A-Version: 1.0 on this binding'));
    }
    return sendError(reply, 400, new RequestMalformedError(toProblem(error as FastifyError).detail));
  }
  if (error instanceof ValidationError) return sendError(reply, 400, new RequestMalformedError(error.message));
  const mapped = restError(error);
  if (!mapped) throw error;
  return reply.code(mapped.status).type(A2A_CONTENT_TYPE).send(mapped.body);
}
