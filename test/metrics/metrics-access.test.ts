import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_SECRET, type AuthPair, bearer, mintToken, startAuthPair } from '../support/auth.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';
import { parsePrometheus } from '../support/prometheus.js';

// /metrics is read access like the rest of the desk: a scraper holds a viewer token. Without
// one it gets the same 401 problem document as any route; the OpenAPI documents list it.

describe.each(await storesUnderTest())('who may read /metrics on %s', (kind) => {
  let pair: AuthPair;
  let viewer: Record<string, string>;
  beforeAll(async () => {
    pair = await startAuthPair(kind);
    viewer = bearer((await mintToken(pair.work, { role: 'viewer', name: 'prometheus' })).token);
  });
  afterAll(() => pair?.close());

  it.each(['work', 'classify'] as const)(
    '%s: 401 without a credential, 200 and parseable with a viewer token',
    async (service) => {
      const app = pair[service];
      const refused = await call(app, 'GET', '/metrics');
      expect(refused.status).toBe(401);
      expect(refused.headers['content-type']).toContain('application/problem+json');
      expect(refused.headers['www-authenticate']).toBeDefined();

      const allowed = await app.inject({ method: 'GET', url: '/metrics', headers: viewer });
      expect(allowed.statusCode).toBe(200);
      const metrics = parsePrometheus(allowed.body);
      // The refused request was timed too: the request metrics start before the access check.
      expect(
        metrics.value('agentdesk_http_request_duration_seconds_count', {
          method: 'GET',
          route: '/metrics',
          status_code: '401',
        }),
      ).toBe(1);
      // An intake token may not read.
      const intake = bearer((await mintToken(pair.work, { role: 'intake', name: `intake-${service}` })).token);
      expect((await call(app, 'GET', '/metrics', undefined, intake)).status).toBe(403);
      expect((await call(app, 'GET', '/metrics', undefined, bearer(ADMIN_SECRET))).status).toBe(200);
    },
  );

  it.each(['work', 'classify'] as const)(
    '%s: the OpenAPI document lists GET /metrics as text/plain, read access',
    async (service) => {
      const doc = (await call(pair[service], 'GET', '/openapi.json')).body;
      const op = doc.paths['/metrics'].get;
      expect(Object.keys(op.responses['200'].content)).toEqual(['text/plain']);
      expect(op.responses['200'].content['text/plain'].schema).toEqual({ type: 'string' });
      expect(op.security).toBeDefined();
      expect(op.responses).toHaveProperty('401');
    },
  );
});
