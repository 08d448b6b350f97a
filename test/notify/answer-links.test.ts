import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLinkTokens, loadLinkSecret, type LinkTokens } from '../../src/notify/index.js';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { ADMIN_SECRET, AUTH_ENV, bearer, mintToken } from '../support/auth.js';
import { createTestClock } from '../support/clock.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';

// One click, through HTTP with tokens on both stores: the GET page changes nothing, its form's
// POST answers as the person the link names (via link), and a used, expired, tampered or
// cross-site request gets a page or a refusal, never an answer. The clock is the test's.

const NO_TIMER_MS = 60 * 60 * 1000;
const ORIGIN = 'http://localhost';
const FORM = 'application/x-www-form-urlencoded';

describe.each(await storesUnderTest())('answer links on %s', (kind) => {
  let t: TestApp;
  let tokens: LinkTokens;
  const clock = createTestClock();
  const as = {} as Record<'admin' | 'ada' | 'mia', Record<string, string>>;

  beforeAll(async () => {
    t = await startWorkApp(kind, { ...AUTH_ENV }, { now: clock.now, sweepEveryMs: NO_TIMER_MS });
    as.admin = bearer(ADMIN_SECRET);
    as.ada = bearer((await mintToken(t.app, { role: 'agent', name: 'ada-token', agent: 'ada' })).token);
    as.mia = bearer((await mintToken(t.app, { role: 'member', name: 'mia' })).token);
    // No LINK_SECRET: the app made one and kept it; reading it again gives the same.
    tokens = createLinkTokens(await loadLinkSecret({ configured: null, database: t.database, box: null }), 7 * 86_400);
  });
  afterAll(() => t?.close());

  const claimed = async (extra: Record<string, unknown> = {}) => {
    const type = `link-${Math.random().toString(36).slice(2, 8)}`;
    const submitted = await call(t.app, 'POST', '/work', { type, description: 'ship the release', ...extra }, as.admin);
    expect(submitted.status, submitted.text).toBe(201);
    const claim = await call(t.app, 'POST', '/work/claim', { types: [type], lease_s: 600 }, as.ada);
    expect(claim.status, claim.text).toBe(200);
    return claim.body as { id: string };
  };
  const asked = async (body: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
    const item = await claimed(extra);
    const question = await call(t.app, 'POST', `/work/${item.id}/questions`, body, as.ada);
    expect(question.status, question.text).toBe(201);
    return { item: item.id, question: question.body.id as string };
  };
  const page = (token: string) => t.app.inject({ method: 'GET', url: `/answer/${token}` });
  const post = (token: string, form: Record<string, string>, headers: Record<string, string> = { origin: ORIGIN }) =>
    t.app.inject({
      method: 'POST',
      url: `/answer/${token}`,
      headers: { 'content-type': FORM, ...headers },
      payload: new URLSearchParams(form).toString(),
    });
  const questionOf = async (item: string, question: string) =>
    (await call(t.app, 'GET', `/work/${item}/questions/${question}`, undefined, as.ada)).body;

  it('GET shows the question, the item and the options, with strict headers, and leaves the question open', async () => {
    const { item, question } = await asked(
      { question: 'Which region?', options: ['eu-west', 'us-east'] },
      { priority: 3 },
    );
    const token = tokens.sign({ question_id: question, person: 'mia' }, clock.now());
    for (const method of ['GET', 'HEAD'] as const) {
      const shown = await t.app.inject({ method, url: `/answer/${token}` });
      expect(shown.statusCode, shown.body).toBe(200);
      expect(shown.headers['content-type']).toMatch(/^text\/html/);
      expect(shown.headers['content-security-policy']).toContain("default-src 'none'");
      expect(shown.headers['content-security-policy']).toContain("form-action 'self'");
      expect(shown.headers['cache-control']).toBe('no-store');
      expect(shown.headers['x-robots-tag']).toContain('noindex');
    }
    const shown = await page(token);
    expect(shown.body).toContain('Which region?');
    expect(shown.body).toContain('ship the release');
    expect(shown.body).toContain('value="eu-west"');
    expect(shown.body).toContain('value="us-east"');
    expect(shown.body).toContain('<textarea');
    expect(shown.body).toContain('mia');
    expect(await questionOf(item, question)).toMatchObject({ status: 'open', answered_by: null, via: null });
  });

  it("an email's option button opens the page with that option marked, and still answers nothing", async () => {
    const { item, question } = await asked({ question: 'Which region?', options: ['eu-west', 'us-east'] });
    const token = tokens.sign({ question_id: question, person: 'mia' }, clock.now());
    const shown = await t.app.inject({ method: 'GET', url: `/answer/${token}?option=2` });
    expect(shown.statusCode, shown.body).toBe(200);
    expect(shown.body).toContain('You chose <strong>us-east</strong> in the email');
    expect(shown.body).toContain('value="us-east" class="chosen" autofocus');
    expect(shown.body).not.toContain('value="eu-west" class="chosen"');
    expect(await questionOf(item, question)).toMatchObject({ status: 'open', answered_by: null });
    // No such button: a problem, not a page that pretends one was chosen.
    const refused = await t.app.inject({ method: 'GET', url: `/answer/${token}?option=11` });
    expect(refused.statusCode).toBe(422);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('POST with an option answers as the person, via link; the waiting agent sees it; a second POST is the used page', async () => {
    const { item, question } = await asked({ question: 'Ship on Friday?', options: ['yes', 'no'] });
    const token = tokens.sign({ question_id: question, person: 'mia' }, clock.now());
    const waiting = call(t.app, 'GET', `/work/${item}/questions/${question}?wait_s=10`, undefined, as.ada);
    const answered = await post(token, { option: 'yes', answer: '' });
    expect(answered.statusCode, answered.body).toBe(200);
    expect(answered.headers['content-type']).toMatch(/^text\/html/);
    expect(answered.body).toContain('recorded');
    const seen = await waiting;
    expect(seen.body).toMatchObject({
      status: 'answered',
      option: 'yes',
      answer: null,
      answered_by: 'mia',
      via: 'link',
    });
    expect((await call(t.app, 'GET', `/work/${item}`, undefined, as.admin)).body.status).toBe('in_progress');

    const again = await post(token, { option: 'no', answer: 'changed my mind' });
    expect(again.statusCode).toBe(410);
    expect(again.body).toContain('Already answered');
    expect(await questionOf(item, question)).toMatchObject({ option: 'yes', answered_by: 'mia' });
    expect((await page(token)).statusCode).toBe(410);
    // The request log shows the route, not the token; the secret is nowhere in it.
    expect(t.logs.text()).toContain('/answer/:token');
    expect(t.logs.text()).not.toContain(token);
    const secret = await loadLinkSecret({ configured: null, database: t.database, box: null });
    expect(t.logs.text()).not.toContain(secret.toString('base64url'));
  });

  it('a free-text answer; an API answer records via api', async () => {
    const free = await asked({ question: 'What should the title be?' });
    const token = tokens.sign({ question_id: free.question, person: 'mia' }, clock.now());
    const empty = await post(token, { answer: '  ' });
    expect(empty.statusCode).toBe(422);
    expect(empty.body).toContain('<form');
    expect((await post(token, { answer: 'Release 2.0' })).statusCode).toBe(200);
    expect(await questionOf(free.item, free.question)).toMatchObject({ answer: 'Release 2.0', via: 'link' });

    const api = await asked({ question: 'And the date?' });
    const byApi = await call(
      t.app,
      'POST',
      `/work/${api.item}/questions/${api.question}/answer`,
      { answer: 'Monday' },
      as.mia,
    );
    expect(byApi.status, byApi.text).toBe(200);
    expect(byApi.body).toMatchObject({ answered_by: 'mia', via: 'api' });
  });

  it('an expired, tampered or foreign token gets a page, never an answer', async () => {
    const { item, question } = await asked({ question: 'Proceed?', options: ['go', 'stop'] });
    const nowS = Math.floor(clock.now().getTime() / 1000);
    const short = tokens.sign({ question_id: question, person: 'mia', expires_at: nowS + 60 });
    expect((await page(short)).statusCode).toBe(200);
    clock.advance(61_000);
    const expired = await post(short, { option: 'go' });
    expect(expired.statusCode).toBe(410);
    expect(expired.body).toContain('expired');
    expect((await page(short)).statusCode).toBe(410);

    const good = tokens.sign({ question_id: question, person: 'mia' }, clock.now());
    const [payload, mac] = good.split('.') as [string, string];
    const flipped = `${payload}.${mac[0] === 'A' ? 'B' : 'A'}${mac.slice(1)}`;
    const foreign = createLinkTokens(Buffer.from('another desk, another secret, 32+ chars'), 600).sign(
      { question_id: question, person: 'mia' },
      clock.now(),
    );
    for (const bad of [flipped, foreign, 'garbage', `${payload}.`, 'a.b.c']) {
      const refused = await post(bad, { option: 'go' });
      expect(refused.statusCode, bad).toBe(404);
      expect(refused.headers['content-type']).toMatch(/^text\/html/);
      expect(refused.body).toContain('not valid');
      expect((await page(bad)).statusCode).toBe(404);
    }
    expect(await questionOf(item, question)).toMatchObject({ status: 'open' });
  });

  it('a cross-site POST is refused and answers nothing', async () => {
    const { item, question } = await asked({ question: 'Deploy?', options: ['now', 'later'] });
    const token = tokens.sign({ question_id: question, person: 'mia' }, clock.now());
    expect((await post(token, { option: 'now' }, { origin: 'https://evil.example' })).statusCode).toBe(403);
    expect((await post(token, { option: 'now' }, { 'sec-fetch-site': 'cross-site' })).statusCode).toBe(403);
    expect(await questionOf(item, question)).toMatchObject({ status: 'open' });
    // No Origin at all (a non-browser client) is not a cross-site request: the token decides.
    expect((await post(token, { option: 'now' }, {})).statusCode).toBe(200);
  });

  it('a review approved by link, and one returned with a reason', async () => {
    const project = (await call(t.app, 'POST', '/projects', { name: `links-${kind}`, review_required: true }, as.admin))
      .body;
    const reviewOf = async () => {
      const item = await claimed({ project_id: project.id });
      const sent = await call(t.app, 'PATCH', `/work/${item.id}`, { status: 'completed', outcome: 'success' }, as.ada);
      expect(sent.body.status).toBe('blocked');
      const [review] = (await call(t.app, 'GET', `/work/${item.id}/questions`, undefined, as.ada)).body;
      return { item: item.id, review, token: tokens.sign({ question_id: review.id, person: 'mia' }, clock.now()) };
    };
    const first = await reviewOf();
    const shown = await page(first.token);
    expect(shown.body).toContain('value="approve"');
    expect(shown.body).toContain('value="return"');
    expect(shown.body).toContain(`links-${kind}`);
    expect((await post(first.token, { option: 'approve', answer: '' })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', `/work/${first.item}`, undefined, as.admin)).body).toMatchObject({
      status: 'completed',
      outcome: 'success',
    });
    expect(await questionOf(first.item, first.review.id)).toMatchObject({
      option: 'approve',
      via: 'link',
      answered_by: 'mia',
    });

    const second = await reviewOf();
    const noReason = await post(second.token, { option: 'return', answer: '' });
    expect(noReason.statusCode).toBe(422);
    expect(noReason.body).toContain('say why');
    const returned = await post(second.token, { option: 'return', answer: 'Add the changelog.' });
    expect(returned.statusCode).toBe(200);
    expect(await questionOf(second.item, second.review.id)).toMatchObject({
      option: 'return',
      answer: 'Add the changelog.',
      via: 'link',
    });
    expect((await call(t.app, 'GET', `/work/${second.item}`, undefined, as.admin)).body.status).toBe('in_progress');
    // The agent whose work it is cannot pass its own review by a link made out to it.
    const own = await reviewOf();
    const ownToken = tokens.sign({ question_id: own.review.id, person: 'ada' }, clock.now());
    expect((await post(ownToken, { option: 'approve' })).statusCode).toBe(403);
  });

  it('escapes what the item and question hold', async () => {
    const evil = '<script>alert("x")</script> & <b>bold</b>';
    const { question } = await asked(
      { question: evil, options: ['"><script>x</script>', 'fine'] },
      { description: evil },
    );
    const shown = await page(tokens.sign({ question_id: question, person: 'mia' }, clock.now()));
    expect(shown.statusCode).toBe(200);
    expect(shown.body).not.toContain('<script');
    expect(shown.body).not.toContain('<b>');
    expect(shown.body).toContain('&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; &#60;b&#62;');
    expect(shown.body).toContain('value="&#34;&#62;&#60;script&#62;x&#60;/script&#62;"');
  });

  it('a moot question (its item failed) gets the closed page', async () => {
    const { item, question } = await asked({ question: 'Still needed?' });
    const token = tokens.sign({ question_id: question, person: 'mia' }, clock.now());
    const cancelled = await call(t.app, 'PATCH', `/work/${item}`, { status: 'failed', outcome: 'failed' }, as.admin);
    expect(cancelled.status, cancelled.text).toBe(200);
    const shown = await post(token, { answer: 'yes' });
    expect(shown.statusCode).toBe(410);
    expect(shown.body).toContain('No longer waiting');
  });
});
