import { Type } from 'typebox';
import { Agent, fetch } from 'undici';
import { ACCESS, CSRF_HEADER } from '../auth/contract.js';
import { classifyDeadlineMs } from '../classify/index.js';
import type { LlmConfig } from '../shared/config/config.js';
import type { HttpApp } from '../shared/http/types.js';
import { PROBLEM_CONTENT_TYPE, problem } from '../shared/errors.js';
import { problemResponses } from '../shared/http/schemas.js';
import type { Tracing } from '../shared/observability/tracing.js';

// The UI's Classify page posts here; the work service forwards the email to the classification service named
// in its config, so the browser talks to one origin only.

/**
 * The caller's credentials go along (the services share the database, so a session cookie works there too):
 * the classification service applies its own budget and override rules to them.
 */
const FORWARDED_HEADERS = ['authorization', 'cookie', CSRF_HEADER, 'x-user'] as const;

export const CLASSIFY_PROXY_BODY_LIMIT = 5 * 1024 * 1024;

/** Connecting, sending 5 MiB and the classifier's own DNS look-up, on top of its deadline. */
const RELAY_MARGIN_MS = 10_000;

/**
 * The relay outlives the classifier, so the browser gets the classifier's answer, never a 502
 * for a classification that succeeds. Both read the same LLM settings (one environment); a
 * classifier started with longer ones can still outlast this.
 */
export function relayTimeoutMs(llm: Pick<LlmConfig, 'timeoutMs' | 'maxRetries'>): number {
  return classifyDeadlineMs(llm) + RELAY_MARGIN_MS;
}

export function registerClassifyProxy(app: HttpApp, classifyUrl: string, timeoutMs: number, tracing: Tracing): void {
  // Node's default agent gives up on headers after 300 s, which a long LLM_TIMEOUT_MS outlasts.
  const dispatcher = new Agent({ headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  app.addHook('onClose', async () => dispatcher.close());
  app.post(
    '/ui-api/classify',
    {
      bodyLimit: CLASSIFY_PROXY_BODY_LIMIT,
      config: { access: ACCESS.classify },
      schema: {
        operationId: 'classifyEmailForUi',
        tags: ['ui'],
        summary: "Forwards an email to the classification service (the web UI's Classify page)",
        body: Type.Object({}, { additionalProperties: true }),
        response: {
          200: Type.Object({}, { additionalProperties: true }),
          ...problemResponses(400, 413, 415, 422, 502),
        },
      },
    },
    async (request, reply) => {
      let upstream: Awaited<ReturnType<typeof fetch>>;
      try {
        upstream = await fetch(`${classifyUrl}/classify`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            // traceparent: the classifier's spans join this request's trace.
            ...tracing.propagationHeaders(),
            ...Object.fromEntries(
              FORWARDED_HEADERS.flatMap((name) => {
                const value = request.headers[name];
                return typeof value === 'string' ? [[name, value]] : [];
              }),
            ),
          },
          body: JSON.stringify(request.body),
          signal: AbortSignal.timeout(timeoutMs),
          dispatcher,
        });
      } catch (error) {
        request.log.warn({ err: { message: (error as Error).message } }, 'classification service unreachable');
        return reply
          .code(502)
          .type(PROBLEM_CONTENT_TYPE)
          .send(problem(502, `The classification service at ${classifyUrl} cannot be reached`));
      }
      let answer: unknown;
      try {
        answer = await upstream.json();
      } catch {
        return reply
          .code(502)
          .type(PROBLEM_CONTENT_TYPE)
          .send(problem(502, `The classification service at ${classifyUrl} did not answer with JSON`));
      }
      // Relay the answer and its status: the classification service already speaks problem+json.
      const retryAfter = upstream.headers.get('retry-after');
      if (retryAfter !== null) reply.header('retry-after', retryAfter);
      return reply
        .code(upstream.status as 200)
        .type(upstream.headers.get('content-type') ?? 'application/json')
        .send(answer as Record<string, unknown>);
    },
  );
}
