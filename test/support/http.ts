import type { HttpApp } from '../../src/shared/http/types.js';

export interface JsonResponse<T = any> {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: T;
  text: string;
}

/** Sends one JSON request through Fastify's inject and parses whatever comes back. */
export async function call<T = any>(
  app: HttpApp,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT',
  url: string,
  payload?: unknown,
  headers: Record<string, string> = {},
): Promise<JsonResponse<T>> {
  const response = await app.inject({
    method,
    url,
    headers: payload === undefined ? headers : { 'content-type': 'application/json', ...headers },
    ...(payload !== undefined && { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) }),
  });
  let body: any = undefined;
  if (response.body.length > 0) {
    try {
      body = JSON.parse(response.body);
    } catch {
      body = response.body;
    }
  }
  return { status: response.statusCode, headers: response.headers, body, text: response.body };
}

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
