// From a deadline as written ("by Thursday noon", "bis Freitag, den 27. November") to a calendar date counted
// from the day the email was sent. The lexicons (signals.ts) find the phrase; this file only reads it, so it
// never decides what is a deadline.

import type { Language } from './lexicon.js';

/** Whole days since 1970-01-01 (UTC calendar): plain integers make date arithmetic exact. */
export type Day = number;

const DAY_MS = 86_400_000;
/** A date without a year that lies further back than this is read as next year's. */
const PAST_WITHOUT_YEAR_DAYS = 60;

interface Words {
  months: ReadonlyArray<readonly [RegExp, number]>;
  /** Sunday first, as Date#getUTCDay counts. */
  weekdays: readonly RegExp[];
  /** Offsets in days from the email's day, most specific first ("übermorgen" before "morgen"). */
  relative: ReadonlyArray<readonly [RegExp, number]>;
  endOfWeek: RegExp;
  endOfMonth: RegExp;
  nextWeek: RegExp;
  thisWeek: RegExp;
  noon: RegExp;
  /** Hours (and minutes) of a time of day; am/pm only in English. */
  time: RegExp;
  inDays: RegExp;
  /** Day before month ("27/11", "27.11.") everywhere but in English, which writes 11/27. */
  dayFirst: boolean;
}

const month = (source: string, number: number) => [new RegExp(`(?<![\\p{L}])${source}`, 'iu'), number] as const;
const word = (source: string) => new RegExp(`(?<![\\p{L}])(?:${source})(?![\\p{L}])`, 'iu');

const WORDS: Readonly<Record<Language, Words>> = {
  en: {
    months: [
      month('jan', 1),
      month('feb', 2),
      month('mar', 3),
      month('apr', 4),
      month('may', 5),
      month('jun', 6),
      month('jul', 7),
      month('aug', 8),
      month('sep', 9),
      month('oct', 10),
      month('nov', 11),
      month('dec', 12),
    ],
    weekdays: ['sun', 'mon', 'tues?', 'wed(?:nes)?', 'thu(?:rs?)?', 'fri', 'sat(?:ur)?'].map((day) =>
      word(`${day}(?:day)?`),
    ),
    relative: [
      [word('day after tomorrow'), 2],
      [word('tomorrow'), 1],
      [word('today|tonight|eod|cob|end of (?:the )?day|noon|midnight'), 0],
    ],
    endOfWeek: word('end of (?:the )?week'),
    endOfMonth: word('end of (?:the )?month'),
    nextWeek: word('next week'),
    thisWeek: word('this week'),
    noon: word('noon|midday'),
    time: /(?<!\d)(\d{1,2})(?::(\d{2}))?\s?([ap])\.?m\b|(?<![\d/.])(\d{1,2}):(\d{2})(?!\d)/i,
    inDays: /\b(\d{1,2}) days?\b/i,
    dayFirst: false,
  },
  de: {
    months: [
      month('jan|jän', 1),
      month('feb', 2),
      month('mär', 3),
      month('apr', 4),
      month('mai', 5),
      month('jun', 6),
      month('jul', 7),
      month('aug', 8),
      month('sep', 9),
      month('okt', 10),
      month('nov', 11),
      month('dez', 12),
    ],
    weekdays: ['sonntag', 'montag', 'dienstag', 'mittwoch', 'donnerstag', 'freitag', 'samstag'].map(word),
    relative: [
      [word('übermorgen'), 2],
      [word('morgen'), 1],
      [word('heute'), 0],
    ],
    endOfWeek: word('ende (?:der|dieser) woche|wochenende'),
    endOfMonth: word('monatsende|ende (?:des|dieses) monats'),
    nextWeek: word('nächste[rn]? woche|ende nächster woche'),
    thisWeek: word('diese[rn]? woche'),
    noon: word('mittag'),
    time: /(?<!\d)(\d{1,2})(?:[:.](\d{2}))?\s?uhr/i,
    inDays: /(?<!\d)(\d{1,2}) tagen?/i,
    dayFirst: true,
  },
  es: {
    months: [
      month('ene', 1),
      month('feb', 2),
      month('mar', 3),
      month('abr', 4),
      month('may', 5),
      month('jun', 6),
      month('jul', 7),
      month('ago', 8),
      month('sep|set', 9),
      month('oct', 10),
      month('nov', 11),
      month('dic', 12),
    ],
    weekdays: ['domingo', 'lunes', 'martes', 'miércoles', 'jueves', 'viernes', 'sábado'].map(word),
    relative: [
      [word('pasado mañana'), 2],
      [word('mañana'), 1],
      [word('hoy|esta tarde|esta noche'), 0],
    ],
    endOfWeek: word('fin(?:al)? de(?: la)? semana'),
    endOfMonth: word('fin(?:al)? de(?:l)? mes'),
    nextWeek: word('la semana que viene|la próxima semana'),
    thisWeek: word('esta semana'),
    noon: word('mediodía'),
    time: /\blas (\d{1,2})(?:[:.](\d{2}))?/i,
    inDays: /(?<!\d)(\d{1,2}) días/i,
    dayFirst: true,
  },
  fr: {
    months: [
      month('janv', 1),
      month('fév|fev', 2),
      month('mars', 3),
      month('avr', 4),
      month('mai', 5),
      month('juin', 6),
      month('juil', 7),
      month('ao[uû]', 8),
      month('sept', 9),
      month('oct', 10),
      month('nov', 11),
      month('déc|dec', 12),
    ],
    weekdays: ['dimanche', 'lundi', 'mardi', 'mercredi', 'jeudi', 'vendredi', 'samedi'].map(word),
    relative: [
      [word('après-demain'), 2],
      [word('demain'), 1],
      [word("aujourd'hui|ce soir"), 0],
    ],
    endOfWeek: word('(?:la )?fin de (?:la )?semaine'),
    endOfMonth: word('(?:la )?fin du mois'),
    nextWeek: word('la semaine prochaine'),
    thisWeek: word('cette semaine'),
    noon: word('midi'),
    time: /(?<!\d)(\d{1,2})\s?h(?:\s?(\d{2}))?(?![\p{L}])/iu,
    inDays: /(?<!\d)(\d{1,2}) jours/i,
    dayFirst: true,
  },
};

const ISO_DATE = /\b(\d{4})-(\d{2})-(\d{2})\b/;
const NUMERIC_DATE = /(?<![\d.:/])(\d{1,2})([/.])(\d{1,2})(?:\2(\d{4}|\d{2})(?!\d))?/;
const DAY_NUMBER = /(?<![\d.:/])(\d{1,2})(?:st|nd|rd|th|er|\.)?(?![\d:/])/i;
const YEAR = /(?<![\d.:/])(20\d{2})(?!\d)/;

function toDay(year: number, monthNumber: number, date: number): Day | null {
  if (monthNumber < 1 || monthNumber > 12 || date < 1 || date > 31) return null;
  const ms = Date.UTC(year, monthNumber - 1, date);
  // 31 November rolls over into December: that is no date.
  return new Date(ms).getUTCDate() === date ? ms / DAY_MS : null;
}

export function weekdayOf(day: Day): number {
  return new Date(day * DAY_MS).getUTCDay();
}

/** The day an email was sent as its sender wrote it: the date part of "2026-11-25T08:15:00+01:00". */
export function dayOfTimestamp(timestamp: string | null | undefined): Day | null {
  const match = timestamp ? /^(\d{4})-(\d{2})-(\d{2})/.exec(timestamp) : null;
  return match ? toDay(Number(match[1]), Number(match[2]), Number(match[3])) : null;
}

export function dayOfDate(date: Date): Day {
  return Math.floor(date.getTime() / DAY_MS);
}

/** A year-less date: this year's, unless that lies well in the past (then next year's). */
function nearest(reference: Day, monthNumber: number, date: number): Day | null {
  const year = new Date(reference * DAY_MS).getUTCFullYear();
  const day = toDay(year, monthNumber, date);
  if (day === null) return null;
  return day < reference - PAST_WITHOUT_YEAR_DAYS ? toDay(year + 1, monthNumber, date) : day;
}

function nextWeekday(reference: Day, weekday: number): Day {
  // "By Friday" written on a Friday means next Friday: today would have said "today".
  const ahead = (weekday - weekdayOf(reference) + 7) % 7;
  return reference + (ahead === 0 ? 7 : ahead);
}

function fridayOf(reference: Day, weeksAhead: number): Day {
  const weekday = weekdayOf(reference);
  // Saturday and Sunday belong to the week that ends before them; their "end of week" is the next Friday.
  const toFriday = weekday === 6 ? 6 : (5 - weekday + 7) % 7;
  return reference + toFriday + 7 * weeksAhead;
}

function calendarDay(phrase: string, words: Words, reference: Day): Day | null {
  const iso = ISO_DATE.exec(phrase);
  if (iso) return toDay(Number(iso[1]), Number(iso[2]), Number(iso[3]));
  const numeric = NUMERIC_DATE.exec(phrase);
  if (numeric) {
    // "15.12." and "18/12" in Europe, "12/18" in English.
    const [first, second] = [Number(numeric[1]), Number(numeric[3])];
    const [monthNumber, date] = words.dayFirst || numeric[2] === '.' ? [second, first] : [first, second];
    const yearText = numeric[4];
    if (yearText) return toDay(yearText.length === 2 ? 2000 + Number(yearText) : Number(yearText), monthNumber, date);
    return nearest(reference, monthNumber, date);
  }
  const named = words.months.find(([pattern]) => pattern.test(phrase));
  if (named) {
    const withoutYear = phrase.replace(YEAR, ' ');
    const date = DAY_NUMBER.exec(withoutYear);
    if (date) {
      const year = YEAR.exec(phrase);
      return year ? toDay(Number(year[1]), named[1], Number(date[1])) : nearest(reference, named[1], Number(date[1]));
    }
  }
  const weekday = words.weekdays.findIndex((pattern) => pattern.test(phrase));
  if (weekday >= 0) return nextWeekday(reference, weekday);
  if (words.endOfWeek.test(phrase) || words.thisWeek.test(phrase)) return fridayOf(reference, 0);
  if (words.nextWeek.test(phrase)) return fridayOf(reference, 1);
  if (words.endOfMonth.test(phrase)) {
    const at = new Date(reference * DAY_MS);
    return Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 0) / DAY_MS;
  }
  const inDays = words.inDays.exec(phrase);
  if (inDays) return reference + Number(inDays[1]);
  for (const [pattern, offset] of words.relative) if (pattern.test(phrase)) return reference + offset;
  return null;
}

/** "HH:MM" when the phrase names a time of day, else null. */
function timeOfDay(phrase: string, words: Words): string | null {
  if (words.noon.test(phrase)) return '12:00';
  const match = words.time.exec(phrase);
  if (!match) return null;
  let hours = Number(match[1] ?? match[4]);
  const minutes = Number(match[2] ?? match[5] ?? 0);
  const meridiem = match[3]?.toLowerCase();
  if (meridiem === 'p' && hours < 12) hours += 12;
  if (meridiem === 'a' && hours === 12) hours = 0;
  if (hours > 23 || minutes > 59) return null;
  return `${String(hours).padStart(2, '0')}:${String(minutes).padStart(2, '0')}`;
}

export interface DueDate {
  /** ISO 8601: "2026-11-27" or "2026-11-26T12:00". */
  iso: string;
  day: Day;
}

/**
 * The date a deadline phrase names ("antes del 18/12", "d'ici la fin de la semaine"), counted from
 * `reference` (the day the email was sent), or null when it names none we can place ("{{due_date}}",
 * "in the coming weeks"). A time alone ("before 3pm", "avant 17 h") is that day's. `details.deadline`
 * carries it as ISO 8601, a date ("2026-11-27") or a local date and time ("2026-11-26T12:00"), in the
 * sender's own clock, as written.
 */
export function resolveDueDate(phrase: string, language: Language, reference: Day): DueDate | null {
  const words = WORDS[language];
  const time = timeOfDay(phrase, words);
  // The time is read first and taken out, so "bis Donnerstag 12 Uhr" has no day number 12.
  const rest = time === null ? phrase : phrase.replace(words.time, ' ');
  const day = calendarDay(rest, words, reference) ?? (time !== null ? reference : null);
  if (day === null) return null;
  const date = new Date(day * DAY_MS).toISOString().slice(0, 10);
  return { iso: time === null ? date : `${date}T${time}`, day };
}

/** Monday to Friday strictly after `from` up to and including `to`: how many working days away `to` is. */
export function workingDaysBetween(from: Day, to: Day): number {
  let count = 0;
  for (let day = from + 1; day <= to; day += 1) {
    const weekday = weekdayOf(day);
    if (weekday !== 0 && weekday !== 6) count += 1;
  }
  return count;
}
