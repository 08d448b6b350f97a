import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';

// A comment link's title is shown as its text: a title that is itself an address of another host
// (or hides one behind a user name) would show one place and open another, so it is a 422 that
// names the title; words, and addresses of the host the link opens, stay allowed. Both stores.

describe.each(await storesUnderTest())('comment link titles on %s', (kind) => {
  let t: TestApp;
  let item: string;

  beforeAll(async () => {
    t = await startWorkApp(kind);
    const created = await call(t.app, 'POST', '/work', { type: 'links', description: 'where links are posted' });
    expect(created.status, created.text).toBe(201);
    item = created.body.id;
  });
  afterAll(() => t?.close());

  const comment = (url: string, title: string) =>
    call(t.app, 'POST', `/work/${item}/comments`, { body: 'see the link', links: [{ url, title }] });

  it('refuses a title that reads as an address of another host', async () => {
    const misleading: Array<[string, string]> = [
      ['https://evil.example/login', 'https://paypal.com/login'],
      ['https://evil.example/', 'paypal.com'],
      ['https://evil.example/', 'www.paypal.com/signin'],
      ['https://evil.example/', 'HTTP://PAYPAL.COM'],
      ['https://evil.example/', 'github.com:443/org/repo'],
      // The look-alike (Cyrillic а) opens another host than the one it imitates.
      ['https://xn--pypal-4ve.com/', 'paypal.com'],
      ['https://paypal.com/', 'pаypal.com'],
      // A user name before the host: the text shows paypal.com, the link opens evil.example.
      ['https://paypal.com@evil.example/', 'https://paypal.com@evil.example/'],
    ];
    for (const [url, title] of misleading) {
      const refused = await comment(url, title);
      expect(refused.status, `${title} → ${url}: ${refused.text}`).toBe(422);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(refused.body.errors, title).toEqual([{ field: 'links/0/title', message: expect.any(String) }]);
    }
  });

  it('keeps words, file names, and addresses of the host the link opens', async () => {
    const fine: Array<[string, string]> = [
      ['https://github.com/org/repo/pull/7', 'PR #7: fix the parser'],
      ['https://github.com/org/repo/pull/7', 'https://github.com/org/repo/pull/7'],
      ['https://www.github.com/org/repo', 'github.com/org/repo'],
      ['https://github.com/org/repo/blob/main/README.md', 'README.md'],
      ['https://example.com/v1.2', 'release v1.2'],
      ['https://example.com/', 'see example.com for details'],
    ];
    for (const [url, title] of fine) {
      const kept = await comment(url, title);
      expect(kept.status, `${title} → ${url}: ${kept.text}`).toBe(201);
      expect(kept.body.links).toEqual([{ url, title }]);
    }
  });
});
