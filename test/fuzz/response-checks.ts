// The properties every answer must have, whatever was asked: no 5xx; the status the oracle
// expects; an error is application/problem+json whose `status` is the HTTP status; the status
// and its media type are declared for the operation and the body matches the declared schema;
// the headers that go with a status are there; no secret comes back.

import { type Expectation, isA2aRest } from './oracle.js';
import type { Operation } from './openapi-operations.js';
import type { Sendable } from './requests.js';

export interface Answer {
  status: number;
  headers: Record<string, string>;
  /** The body text (for a stream, its first bytes). */
  text: string;
}

const PROBLEM = 'application/problem+json';
const A2A_TYPE = 'application/a2a+json';
function mediaType(headers: Record<string, string>): string {
  return (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

function parse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/**
 * A2A's HTTP+JSON binding answers its refusals of a well-formed request (no message, not
 * cancelable, a task that has ended, push notifications) with a 400 in A2A's error format.
 */
function a2aRefusal(op: Operation, status: number, answer: Answer): boolean {
  return isA2aRest(op) && status === 400 && mediaType(answer.headers) === A2A_TYPE;
}

/** Every way the answer breaks a property; empty when it keeps them all. */
export function checkAnswer(
  request: Sendable,
  expectation: Expectation,
  answer: Answer,
  secrets: readonly string[],
): string[] {
  const problems: string[] = [];
  const { status } = answer;
  if (status >= 500) problems.push(`a ${status}: never a 5xx`);
  // Node's parser answered before any route: only the problem document is ours to check.
  if (expectation.parser?.includes(status))
    expectation = { kind: 'refused', statuses: [status], why: 'parser', op: null };

  if (expectation.kind === 'refused') {
    if (!expectation.statuses.includes(status)) {
      problems.push(`status ${status}, expected ${expectation.statuses.join(' or ')} (${expectation.why})`);
    }
  } else if ([400, 405, 413, 415].includes(status) && !a2aRefusal(expectation.op, status, answer)) {
    problems.push(`status ${status} for a request that is valid by the document`);
  }

  const type = mediaType(answer.headers);
  let body: unknown;
  // An error is a problem document, unless its operation declares another body for it (the
  // health probe's 503; an answer link's HTML page, beside the edges' problems) and sent that.
  const declaredTypes = [...(expectation.op?.responses.get(status)?.content.keys() ?? [])];
  const ownErrorBody =
    declaredTypes.length > 0 &&
    (!declaredTypes.includes(PROBLEM) || (type !== PROBLEM && declaredTypes.includes(type)));
  if (status >= 400 && !ownErrorBody) {
    if (type !== PROBLEM)
      problems.push(`error with content type ${answer.headers['content-type'] ?? '(none)'}, not ${PROBLEM}`);
    const parsed = parse(answer.text);
    if (!parsed.ok) problems.push('error body is not JSON');
    else {
      body = parsed.value;
      const problem = body as Record<string, unknown>;
      if (problem?.status !== status)
        problems.push(`problem status ${String(problem?.status)} ≠ HTTP status ${status}`);
      for (const member of ['type', 'title', 'detail'] as const) {
        if (typeof problem?.[member] !== 'string') problems.push(`problem has no string ${member}`);
      }
      if (
        expectation.kind === 'valid' &&
        status === 422 &&
        /^Invalid (body|querystring|headers|params)\b/.test(String(problem?.detail))
      ) {
        problems.push(`schema 422 for a request valid by the document: ${String(problem?.detail).slice(0, 200)}`);
      }
    }
  }

  // The operation the request reached: its declared answers are the contract.
  const op: Operation | null = expectation.op;
  if (op) {
    const declared = op.responses.get(status);
    if (!declared) problems.push(`status ${status} is not declared for ${op.name}`);
    else if (declared.content.size === 0) {
      if (answer.text !== '')
        problems.push(
          `status ${status} declares no content but the body is ${JSON.stringify(answer.text.slice(0, 80))}`,
        );
    } else {
      const validate = declared.content.get(type);
      if (!validate) {
        problems.push(
          `content type ${type || '(none)'} is not declared for ${status} (declared: ${[...declared.content.keys()].join(', ')})`,
        );
      } else if (type === 'text/plain' || type === 'text/html') {
        // Text (GET /metrics, an answer link's page): the body is the string the schema describes, not JSON.
        if (!validate(answer.text))
          problems.push(
            `body does not match the declared ${status} schema: ${JSON.stringify(validate.errors?.slice(0, 3))}`,
          );
      } else if (type !== 'text/event-stream') {
        const parsed = body === undefined ? parse(answer.text) : { ok: true as const, value: body };
        if (!parsed.ok) problems.push(`a ${status} body that is not JSON`);
        else if (!validate(parsed.value)) {
          problems.push(
            `body does not match the declared ${status} schema: ${JSON.stringify(validate.errors?.slice(0, 3))}`,
          );
        } else body = parsed.value;
      }
    }
  }

  // Headers that belong to statuses and resources.
  if (status === 401 && !answer.headers['www-authenticate']) problems.push('401 without WWW-Authenticate');
  if (status === 405 && !answer.headers.allow) problems.push('405 without Allow');
  if ((status === 429 || status === 503) && !answer.headers['retry-after'])
    problems.push(`${status} without Retry-After`);
  if (
    op?.path.startsWith('/work') &&
    status < 300 &&
    body &&
    !Array.isArray(body) &&
    typeof (body as { version?: unknown }).version === 'number'
  ) {
    const version = (body as { version: number }).version;
    if (answer.headers.etag !== `"${version}"`)
      problems.push(`ETag ${answer.headers.etag ?? '(none)'} ≠ version ${version}`);
  }
  if (status === 201 && !answer.headers.location) problems.push('201 without Location');

  const everything = `${JSON.stringify(answer.headers)}\n${answer.text}`;
  for (const secret of secrets)
    if (everything.includes(secret)) problems.push(`the answer carries a secret (${secret.slice(0, 6)}…)`);
  return problems;
}

/** A failure message that lets a person replay the request by hand. */
export function describeRequest(request: Sendable, answer: Answer | null): string {
  const lines = [
    `${request.method} ${request.path}${request.query ? `?${request.query}` : ''}   [${request.op.name}; mutation: ${request.mutation}]`,
    ...Object.entries(request.headers).map(([name, value]) => `${name}: ${value.slice(0, 200)}`),
  ];
  if (request.body !== null)
    lines.push(
      '',
      request.body.length > 600 ? `${request.body.slice(0, 600)}… (${request.body.length} chars)` : request.body,
    );
  if (answer) lines.push('→', `${answer.status} ${answer.headers['content-type'] ?? ''}`, answer.text.slice(0, 800));
  return lines.join('\n');
}
