import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpApp } from '../../src/shared/http/types.js';
import { ADMIN_SECRET, type AuthPair, bearer, mintToken, startAuthPair } from '../support/auth.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';

// An agent token acts as its own agent and no other. It cannot dispatch to another
// agent, move another agent's item, or take an item nobody gave it; with a token, created_by
// is the token's identity and X-User is ignored.

describe.each(await storesUnderTest())('agent tokens on %s', (kind) => {
  let pair: AuthPair;
  let app: HttpApp;
  let ada: Record<string, string>;
  let intake: Record<string, string>;
  const admin = bearer(ADMIN_SECRET);

  beforeAll(async () => {
    pair = await startAuthPair(kind);
    app = pair.work;
    ada = bearer((await mintToken(app, { role: 'agent', name: 'ada-laptop', agent: 'ada' })).token);
    intake = bearer((await mintToken(app, { role: 'intake', name: 'mailroom' })).token);
  });
  afterAll(() => pair?.close());

  const submit = (body: Record<string, unknown>, headers: Record<string, string>) =>
    call(app, 'POST', '/work', { type: 'limits', description: 'an item', ...body }, headers);
  const itemFor = async (agent?: string) => (await submit(agent ? { agent } : {}, admin)).body.id as string;

  it('submits as itself: created_by is the agent name, X-User ignored', async () => {
    const response = await submit({}, { ...ada, 'x-user': 'mallory' });
    expect(response.status).toBe(201);
    expect(response.body.created_by).toBe('ada');
    const mail = await submit({}, { ...intake, 'x-user': 'mallory' });
    expect(mail.body.created_by).toBe('mailroom');
    const env = await submit({}, { ...admin, 'x-user': 'mallory' });
    expect(env.body.created_by).toBe('admin');
    // Not even read: a value that would be refused under AUTH=off changes nothing.
    const odd = await submit({}, { ...ada, 'x-user': 'not a name!' });
    expect(odd.status).toBe(201);
    expect(odd.body.created_by).toBe('ada');
  });

  it('may dispatch to itself but not to another agent', async () => {
    expect((await submit({ agent: 'ada' }, ada)).body).toMatchObject({ status: 'dispatched', assigned_agent: 'ada' });
    const other = await submit({ agent: 'grace' }, ada);
    expect(other.status).toBe(403);
    expect(other.body.detail).toContain('grace');
    expect((await call(app, 'GET', '/work/agent/grace', undefined, admin)).body).toEqual([]);
  });

  it('claims and heartbeats as itself only; cannot heartbeat another agent’s item', async () => {
    const type = `limits_claim_${kind}`;
    await submit({ type }, admin);
    const asOther = await call(app, 'POST', '/work/claim', { agent: 'grace', types: [type] }, ada);
    expect(asOther.status).toBe(403);
    const asSelf = await call(app, 'POST', '/work/claim', { agent: 'ada', types: [type] }, ada);
    expect(asSelf.status).toBe(200);
    expect(asSelf.body.assigned_agent).toBe('ada');
    const gracesItem = await itemFor('grace');
    expect((await call(app, 'POST', `/work/${gracesItem}/heartbeat`, { agent: 'ada' }, ada)).status).toBe(403);
    expect((await call(app, 'POST', `/work/${gracesItem}/heartbeat`, { agent: 'grace' }, ada)).status).toBe(403);
    expect((await call(app, 'POST', `/work/${asSelf.body.id}/heartbeat`, { agent: 'ada' }, ada)).status).toBe(200);
  });

  it('an intake token submits queued work but dispatches to nobody', async () => {
    expect((await submit({}, intake)).body.status).toBe('queued');
    const dispatching = await submit({ agent: 'grace' }, intake);
    expect(dispatching.status).toBe(403);
    expect(dispatching.body.detail).toMatch(/^An intake token cannot dispatch/);
  });

  it('a refusal by role names the role with the right article', async () => {
    const byAgent = await call(app, 'POST', '/projects', { name: `articles-${kind}` }, ada);
    expect(byAgent.status).toBe(403);
    expect(byAgent.body.detail).toMatch(/^An agent token may not do this/);
    const byIntake = await call(app, 'GET', '/tokens', undefined, intake);
    expect(byIntake.status).toBe(403);
    expect(byIntake.body.detail).toMatch(/^An intake token may not do this/);
  });

  it('without "agent", claims, heartbeats and moves act as the token\'s own agent', async () => {
    const type = `limits_implicit_${kind}`;
    const { body: queued } = await submit({ type }, admin);
    const claimed = await call(app, 'POST', '/work/claim', { types: [type] }, ada);
    expect(claimed.status).toBe(200);
    expect(claimed.body).toMatchObject({ id: queued.id, assigned_agent: 'ada', status: 'in_progress' });
    const beat = await call(app, 'POST', `/work/${queued.id}/heartbeat`, { lease_s: 120 }, ada);
    expect(beat.status).toBe(200);
    expect(beat.body.assigned_agent).toBe('ada');
    const done = await call(app, 'PATCH', `/work/${queued.id}`, { status: 'completed', outcome: 'success' }, ada);
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('completed');
    // A token bound to no agent still has to name one.
    const byAdmin = await call(app, 'POST', '/work/claim', { types: [type] }, admin);
    expect(byAdmin.status).toBe(422);
    expect(byAdmin.body.detail).toMatch(/agent/);
  });

  it("a claim's finish acts as the token's agent: another agent's item is refused (403) and nothing is claimed", async () => {
    const type = `limits_finish_${kind}`;
    const gracesItem = await itemFor('grace');
    const { body: queued } = await submit({ type }, admin);
    const refused = await call(
      app,
      'POST',
      '/work/claim',
      { types: [type], finish: { id: gracesItem, status: 'completed' } },
      ada,
    );
    expect(refused.status).toBe(403);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect((await call(app, 'GET', `/work/${gracesItem}`, undefined, admin)).body).toMatchObject({
      status: 'dispatched',
      assigned_agent: 'grace',
    });
    expect((await call(app, 'GET', `/work/${queued.id}`, undefined, admin)).body.status).toBe('queued');
    // Its own item: finished, and the next one claimed for it.
    const { body: mine } = await call(app, 'POST', '/work/claim', { types: [type] }, ada);
    const { body: next } = await submit({ type }, admin);
    const done = await call(
      app,
      'POST',
      '/work/claim',
      { types: [type], finish: { id: mine.id, status: 'completed' } },
      ada,
    );
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ id: next.id, assigned_agent: 'ada' });
    expect((await call(app, 'GET', `/work/${mine.id}`, undefined, admin)).body).toMatchObject({
      status: 'completed',
      outcome: 'success',
    });
  });

  it("cannot move, edit or reassign another agent's item", async () => {
    const id = await itemFor('grace');
    for (const patch of [{ status: 'in_progress' }, { notes: 'mine now' }, { agent: 'ada' }, { status: 'queued' }]) {
      const response = await call(app, 'PATCH', `/work/${id}`, patch, ada);
      expect(response.status, JSON.stringify(patch)).toBe(403);
    }
    const item = (await call(app, 'GET', `/work/${id}`, undefined, ada)).body;
    expect(item).toMatchObject({ status: 'dispatched', assigned_agent: 'grace', notes: null });
    expect(item.dispatch_log).toHaveLength(1);
  });

  it('cannot take a queued item by dispatching it to itself', async () => {
    const id = await itemFor();
    expect((await call(app, 'PATCH', `/work/${id}`, { agent: 'ada' }, ada)).status).toBe(403);
    expect((await call(app, 'GET', `/work/${id}`, undefined, ada)).body.status).toBe('queued');
  });

  it('moves its own item through the lifecycle, but cannot hand it to another agent', async () => {
    const id = await itemFor('ada');
    expect((await call(app, 'PATCH', `/work/${id}`, { agent: 'grace' }, ada)).status).toBe(403);
    expect((await call(app, 'PATCH', `/work/${id}`, { status: 'in_progress' }, ada)).status).toBe(200);
    expect((await call(app, 'PATCH', `/work/${id}`, { notes: 'halfway' }, ada)).status).toBe(200);
    const done = await call(app, 'PATCH', `/work/${id}`, { status: 'completed', outcome: 'success' }, ada);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'completed', assigned_agent: 'ada', notes: 'halfway' });
  });

  it('loses the item once an admin reassigns it', async () => {
    const id = await itemFor('ada');
    expect((await call(app, 'PATCH', `/work/${id}`, { agent: 'grace' }, admin)).status).toBe(200);
    expect((await call(app, 'PATCH', `/work/${id}`, { status: 'in_progress' }, ada)).status).toBe(403);
  });

  it('an admin dispatches and reassigns to anyone', async () => {
    const id = await itemFor('grace');
    const moved = await call(app, 'PATCH', `/work/${id}`, { agent: 'linus' }, admin);
    expect(moved.body).toMatchObject({ status: 'dispatched', assigned_agent: 'linus' });
  });
});
