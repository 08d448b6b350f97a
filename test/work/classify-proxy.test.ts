import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../helpers/apps.js';
import { call } from '../helpers/http.js';
import { startClassifyApp } from '../helpers/classify-app.js';

// The UI's Classify page goes through the work service to the real classification service
// (here on its offline rules provider), so the browser needs one origin only.
describe('POST /ui-api/classify', () => {
  let classify: TestApp;
  let work: TestApp;
  let unreachable: TestApp;

  beforeAll(async () => {
    classify = await startClassifyApp('sqlite', { LLM_PROVIDER: 'rules' });
    await classify.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (classify.app.server.address() as AddressInfo).port;
    work = await startWorkApp('sqlite', { CLASSIFY_URL: `http://127.0.0.1:${port}` });
    // Port 9 (discard) is closed on this machine: nothing answers there.
    unreachable = await startWorkApp('sqlite', { CLASSIFY_URL: 'http://127.0.0.1:9' });
  });
  afterAll(async () => {
    await work.close();
    await unreachable.close();
    await classify.close();
  });

  it('relays the classification of an email', async () => {
    const response = await call(work.app, 'POST', '/ui-api/classify', {
      email_data: {
        subject: 'Invoice INV-2231 due Friday',
        body: '<p>Hi, please pay invoice INV-2231 for $4,200 by Friday, Nov 27.</p><p>Thanks, Dana (Acme Billing)</p>',
      },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      category: expect.any(String),
      needs_action: expect.any(Boolean),
      details: expect.objectContaining({ dedupe_key: expect.stringMatching(/^[0-9a-f]{64}$/) }),
      dedupe: expect.objectContaining({ status: 'new', seen_count: 1 }),
    });
  });

  it('relays the service’s own 422 problem', async () => {
    const response = await call(work.app, 'POST', '/ui-api/classify', { email_data: 'not an object' });
    expect(response.status).toBe(422);
    expect(response.headers['content-type']).toContain('application/problem+json');
    expect(response.body.errors.map((e: { field: string }) => e.field)).toContain('email_data');
  });

  it('is a 502 problem when the classification service cannot be reached', async () => {
    const response = await call(unreachable.app, 'POST', '/ui-api/classify', { email_data: { subject: 'hello' } });
    expect(response.status).toBe(502);
    expect(response.headers['content-type']).toContain('application/problem+json');
    expect(response.body.detail).toContain('127.0.0.1:9');
  });
});
