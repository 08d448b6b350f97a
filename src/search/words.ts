// The words of a text as both indexes see them: runs of letters and digits, lower-cased with
// accents folded. Stop words and the light stemmers of the four languages searched (English,
// German, Spanish, French) widen a query word to the prefixes that its forms share.

const WORD = /[\p{L}\p{N}]+/gu;

export function fold(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

export interface WordAt {
  /** The folded word. */
  word: string;
  start: number;
  end: number;
}

/** The words of `text` with where each stands in it (offsets into `text` itself). */
export function wordsOf(text: string): WordAt[] {
  return [...text.matchAll(WORD)].map((match) => ({
    word: fold(match[0]),
    start: match.index,
    end: match.index + match[0].length,
  }));
}

export function foldedWords(text: string): string[] {
  return (fold(text).match(WORD) ?? []) as string[];
}

const STOP_WORDS = new Set(
  [
    // English
    'a an and are as at be but by for from has have in is it its of on or that the this to was were will with',
    // German
    'der die das den dem des ein eine einer eines einem und oder ist sind zu mit von auf fur im nicht es',
    // Spanish
    'el la los las un una unos unas y o de del en con por para es son que se al lo',
    // French
    'le les une des et ou du au aux est sont pour par dans sur avec ce qui que ne pas',
  ]
    .join(' ')
    .split(' '),
);

export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}

// Suffixes each language's inflection adds, longest first; a word loses the first that leaves
// at least three letters. Light on purpose: the prefix match does the rest.
const SUFFIXES: Readonly<Record<string, readonly string[]>> = {
  english: [
    'ational',
    'ization',
    'fulness',
    'iveness',
    'ations',
    'ation',
    'ments',
    'ment',
    'ings',
    'ing',
    'edly',
    'ies',
    'ied',
    'ers',
    'er',
    'ed',
    'es',
    'ly',
    's',
    'e',
  ],
  german: [
    'ungen',
    'heiten',
    'keiten',
    'ung',
    'heit',
    'keit',
    'lich',
    'isch',
    'ern',
    'em',
    'en',
    'er',
    'es',
    'e',
    's',
    'n',
  ],
  spanish: [
    'aciones',
    'amientos',
    'amiento',
    'mente',
    'idades',
    'idad',
    'ciones',
    'acion',
    'cion',
    'es',
    'os',
    'as',
    'o',
    'a',
    'e',
    's',
  ],
  french: [
    'ations',
    'ation',
    'ements',
    'ement',
    'ites',
    'ite',
    'euses',
    'euse',
    'eux',
    'ions',
    'aux',
    'es',
    'er',
    'ez',
    's',
    'e',
  ],
};

const MIN_STEM = 3;

function stemIn(word: string, suffixes: readonly string[]): string {
  for (const suffix of suffixes) {
    if (word.endsWith(suffix) && word.length - suffix.length >= MIN_STEM) return word.slice(0, -suffix.length);
  }
  return word;
}

/**
 * The prefix a folded word is searched by: its shortest stem in the four languages (every stem
 * is a prefix of the word, so the shortest covers the others). Words with digits are
 * matched whole by the parser, never through here.
 */
export function stemPrefix(word: string): string {
  return Object.values(SUFFIXES)
    .map((suffixes) => stemIn(word, suffixes))
    .reduce((shortest, stem) => (stem.length < shortest.length ? stem : shortest), word);
}
