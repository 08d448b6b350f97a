// The filters of a search query (`status:blocked`, `project:"Big Launch"`), found for display
// only: the service parses the query; the page shows its filters as chips and removes them.

export interface QueryToken {
  text: string;
  start: number;
  end: number;
}

export interface QueryFilter extends QueryToken {
  key: string;
  value: string;
}

const FILTER = /^-?([a-z]+):("([^"]*)"?|\S+)$/i;

/** Splits a query into whitespace-separated tokens; a quoted run keeps its spaces. */
export function tokens(q: string): QueryToken[] {
  const out: QueryToken[] = [];
  const re = /(?:[^\s"]|"[^"]*"?)+/g;
  for (let m = re.exec(q); m !== null; m = re.exec(q)) {
    out.push({ text: m[0], start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/** The `word:value` tokens of a query, in order. */
export function filters(q: string): QueryFilter[] {
  const out: QueryFilter[] = [];
  for (const t of tokens(q)) {
    const m = FILTER.exec(t.text);
    if (!m) continue;
    out.push({ ...t, key: (m[1] ?? '').toLowerCase(), value: m[3] ?? m[2] ?? '' });
  }
  return out;
}

/** The query without one token, its spaces tidied. */
export function withoutToken(q: string, t: QueryToken): string {
  return `${q.slice(0, t.start)} ${q.slice(t.end)}`.replace(/\s+/g, ' ').trim();
}

export interface Passage {
  text: string;
  marked: boolean;
}

/**
 * The pieces of a highlight the service escaped and marked, as plain text: only `<mark>` and
 * `</mark>` are read as tags, every other character entity decoded to its text, so the page
 * renders text nodes and never HTML.
 */
export function passage(html: string): Passage[] {
  const out: Passage[] = [];
  let marked = false;
  for (const part of html.split(/(<\/?mark>)/)) {
    if (part === '<mark>') marked = true;
    else if (part === '</mark>') marked = false;
    else if (part !== '') out.push({ text: unescape(part), marked });
  }
  return out;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function unescape(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (all, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : all;
    }
    return ENTITIES[e.toLowerCase()] ?? all;
  });
}
