import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { ADMIN_SECRET, AUTH_ENV, bearer, mintToken } from '../support/auth.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';

// Through HTTP with tokens on both stores: a question addressed to "@creator". The item's creator
// answers it even as an agent; no other agent does (403, the question stays open); a person still
// does; is:needs-me counts it as the creator's; `to` still refuses names that are not names.

describe.each(await storesUnderTest())('questions to the creator on %s', (kind) => {
  let t: TestApp;
  const as = {} as Record<'admin' | 'requester' | 'worker' | 'stranger' | 'mia', Record<string, string>>;

  beforeAll(async () => {
    t = await startWorkApp(kind, { ...AUTH_ENV });
    as.admin = bearer(ADMIN_SECRET);
    as.requester = bearer((await mintToken(t.app, { role: 'agent', name: 'req-token', agent: 'requester' })).token);
    as.worker = bearer((await mintToken(t.app, { role: 'agent', name: 'worker-token', agent: 'worker' })).token);
    as.stranger = bearer((await mintToken(t.app, { role: 'agent', name: 'stranger-token', agent: 'stranger' })).token);
    as.mia = bearer((await mintToken(t.app, { role: 'member', name: 'mia' })).token);
  });
  afterAll(() => t?.close());

  /** An item `creator` submitted, claimed by the worker, with its question `body` asked by the worker. */
  const asked = async (creator: Record<string, string>, body: Record<string, unknown>) => {
    const type = `creator-${Math.random().toString(36).slice(2, 8)}`;
    const submitted = await call(t.app, 'POST', '/work', { type, description: 'release 2.0' }, creator);
    expect(submitted.status, submitted.text).toBe(201);
    const claim = await call(t.app, 'POST', '/work/claim', { types: [type] }, as.worker);
    expect(claim.body.id).toBe(submitted.body.id);
    const question = await call(t.app, 'POST', `/work/${submitted.body.id}/questions`, body, as.worker);
    expect(question.status, question.text).toBe(201);
    return { item: submitted.body.id as string, question: question.body.id as string };
  };
  const answer = (item: string, question: string, body: unknown, who: Record<string, string>) =>
    call(t.app, 'POST', `/work/${item}/questions/${question}/answer`, body, who);
  const questionOf = async (item: string, question: string) =>
    (await call(t.app, 'GET', `/work/${item}/questions/${question}`, undefined, as.admin)).body;

  it('the agent that created the item answers; another agent gets a 403 and the question stays open', async () => {
    const { item, question } = await asked(as.requester, {
      question: 'Staging or production?',
      options: ['staging', 'production'],
      to: ['@creator'],
    });
    expect(await questionOf(item, question)).toMatchObject({ to: ['@creator'], status: 'open' });

    for (const other of [as.stranger, as.worker]) {
      const refused = await answer(item, question, { option: 'staging' }, other);
      expect(refused.status, refused.text).toBe(403);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(refused.body.detail).toContain('@creator');
    }
    expect(await questionOf(item, question)).toMatchObject({ status: 'open', answered_by: null });
    expect((await call(t.app, 'GET', `/work/${item}`, undefined, as.admin)).body.status).toBe('blocked');

    const answered = await answer(item, question, { option: 'staging' }, as.requester);
    expect(answered.status, answered.text).toBe(200);
    expect(answered.body).toMatchObject({ status: 'answered', option: 'staging', answered_by: 'requester' });
    const resumed = (await call(t.app, 'GET', `/work/${item}`, undefined, as.admin)).body;
    expect(resumed).toMatchObject({ status: 'in_progress', assigned_agent: 'worker' });
    const again = await answer(item, question, { option: 'production' }, as.requester);
    expect(again.status).toBe(409);
  });

  it('the creator agent answers only a question addressed to @creator', async () => {
    for (const to of [undefined, ['mia'], ['requester']]) {
      const { item, question } = await asked(as.requester, { question: 'Go ahead?', ...(to && { to }) });
      const refused = await answer(item, question, { answer: 'yes' }, as.requester);
      expect(refused.status, `${JSON.stringify(to)}: ${refused.text}`).toBe(403);
      expect(await questionOf(item, question)).toMatchObject({ status: 'open' });
    }
  });

  it('a person still answers a question to @creator on the desk', async () => {
    const { item, question } = await asked(as.requester, { question: 'Which region?', to: ['@creator', 'mia'] });
    const answered = await answer(item, question, { answer: 'eu-west' }, as.mia);
    expect(answered.status, answered.text).toBe(200);
    expect(answered.body).toMatchObject({ status: 'answered', answer: 'eu-west', answered_by: 'mia' });
    expect((await call(t.app, 'GET', `/work/${item}`, undefined, as.admin)).body.status).toBe('in_progress');
  });

  it('is:needs-me counts a question to @creator as the creator’s, an agent’s included', async () => {
    const needs = async (who: Record<string, string>) => {
      const found = await call(t.app, 'GET', `/search?${new URLSearchParams({ q: 'is:needs-me' })}`, undefined, who);
      expect(found.status, found.text).toBe(200);
      return found.body.map((hit: { item: { id: string } }) => hit.item.id);
    };
    const ofMia = await asked(as.mia, { question: 'Which laptop for the designer?', to: ['@creator'] });
    expect(await needs(as.mia)).toContain(ofMia.item);
    expect(await needs(as.admin)).not.toContain(ofMia.item);

    // An agent needs only what it may answer: not a question naming it, nor one to everyone.
    const toCreator = await asked(as.requester, { question: 'Which branch?', to: ['@creator'] });
    const named = await asked(as.requester, { question: 'Which tag?', to: ['requester'] });
    const toAll = await asked(as.requester, { question: 'Which day?' });
    const mine = await needs(as.requester);
    expect(mine).toContain(toCreator.item);
    expect(mine).not.toContain(named.item);
    expect(mine).not.toContain(toAll.item);
    expect(await needs(as.stranger)).not.toContain(toCreator.item);
    expect(await needs(as.worker)).toEqual([]);
    await answer(toCreator.item, toCreator.question, { answer: 'main' }, as.requester);
    expect(await needs(as.requester)).not.toContain(toCreator.item);
  });

  it('`to` takes "@creator" among names and still refuses what is not a name (422)', async () => {
    const { item } = await asked(as.requester, { question: 'First?', to: ['@creator'] });
    for (const to of [['not a name'], [''], ['@creator', '@creator'], []]) {
      const refused = await call(t.app, 'POST', `/work/${item}/questions`, { question: 'Again?', to }, as.admin);
      expect(refused.status, `${JSON.stringify(to)}: ${refused.text}`).toBe(422);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
  });
});
