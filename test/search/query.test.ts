import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../src/search/query.js';
import { ValidationError } from '../../src/shared/errors.js';
import { fold, stemPrefix } from '../../src/search/words.js';

// The query language without a database: what each piece a user types becomes, and what is refused.

const refusal = (q: string): string => {
  try {
    parseQuery(q);
  } catch (error) {
    if (error instanceof ValidationError) return error.message;
    throw error;
  }
  throw new Error(`${JSON.stringify(q)} was not refused`);
};

describe('the search query', () => {
  it('folds accents and case, and stems in four languages to one prefix', () => {
    expect(fold('Müller ÉCOLE')).toBe('muller ecole');
    expect(stemPrefix('invoices')).toBe('invoic');
    expect(stemPrefix('rechnungen')).toBe('rechn');
    expect(stemPrefix('facturas')).toBe('factur');
    expect(stemPrefix('contrats')).toBe('contrat');
    expect(stemPrefix('bug')).toBe('bug');
  });

  it('parses words, phrases, exclusions, prefixes and every filter', () => {
    const parsed = parseQuery(
      'Invoices "Server Rack" -sqlite kuber* invoice-7731 7731 status:in-progress agent:ada type:billing ' +
        'project:"Big Launch" by:mia is:open is:needs-me created:>2026-11-01 created:<=2026-11-30 priority:<=2',
    );
    expect(parsed.include).toEqual([
      { kind: 'word', word: 'invoices', prefix: 'invoic' },
      { kind: 'phrase', words: ['server', 'rack'] },
      { kind: 'prefix', prefix: 'kuber' },
      { kind: 'phrase', words: ['invoice', '7731'] },
      { kind: 'word', word: '7731', prefix: null },
    ]);
    expect(parsed.exclude).toEqual([{ kind: 'word', word: 'sqlite', prefix: 'sql' }]);
    expect(parsed.filters).toEqual({
      statuses: ['in_progress'],
      agents: ['ada'],
      types: ['billing'],
      projects: ['Big Launch'],
      created_by: ['mia'],
      priorities: [1, 2],
      is: ['open', 'needs-me'],
      created_from: '2026-11-02T00:00:00.000Z',
      created_before: '2026-12-01T00:00:00.000Z',
    });
  });

  it('treats operators a user types as words or punctuation', () => {
    expect(parseQuery('invoice OR refund NEAR(a)').include.map((t) => (t.kind === 'word' ? t.word : t.kind))).toEqual([
      'invoice',
      'refund',
      'phrase',
    ]);
    expect(parseQuery('"server rack').include).toEqual([{ kind: 'phrase', words: ['server', 'rack'] }]);
    expect(parseQuery('col:description ^x {bee}').include.map((t) => t.kind)).toEqual(['phrase', 'word', 'word']);
    expect(parseQuery('the invoice').include).toEqual([{ kind: 'word', word: 'invoice', prefix: 'invoic' }]);
  });

  it('takes a bare id, whole or its first 8 hex digits, as an id and as the words it is', () => {
    const id = '3F2A9C1E-1042-4ABC-8DEF-0123456789AB';
    const hex = '3f2a9c1e10424abc8def0123456789ab';
    const words = ['3f2a9c1e', '1042', '4abc', '8def', '0123456789ab'];
    expect(parseQuery(id).include).toEqual([{ kind: 'id', hex, text: { kind: 'phrase', words } }]);
    expect(parseQuery(hex).include).toEqual([{ kind: 'id', hex, text: { kind: 'word', word: hex, prefix: null } }]);
    expect(parseQuery('3f2a9c1e -deadbeef').include).toEqual([
      { kind: 'id', hex: '3f2a9c1e', text: { kind: 'word', word: '3f2a9c1e', prefix: null } },
    ]);
    expect(parseQuery('x -deadbeef').exclude).toEqual([
      { kind: 'id', hex: 'deadbeef', text: { kind: 'word', word: 'deadbeef', prefix: 'deadbeef' } },
    ]);
    // A group of an id, a prefix or a longer run of hex digits is a word, never an id.
    expect(parseQuery('1042 3f2a9c1e* 3f2a9c1e1').include).toEqual([
      { kind: 'word', word: '1042', prefix: null },
      { kind: 'prefix', prefix: '3f2a9c1e' },
      { kind: 'word', word: '3f2a9c1e1', prefix: null },
    ]);
  });

  it('refuses what it cannot search, naming why', () => {
    expect(refusal('the and')).toMatch(/common words/);
    expect(refusal('*')).toMatch(/no word or filter/);
    expect(refusal('"')).toMatch(/no word or filter/);
    expect(refusal('-invoice')).toMatch(/excludes words/);
    expect(refusal('a\u0000b')).toMatch(/NUL/);
    expect(refusal('x'.repeat(501))).toMatch(/longer than 500/);
    expect(refusal(Array.from({ length: 21 }, (_, i) => `w${i}x`).join(' '))).toMatch(/more than 20/);
    expect(refusal('status:lost')).toMatch(/status/);
    expect(refusal('is:mine')).toMatch(/is:open/);
    expect(refusal('created:soon')).toMatch(/created/);
    expect(refusal('priority:0')).toMatch(/priority/);
    expect(refusal('invoice -status:queued')).toMatch(/cannot be excluded/);
  });
});
