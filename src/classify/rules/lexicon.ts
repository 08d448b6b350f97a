// The words the offline classifier knows, one lexicon per language (lexicon-en.ts, …), and their compilation
// into regular expressions, once, when the module loads. Phrases are small regular-expression sources of
// ours, their quantifiers bounded ({0,3}) and never nested, so none can backtrack catastrophically.

import type { Lexicon } from './lexicon-types.js';
import { ENGLISH } from './lexicon-en.js';
import { GERMAN } from './lexicon-de.js';
import { SPANISH } from './lexicon-es.js';
import { FRENCH } from './lexicon-fr.js';

import { LANGUAGES, PHRASE_SIGNALS, type Language, type PhraseSignal } from './lexicon-types.js';

export { LANGUAGES, PHRASE_SIGNALS, type Language, type PhraseSignal };

export interface CompiledLexicon {
  language: Language;
  stopwords: ReadonlySet<string>;
  letters: RegExp;
  phrases: Readonly<Record<PhraseSignal, RegExp | null>>;
  request: RegExp;
  notRequest: RegExp;
  reader: RegExp;
  login: RegExp;
  secret: RegExp;
  ask: RegExp;
  deadline: RegExp;
  bareDeadline: RegExp;
  approval: RegExp;
  overdue: RegExp;
}

const LEXICONS: Readonly<Record<Language, Lexicon>> = { en: ENGLISH, de: GERMAN, es: SPANISH, fr: FRENCH };

const EDGE_AFTER = '(?![\\p{L}\\p{N}])';
const WORD_CHAR = /[\p{L}\p{N}]/u;
const NOTHING = /(?!)/gu;

/**
 * One alternation of phrases that must end at a word edge; use it through findWords/hasWords, which check the
 * edge before in code: `\b` knows only ASCII (no edge before "é"), and a leading Unicode lookbehind stops V8
 * from skipping ahead to the phrases' first letters, which made every scan many times slower.
 */
export function words(sources: readonly string[]): RegExp {
  // An empty list must match nothing, not the empty string.
  if (sources.length === 0) return NOTHING;
  return new RegExp(`(?:${sources.join('|')})${EDGE_AFTER}`, 'giu');
}

/** The matches of `pattern` that start at a word edge, at most `limit` of them. */
export function findWords(pattern: RegExp, text: string, limit = Number.POSITIVE_INFINITY): string[] {
  const found: string[] = [];
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null && found.length < limit; match = pattern.exec(text)) {
    if (match.index > 0 && WORD_CHAR.test(text[match.index - 1]!)) {
      // Inside a word: try again one character on, so an overlapping match is not skipped.
      pattern.lastIndex = match.index + 1;
      continue;
    }
    found.push(match[0]);
    if (match[0] === '') pattern.lastIndex += 1;
  }
  return found;
}

export function hasWords(pattern: RegExp, text: string): boolean {
  return findWords(pattern, text, 1).length > 0;
}

function compile(lexicon: Lexicon): CompiledLexicon {
  const phrases = {} as Record<PhraseSignal, RegExp | null>;
  for (const signal of PHRASE_SIGNALS) {
    const list = lexicon.phrases[signal] ?? [];
    phrases[signal] = list.length > 0 ? words(list) : null;
  }
  // "Thursday noon", "Freitag, den 27. November um 12 Uhr": a time of day may follow any date.
  const timeAfter = `(?:,?\\s(?:${lexicon.deadline.times.join('|')}))?`;
  return {
    language: lexicon.language,
    stopwords: new Set(lexicon.stopwords),
    letters: lexicon.letters === '' ? NOTHING : new RegExp(`[${lexicon.letters}]`, 'giu'),
    phrases,
    request: words(lexicon.requests),
    notRequest: words(lexicon.not_requests),
    reader: words(lexicon.reader),
    login: words(lexicon.credentials.login),
    secret: words(lexicon.credentials.secret),
    ask: words(lexicon.credentials.ask),
    deadline: words([
      `(?:${lexicon.deadline.markers.join('|')})\\s*:?\\s*(?:${lexicon.deadline.dates.join('|')})${timeAfter}`,
    ]),
    bareDeadline: words([`(?:${lexicon.deadline.bare.join('|')})${timeAfter}`]),
    approval: words(lexicon.approvals),
    overdue: words(lexicon.overdue),
  };
}

export const COMPILED: Readonly<Record<Language, CompiledLexicon>> = Object.fromEntries(
  LANGUAGES.map((language) => [language, compile(LEXICONS[language])]),
) as Record<Language, CompiledLexicon>;
