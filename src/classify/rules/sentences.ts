// Sentences of an email, in its language, from ICU's sentence rules through `Intl.Segmenter`. Node's ICU applies
// none of CLDR's abbreviation suppressions, so it breaks after every "z. B.", "Mr." and German ordinal ("den
// 28. | November"); each language's list below says where a break is none, and the pieces are joined again.

import type { Language } from './lexicon.js';

/**
 * Words written with a dot that never end a sentence in practice, lower-case, without the dot.
 * Months are here in their short forms ("Dec. 3", "3 déc.", "nov. 28"), titles ("Mr.", "Sr.",
 * "Mme."), and Latin and local shorthands ("e.g.", "z. B.", "p. ej.", "cf.").
 */
const ABBREVIATIONS: Readonly<Record<Language, ReadonlySet<string>>> = {
  en: new Set([
    'mr',
    'mrs',
    'ms',
    'dr',
    'prof',
    'st',
    'no',
    'vs',
    'etc',
    'e.g',
    'i.e',
    'approx',
    'dept',
    'inc',
    'ltd',
    'co',
    'jr',
    'sr',
    'jan',
    'feb',
    'mar',
    'apr',
    'jun',
    'jul',
    'aug',
    'sep',
    'sept',
    'oct',
    'nov',
    'dec',
    'mon',
    'tue',
    'tues',
    'wed',
    'thu',
    'thur',
    'thurs',
    'fri',
    'sat',
    'sun',
    'a.m',
    'p.m',
  ]),
  de: new Set([
    'z',
    'b',
    'z.b',
    'd.h',
    'u.a',
    'bzw',
    'ca',
    'evtl',
    'ggf',
    'inkl',
    'zzgl',
    'nr',
    'str',
    'dr',
    'prof',
    'hr',
    'fr',
    'usw',
    'vgl',
    'abs',
    'tel',
    'mo',
    'di',
    'mi',
    'do',
    'sa',
    'so',
    'jan',
    'feb',
    'mär',
    'apr',
    'jun',
    'jul',
    'aug',
    'sep',
    'sept',
    'okt',
    'nov',
    'dez',
    'bspw',
    'gem',
    'lt',
    'i.a',
    'i.v',
    'u.u',
    'max',
    'min',
  ]),
  es: new Set([
    'sr',
    'sra',
    'srta',
    'dr',
    'dra',
    'd',
    'dña',
    'ud',
    'uds',
    'p.ej',
    'ej',
    'etc',
    'núm',
    'n',
    'pág',
    'tel',
    'aprox',
    'avda',
    'c',
    'ctra',
    'ene',
    'feb',
    'mar',
    'abr',
    'may',
    'jun',
    'jul',
    'ago',
    'sep',
    'sept',
    'oct',
    'nov',
    'dic',
    'lun',
    'mié',
    'jue',
    'vie',
    'sáb',
    'dom',
    'a.m',
    'p.m',
  ]),
  fr: new Set([
    'm',
    'mm',
    'mme',
    'mmes',
    'mlle',
    'dr',
    'me',
    'pr',
    'cf',
    'etc',
    'env',
    'ex',
    'p.ex',
    'n°',
    'no',
    'tél',
    'bd',
    'av',
    'janv',
    'févr',
    'fév',
    'avr',
    'juil',
    'sept',
    'oct',
    'nov',
    'déc',
    'lun',
    'mar',
    'mer',
    'jeu',
    'ven',
    'sam',
    'dim',
  ]),
};

/** The word (letters, inner dots) right before a closing dot, lower-cased: "z.B." → "z.b". */
const LAST_WORD_BEFORE_DOT = /(?:^|[\s(])([\p{L}°]+(?:\.[\p{L}]+)*)\.\s*$/u;
/** A German ordinal or a day before a month: "den 28.", "den 2.", "am 15.12." (without year). */
const ORDINAL_AT_END = /(?:^|\s)\d{1,2}\.(?:\d{1,2}\.)?\s*$/u;
/** What follows a break that cannot open a sentence: a lower-case word, a digit, a closing mark. */
const CONTINUES = /^[\p{Ll}\p{N},;:)\]]/u;

/** Longer than any abbreviation or ordinal with the space around it. */
const TAIL_CHARS = 24;

const segmenters = new Map<Language, Intl.Segmenter>();

function segmenterFor(language: Language): Intl.Segmenter {
  let segmenter = segmenters.get(language);
  if (segmenter === undefined) {
    segmenter = new Intl.Segmenter(language, { granularity: 'sentence' });
    segmenters.set(language, segmenter);
  }
  return segmenter;
}

/** Whether ICU's break after `piece` (and before `next`) falls inside a sentence. */
function isFalseBreak(current: string, next: string, language: Language): boolean {
  if (CONTINUES.test(next)) return true;
  // Only the end of the sentence so far matters; reading all of it at every break would be quadratic.
  const piece = current.slice(-TAIL_CHARS);
  const word = LAST_WORD_BEFORE_DOT.exec(piece)?.[1]?.toLowerCase();
  if (word !== undefined) {
    if (ABBREVIATIONS[language].has(word)) return true;
    // A single capital with a dot is an initial ("J. Smith", "M. Dupont"), in every language.
    if (word.length === 1 && /\p{Lu}/u.test(LAST_WORD_BEFORE_DOT.exec(piece)![1]!)) return true;
  }
  // German writes ordinals and dates with a dot ("der 2. Bauabschnitt", "bis zum 3. Dezember").
  return language === 'de' && ORDINAL_AT_END.test(piece);
}

/** The sentences of one line: ICU's breaks, minus those that fall after an abbreviation or ordinal. */
function splitLine(line: string, language: Language): string[] {
  const sentences: string[] = [];
  let current = '';
  for (const { segment } of segmenterFor(language).segment(line)) {
    if (current !== '' && !isFalseBreak(current, segment, language)) {
      sentences.push(current.trim());
      current = '';
    }
    current += segment;
  }
  if (current.trim() !== '') sentences.push(current.trim());
  return sentences;
}

/**
 * Sentences with at least one letter, line by line, in the email's main language. Lines stay separate: in mail
 * a line break ends a greeting, a list item or a signature.
 */
export function splitSentences(text: string, language: Language = 'en'): string[] {
  const sentences: string[] = [];
  for (const line of text.split(/\n+/)) {
    const trimmed = line.trim();
    if (!/\p{L}/u.test(trimmed)) continue;
    for (const sentence of splitLine(trimmed, language)) if (/\p{L}/u.test(sentence)) sentences.push(sentence);
  }
  return sentences;
}
