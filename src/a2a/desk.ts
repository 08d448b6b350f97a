import type { FastifyInstance, FastifyRequest, InjectOptions } from 'fastify';
import type { Principal } from '../auth/index.js';
import { createInjectFetch } from '../client/inject-fetch.js';
import { type WorkClient, createWorkClient } from '../client/work-client.js';

// The desk as one A2A caller sees it: the work API called in process (app.inject) with the
// caller's own credential, so what it may do is what its token may do on the API, checked by the
// same routes, and every change is recorded as its own.

/** The request headers that say who the caller is. */
const IDENTITY_HEADERS = ['authorization', 'x-user', 'cookie', 'x-agentdesk-csrf'] as const;

export interface Caller {
  principal: Principal;
  desk: WorkClient;
}

export function callerOf(app: Pick<FastifyInstance, 'inject'>, request: FastifyRequest): Caller {
  const headers: Record<string, string> = {};
  for (const name of IDENTITY_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  // The caller's address, so a failed credential counts against it and not against 127.0.0.1.
  const inject = (options: InjectOptions) => app.inject({ ...options, remoteAddress: request.ip });
  const fetch = createInjectFetch({ inject } as unknown as Pick<FastifyInstance, 'inject'>);
  const desk = createWorkClient({ baseUrl: 'http://localhost', fetch, headers });
  return { principal: request.principal!, desk };
}
