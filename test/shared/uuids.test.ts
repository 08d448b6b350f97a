import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';

// Found by the fuzzer (test/fuzz): the uuid format of ajv-formats also takes "urn:uuid:…" and
// upper case. PostgreSQL's uuid type refuses the first (a 500) and reads the second as the same
// id, while SQLite compares text: the stores answered differently. Ids are now the lower-case
// form the API hands out, on both stores: another spelling names nothing.

describe.each(await storesUnderTest())('ids in other spellings, on %s', (kind) => {
  let t: TestApp;
  let item: { id: string };
  let project: { id: string };
  beforeAll(async () => {
    t = await startWorkApp(kind);
    project = (await call(t.app, 'POST', '/projects', { name: 'uuid spellings' })).body;
    item = (await call(t.app, 'POST', '/work', { type: 'uuids', description: 'd', project_id: project.id })).body;
  });
  afterAll(() => t?.close());

  const spellings = (id: string) => ({ urn: `urn:uuid:${id}`, upper: id.toUpperCase() });

  it('in a path: 404 on both stores, never a 500 or the item', async () => {
    for (const other of Object.values(spellings(item.id))) {
      for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
        const answer = await call(t.app, method, `/work/${other}`, method === 'PATCH' ? { notes: 'n' } : undefined);
        expect(answer.status, `${method} ${other}: ${answer.text}`).toBe(404);
      }
      expect((await call(t.app, 'POST', `/work/${other}/heartbeat`, { agent: 'ada' })).status).toBe(404);
      expect((await call(t.app, 'GET', `/projects/${spellings(project.id).upper}`)).status).toBe(404);
    }
    expect((await call(t.app, 'GET', `/work/${item.id}`)).status).toBe(200);
  });

  it('in a body or a query: a 422 naming the field', async () => {
    for (const other of Object.values(spellings(project.id))) {
      const submitted = await call(t.app, 'POST', '/work', { type: 'uuids', description: 'd', project_id: other });
      expect(submitted.status, submitted.text).toBe(422);
      expect(submitted.body.errors).toEqual([{ field: 'project_id', message: expect.any(String) }]);
      const claimed = await call(t.app, 'POST', '/work/claim', { agent: 'ada', project_id: other });
      expect(claimed.status, claimed.text).toBe(422);
      const listed = await call(t.app, 'GET', `/work?project_id=${encodeURIComponent(other)}`);
      expect(listed.status, listed.text).toBe(422);
      expect((await call(t.app, 'GET', `/work/counts?project_id=${encodeURIComponent(other)}`)).status).toBe(422);
    }
  });
});
