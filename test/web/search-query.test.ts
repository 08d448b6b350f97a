import { describe, expect, it } from 'vitest';
import { filters, passage, withoutToken } from '../../web/src/lib/search-query.js';

// The Search page's reading of a query (its filters, as chips) and of the service's highlight
// (text and <mark> only), without a browser.

describe('filters of a query', () => {
  it('finds word:value tokens, quoted values and exclusions, and leaves words alone', () => {
    const q = 'invoice status:blocked project:"Big Launch" -type:spam created:>2026-11-01 "a: b"';
    expect(filters(q).map((f) => [f.key, f.value, f.text])).toEqual([
      ['status', 'blocked', 'status:blocked'],
      ['project', 'Big Launch', 'project:"Big Launch"'],
      ['type', 'spam', '-type:spam'],
      ['created', '>2026-11-01', 'created:>2026-11-01'],
    ]);
  });

  it('removes one token and tidies the spaces', () => {
    const q = 'invoice  project:"Big Launch" acme';
    const [project] = filters(q);
    expect(withoutToken(q, project!)).toBe('invoice acme');
  });
});

describe('a highlight', () => {
  it('reads only <mark> as a tag and shows every escaped character as text', () => {
    const html = 'Pay &lt;img src=x onerror=alert(1)&gt; <mark>now</mark> &amp; &quot;then&#39;';
    expect(passage(html)).toEqual([
      { text: 'Pay <img src=x onerror=alert(1)> ', marked: false },
      { text: 'now', marked: true },
      { text: ' & "then\'', marked: false },
    ]);
  });

  it('keeps an unknown entity as written', () => {
    expect(passage('a &bogus; b')).toEqual([{ text: 'a &bogus; b', marked: false }]);
  });
});
