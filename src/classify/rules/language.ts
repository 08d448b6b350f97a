// Which languages an email is written in, so the classifier reads it with the right lexicons ("sale" is a sale
// in English, not the Spanish "leaves"). Cheap on purpose: one pass over the opening of the text, no model.

import { COMPILED, LANGUAGES, type Language } from './lexicon.js';

/** Enough text to tell the language; the rest of a long email changes nothing. */
const SAMPLE_CHARS = 3_000;
/** A second language counts when it scores this share of the first: bilingual mail, English footers. */
const SECOND_SHARE = 0.5;
const SECOND_MIN = 3;
/** Letters weigh less than words, and a long run of them (a name, a quote) must not decide alone. */
const LETTERS_CAP = 8;
const WORD = /[\p{L}']+/gu;

/** Told from short function words ("the", "und", "los", "vous") and letters only some use ("ß", "ñ", "ç"). */
export function detectLanguages(text: string): Language[] {
  const sample = text.slice(0, SAMPLE_CHARS).toLowerCase();
  const scores: Record<Language, number> = { en: 0, de: 0, es: 0, fr: 0 };
  for (const match of sample.matchAll(WORD)) {
    const word = match[0].replace(/^'+|'+$/g, '');
    for (const language of LANGUAGES) if (COMPILED[language].stopwords.has(word)) scores[language] += 1;
  }
  for (const language of LANGUAGES) {
    const letters = sample.match(COMPILED[language].letters)?.length ?? 0;
    scores[language] += Math.min(letters, LETTERS_CAP) / 2;
  }
  // Ties go to English, first in LANGUAGES; an email with no words at all is read as English.
  const ranked = [...LANGUAGES].sort((a, b) => scores[b] - scores[a] || LANGUAGES.indexOf(a) - LANGUAGES.indexOf(b));
  const first = ranked[0]!;
  const top = scores[first];
  return [first, ...ranked.slice(1).filter((language) => scores[language] >= Math.max(SECOND_MIN, top * SECOND_SHARE))];
}
