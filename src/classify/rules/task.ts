// The task a person would write for an email that needs action: the request itself, in the email's language,
// without greeting, at most TASK_MAX characters (describeTask, clip).

import type { Language } from './lexicon.js';

/** Cut only between words, never inside a number or a date, with an ellipsis (clip). */
export const TASK_MAX = 120;

interface Phrasing {
  reply: (who: string) => string;
  chooseTime: string;
  answerInvitation: string;
  pay: string;
  followUp: string;
  /** Politeness before an instruction: what is left is the instruction. */
  polite: RegExp;
  /** The sender speaking of themselves: the request cannot lose its subject. */
  firstPerson: RegExp;
  /** Words a cut text must not end on: articles, prepositions, conjunctions. */
  dangling: ReadonlySet<string>;
  /** Names of months and weekdays, which belong to the date around them. */
  dateWords: RegExp;
}

const PHRASING: Readonly<Record<Language, Phrasing>> = {
  en: {
    reply: (who) => `Reply to ${who}: `,
    chooseTime: 'Choose a time for',
    answerInvitation: 'Respond to the meeting invitation',
    pay: 'Pay the amount due',
    followUp: 'Follow up on',
    polite: /^(?:please|pls|kindly)[,:]?\s+/i,
    firstPerson: /(?<![\p{L}'])(?:me|my|mine|us|our|ours|i)(?![\p{L}'])/iu,
    dangling: new Set([
      'the',
      'a',
      'an',
      'and',
      'or',
      'of',
      'to',
      'for',
      'by',
      'with',
      'that',
      'which',
      'in',
      'on',
      'at',
      'from',
      'as',
      'so',
      'but',
      'before',
      'until',
      'is',
      'are',
      'your',
      'their',
      'this',
    ]),
    dateWords:
      /^(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|(?:mon|tues|wednes|thurs|fri|satur|sun)day)\.?$/i,
  },
  de: {
    reply: (who) => `Antworten an ${who}: `,
    chooseTime: 'Termin abstimmen',
    answerInvitation: 'Auf die Einladung antworten',
    pay: 'Offenen Betrag bezahlen',
    followUp: 'Nachfassen',
    polite: /^bitte[,:]?\s+/i,
    firstPerson: /(?<![\p{L}])(?:mir|mich|uns|unser\p{L}*|ich|mein\p{L}*)(?![\p{L}])/iu,
    dangling: new Set([
      'der',
      'die',
      'das',
      'den',
      'dem',
      'des',
      'ein',
      'eine',
      'einen',
      'und',
      'oder',
      'für',
      'mit',
      'bis',
      'zum',
      'zur',
      'am',
      'im',
      'von',
      'vom',
      'an',
      'auf',
      'in',
      'ob',
      'dass',
      'spätestens',
      'ihre',
      'deine',
      'sie',
    ]),
    dateWords:
      /^(?:januar|jänner|februar|märz|april|mai|juni|juli|august|september|oktober|november|dezember|(?:jan|feb|apr|aug|sept?|okt|nov|dez)\.|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)$/i,
  },
  es: {
    reply: (who) => `Responder a ${who}: `,
    chooseTime: 'Elegir una hora para',
    answerInvitation: 'Responder a la convocatoria',
    pay: 'Pagar el importe pendiente',
    followUp: 'Hacer seguimiento de',
    polite: /^(?:por favor|le ruego que|te ruego que)[,:]?\s+/i,
    firstPerson: /(?<![\p{L}])(?:me|mí|mi|mis|nos|nuestr[oa]s?|yo|conmigo)(?![\p{L}])/iu,
    dangling: new Set([
      'el',
      'la',
      'los',
      'las',
      'un',
      'una',
      'de',
      'del',
      'y',
      'o',
      'para',
      'con',
      'a',
      'al',
      'en',
      'que',
      'por',
      'antes',
      'hasta',
      'su',
      'tu',
      'así',
    ]),
    dateWords:
      /^(?:enero|febrero|marzo|abril|mayo|junio|julio|agosto|se[pt]tiembre|octubre|noviembre|diciembre|(?:ene|feb|abr|ago|sept?|oct|nov|dic)\.|lunes|martes|miércoles|jueves|viernes|sábado|domingo)$/i,
  },
  fr: {
    reply: (who) => `Répondre à ${who} : `,
    chooseTime: 'Choisir un créneau pour',
    answerInvitation: "Répondre à l'invitation",
    pay: 'Régler le montant dû',
    followUp: 'Assurer le suivi de',
    polite: /^(?:merci de|veuillez|je vous remercie de|je te remercie de)\s+/i,
    firstPerson: /(?<![\p{L}])(?:me|m'|moi|mon|ma|mes|nous|notre|nos|je|j')(?![\p{L}])/iu,
    dangling: new Set([
      'le',
      'la',
      'les',
      "l'",
      'un',
      'une',
      'de',
      'du',
      'des',
      "d'",
      'et',
      'ou',
      'pour',
      'avec',
      'à',
      'au',
      'aux',
      'en',
      'que',
      'qui',
      'avant',
      "jusqu'au",
      'par',
      'sur',
      'dans',
      'votre',
      'ton',
      'ta',
      'vos',
      'tes',
    ]),
    dateWords:
      /^(?:janvier|février|mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre|(?:janv|févr|avr|juil|sept|oct|nov|déc)\.|lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche)$/i,
  },
};

/** A greeting at the start of the request's own sentence: "Hallo Frau Becker, könnten Sie …". */
const GREETING =
  /^(?:hi|hello|hey|dear|good (?:morning|afternoon|evening)|hallo|liebe[rs]?|sehr geehrte[rs]?|guten (?:morgen|tag|abend)|moin|servus|hola|estimad[oa]s?|buen(?:os|as) (?:días|tardes|noches)|querid[oa]s?|bonjour|bonsoir|salut|cher|chère|madame|monsieur)(?![\p{L}])[^,:!?.\n]{0,40}[,:!]\s*/iu;
/** Thanks or a sign-off glued in front of the request: "Thanks in advance, please …". */
const LEADING_THANKS = /^(?:thanks|thank you|danke|gracias|merci)(?: \p{L}+){0,3}[,!]\s+/iu;
const NUMBERISH = /^[\d.,:/–-]+(?:st|nd|rd|th|er|e|h|\.)?$/iu;

export interface TaskInput {
  language: Language;
  sender: string | null;
  request: string | null;
  kind: 'meeting_scheduling' | 'meeting_invitation' | 'payment' | 'request';
  subject: string;
}

/**
 * "<Verb> …" when the request is a plain instruction ("Approve invoice 7731 …", "Valider le devis …"), and
 * "Reply to <sender>: …" when it is a question or speaks of the sender ("could you send me …"), where a bare
 * verb would change who does what.
 */
export function describeTask(input: TaskInput): string {
  const phrasing = PHRASING[input.language];
  const subject = input.subject || '…';
  if (input.kind === 'meeting_scheduling') return clip(`${phrasing.chooseTime}: ${subject}`, input.language);
  if (input.kind === 'meeting_invitation') return clip(`${phrasing.answerInvitation}: ${subject}`, input.language);
  if (input.request !== null) return clip(fromRequest(input.request, input.sender, phrasing), input.language);
  if (input.kind === 'payment') return clip(`${phrasing.pay}: ${subject}`, input.language);
  return clip(`${phrasing.followUp}: ${subject}`, input.language);
}

function fromRequest(sentence: string, sender: string | null, phrasing: Phrasing): string {
  const request = sentence
    .replace(GREETING, '')
    .replace(LEADING_THANKS, '')
    .replace(/[.…]+$/u, '')
    .trim();
  const instruction = phrasing.polite.exec(request);
  if (instruction && !request.endsWith('?')) {
    const rest = request.slice(instruction[0].length);
    if (!phrasing.firstPerson.test(rest)) return capitalize(rest);
  }
  return `${sender ? phrasing.reply(sender) : ''}${capitalize(request)}`;
}

function capitalize(text: string): string {
  // "¿puedes …?" and "«merci …»" open with a mark; the first letter is what gets the capital.
  return text.replace(/\p{L}/u, (letter) => letter.toUpperCase());
}

/**
 * Fits `text` into TASK_MAX characters: cut between words, preferring the end of a clause, then
 * drop what a cut leaves dangling (a preposition, a number, a month: the date it belonged to
 * is gone), then the ellipsis. German puts the verb last, so its final word is kept after it.
 */
export function clip(text: string, language: Language): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= TASK_MAX) return flat;
  const words = flat.split(' ');
  const tail = language === 'de' && words.length > 4 ? ` … ${words.at(-1)}` : '…';
  const budget = TASK_MAX - tail.length;
  const kept: string[] = [];
  let length = 0;
  for (const word of words) {
    const next = length + (kept.length > 0 ? 1 : 0) + word.length;
    if (next > budget) break;
    kept.push(word);
    length = next;
  }
  // A clause ending in the last third reads better than a cut in the middle of the next one;
  // a whole clause ends whole, dates and numbers included.
  const lastThird = (mark: RegExp) =>
    kept.findLastIndex((word, index) => index >= kept.length * 0.66 && mark.test(word));
  const clauseEnd = Math.max(lastThird(/[;:]$/), 0) || lastThird(/,$/);
  if (clauseEnd > 0)
    return `${kept
      .slice(0, clauseEnd + 1)
      .join(' ')
      .replace(/[,;:–-]+$/u, '')}${tail}`;
  const phrasing = PHRASING[language];
  const isDatePart = (word: string | undefined) =>
    word !== undefined && (NUMBERISH.test(word.replace(/,$/, '')) || phrasing.dateWords.test(word.replace(/,$/, '')));
  while (kept.length > 1) {
    const last = kept.at(-1)!.replace(/[,;:–-]+$/u, '');
    // A number or a month is cut off only when the date it starts goes on past the cut: "den 27. | November".
    // German ordinals belong to the word after them: "den 2. | Bauabschnitt".
    const cutDate =
      (isDatePart(last) && isDatePart(words[kept.length])) || (language === 'de' && /^\d{1,2}\.$/.test(last));
    if (last === '' || cutDate || phrasing.dangling.has(last.toLowerCase())) kept.pop();
    else break;
  }
  return `${kept.join(' ').replace(/[,;:–-]+$/u, '')}${tail}`;
}
