// Bodies built to make a careless rule of the offline classifier backtrack or loop: read by
// `npm run bench:rules` (timed) and test/classify/rules-pathological.test.ts (answered validly).

export const PATHOLOGICAL_BODIES: ReadonlyArray<readonly [string, string]> = [
  ['one 6,000-letter word', 'a'.repeat(6_000)],
  ['the same request word over and over', 'please '.repeat(900)],
  ['deadline markers without dates', 'bis spätestens zum '.repeat(320)],
  ['links without end', 'https://'.repeat(700) + 'www.'.repeat(300)],
  ['near-phrases that never complete', 'hat Sie in der '.repeat(400)],
  ['questions and inverted marks', '¿¿¿ ??? ¡¡¡ '.repeat(500)],
  ['digits and spaces that never name an amount', '1 2 3 '.repeat(1_000)],
  ['letters that nearly spell brands in a link', `https://${'paypa1-micros0ft-'.repeat(15)}.example/ `.repeat(25)],
  ['abbreviations and ordinals without end', 'z. B. den 2. Mr. Dec. 3. '.repeat(240)],
  ['dates and times back to back', 'by Friday, December 4 at 3pm '.repeat(200)],
];
