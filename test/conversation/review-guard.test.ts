import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { ADMIN_SECRET, AUTH_ENV, bearer, mintToken } from '../support/auth.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';

// A review an agent cannot switch off, with tokens on both stores: the holder may not lower its
// item's review (review_required false or null, a move out of a review project), an agent may not
// submit (or plan) below its project's setting, and whoever did the work never approves it. A
// person who does not hold the item may do each of these.

describe.each(await storesUnderTest())('the review guard on %s', (kind) => {
  let t: TestApp;
  const as = {} as Record<'admin' | 'ada' | 'mia' | 'max', Record<string, string>>;
  let reviewed: string;
  let alsoReviewed: string;
  let open: string;

  const project = async (name: string, review_required: boolean) => {
    const made = await call(t.app, 'POST', '/projects', { name, review_required }, as.admin);
    expect(made.status, made.text).toBe(201);
    return made.body.id as string;
  };

  beforeAll(async () => {
    t = await startWorkApp(kind, { ...AUTH_ENV });
    as.admin = bearer(ADMIN_SECRET);
    as.ada = bearer((await mintToken(t.app, { role: 'agent', name: 'ada-token', agent: 'ada' })).token);
    // A member who also takes work under its own name, and one who does not.
    as.mia = bearer((await mintToken(t.app, { role: 'member', name: 'mia', agent: 'mia' })).token);
    as.max = bearer((await mintToken(t.app, { role: 'member', name: 'max' })).token);
    reviewed = await project(`reviewed-${kind}`, true);
    alsoReviewed = await project(`also-reviewed-${kind}`, true);
    open = await project(`open-${kind}`, false);
  });
  afterAll(() => t?.close());

  const get = async (id: string) => (await call(t.app, 'GET', `/work/${id}`, undefined, as.admin)).body;
  const patch = (id: string, body: unknown, who: Record<string, string>) =>
    call(t.app, 'PATCH', `/work/${id}`, body, who);
  /** A fresh item of its own type, claimed by `who`'s agent. */
  const claimed = async (extra: Record<string, unknown>, who = as.ada) => {
    const type = `guard-${Math.random().toString(36).slice(2, 8)}`;
    const submitted = await call(
      t.app,
      'POST',
      '/work',
      { type, description: 'tidy the changelog', ...extra },
      as.admin,
    );
    expect(submitted.status, submitted.text).toBe(201);
    const claim = await call(t.app, 'POST', '/work/claim', { types: [type] }, who);
    expect(claim.status, claim.text).toBe(200);
    return claim.body.id as string;
  };
  const refused = (response: { status: number; headers: any; body: any }, words: RegExp) => {
    expect(response.status, JSON.stringify(response.body)).toBe(403);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body.detail).toMatch(words);
  };
  const complete = (id: string, who = as.ada) => patch(id, { status: 'completed', outcome: 'success' }, who);

  it('the holder may not lower its review: review_required false, null, or a move out of the review project', async () => {
    const id = await claimed({ project_id: reviewed });
    refused(await patch(id, { review_required: false }, as.ada), /may not lower an item's review.*only a person/);
    refused(await patch(id, { project_id: null }, as.ada), /may not lower/);
    refused(await patch(id, { project_id: open }, as.ada), /may not lower/);
    // Raising it, or moving between two review projects, lowers nothing.
    expect((await patch(id, { review_required: true }, as.ada)).status).toBe(200);
    expect((await patch(id, { review_required: null, project_id: alsoReviewed }, as.ada)).status).toBe(200);
    const flagged = await claimed({ review_required: true });
    refused(await patch(flagged, { review_required: null }, as.ada), /may not lower/);
    refused(await patch(flagged, { review_required: false, notes: 'done' }, as.ada), /may not lower/);

    // Nothing of the refused changes landed: the completion still waits for a person.
    for (const item of [id, flagged]) {
      const done = await complete(item);
      expect(done.status, done.text).toBe(200);
      expect(done.body).toMatchObject({ status: 'blocked' });
    }
    expect(await get(id)).toMatchObject({ project_id: alsoReviewed, review_required: null });
  });

  it('a person who does not hold the item may lower its review; the holder then completes it', async () => {
    const id = await claimed({ project_id: reviewed });
    const lowered = await patch(id, { project_id: open }, as.admin);
    expect(lowered.status, lowered.text).toBe(200);
    const flagged = await claimed({ review_required: true });
    expect((await patch(flagged, { review_required: false }, as.admin)).status).toBe(200);
    for (const item of [id, flagged]) expect((await complete(item)).body).toMatchObject({ status: 'completed' });
  });

  it("an agent may not submit below its project's review, nor plan steps below it; a member may", async () => {
    const type = `guard-submit-${kind}`;
    refused(
      await call(
        t.app,
        'POST',
        '/work',
        { type, description: 'x', project_id: reviewed, review_required: false },
        as.ada,
      ),
      /agent token may not submit with review_required false into a project that requires review/,
    );
    expect((await call(t.app, 'POST', '/work', { type, description: 'x', project_id: reviewed }, as.ada)).status).toBe(
      201,
    );
    expect(
      (await call(t.app, 'POST', '/work', { type, description: 'x', project_id: open, review_required: false }, as.ada))
        .status,
    ).toBe(201);
    expect(
      (
        await call(
          t.app,
          'POST',
          '/work',
          { type, description: 'x', project_id: reviewed, review_required: false },
          as.max,
        )
      ).status,
    ).toBe(201);

    const before = (await call(t.app, 'GET', `/work?type=${type}&limit=100`, undefined, as.admin)).body.length;
    const plan = {
      parent: { type, description: 'release', project_id: reviewed },
      steps: [
        { key: 'notes', type, description: 'notes' },
        { key: 'tag', type, description: 'tag', review_required: false, depends_on_keys: ['notes'] },
      ],
    };
    refused(await call(t.app, 'POST', '/work/plans', plan, as.ada), /may not submit with review_required false/);
    // All or nothing: the refused plan wrote no item.
    expect((await call(t.app, 'GET', `/work?type=${type}&limit=100`, undefined, as.admin)).body.length).toBe(before);
    expect((await call(t.app, 'POST', '/work/plans', plan, as.max)).status).toBe(201);
  });

  it('the holder is never its own reviewer: a member approves or returns only the work of another', async () => {
    const id = await claimed({ project_id: reviewed }, as.mia);
    // A member holding an item is held to the guard as an agent is.
    refused(await patch(id, { review_required: false }, as.mia), /holding an item may not lower its review/);
    const sent = await complete(id, as.mia);
    expect(sent.body).toMatchObject({ status: 'blocked' });
    const review = (await call(t.app, 'GET', `/work/${id}/questions`, undefined, as.admin)).body.find(
      (q: any) => q.kind === 'review',
    );
    expect(review).toMatchObject({ status: 'open', asked_by: 'mia' });
    const answer = (body: unknown, who: Record<string, string>) =>
      call(t.app, 'POST', `/work/${id}/questions/${review.id}/answer`, body, who);
    refused(await answer({ option: 'approve' }, as.mia), /work by mia, which is you: another person reviews it/);
    refused(await answer({ option: 'return', answer: 'again' }, as.mia), /which is you/);
    expect(await get(id)).toMatchObject({ status: 'blocked' });
    const approved = await answer({ option: 'approve' }, as.max);
    expect(approved.status, approved.text).toBe(200);
    expect(await get(id)).toMatchObject({ status: 'completed', outcome: 'success' });
  });
});
