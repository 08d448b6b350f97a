import { describe, expect, it } from 'vitest';
import { dayOfTimestamp, resolveDueDate, workingDaysBetween } from '../../src/classify/rules/due-date.js';
import type { Language } from '../../src/classify/rules/lexicon.js';
import { splitSentences } from '../../src/classify/rules/sentences.js';
import { clip } from '../../src/classify/rules/task.js';

// Sentence boundaries that know dates, ordinals and abbreviations, and deadlines read
// in four languages and placed on the calendar from the day the email was sent.

describe('sentences', () => {
  it.each([
    [
      'de',
      'Hallo Frau Becker, könnten Sie uns bitte bis Freitag, den 28. November die Unterlagen schicken? Danke.',
      'Hallo Frau Becker, könnten Sie uns bitte bis Freitag, den 28. November die Unterlagen schicken?',
    ],
    [
      'de',
      'Für den 2. Bauabschnitt brauchen wir z. B. die Pläne bis zum 3. Dezember. Gruß',
      'Für den 2. Bauabschnitt brauchen wir z. B. die Pläne bis zum 3. Dezember.',
    ],
    [
      'en',
      'Please send the signed NDA by Dec. 3 to Mr. Smith. Thanks!',
      'Please send the signed NDA by Dec. 3 to Mr. Smith.',
    ],
    [
      'es',
      'El Sr. García pide el informe antes del 4 de dic. a las 12. Gracias.',
      'El Sr. García pide el informe antes del 4 de dic. a las 12.',
    ],
    [
      'fr',
      'Bonjour M. Dupont, merci de valider le devis. Cordialement',
      'Bonjour M. Dupont, merci de valider le devis.',
    ],
  ] as const)('%s: keeps "%s" together up to its real end', (language, text, first) => {
    expect(splitSentences(text, language)[0]).toBe(first);
  });

  it('still ends sentences at a real full stop, and at line breaks', () => {
    expect(splitSentences('The total is 12. Please pay it.\nThanks', 'en')).toEqual([
      'The total is 12.',
      'Please pay it.',
      'Thanks',
    ]);
  });
});

describe('deadlines on the calendar', () => {
  // Wednesday 25 November 2026.
  const wednesday = dayOfTimestamp('2026-11-25T08:15:00+01:00')!;

  it.each([
    ['en', 'by Friday', '2026-11-27'],
    ['en', 'by Thursday noon', '2026-11-26T12:00'],
    ['en', 'by EOD', '2026-11-25'],
    ['en', 'today', '2026-11-25'],
    ['en', 'before 3pm', '2026-11-25T15:00'],
    ['en', 'by Dec. 3', '2026-12-03'],
    ['en', 'by Friday, December 4', '2026-12-04'],
    ['en', 'before 15 January 2027', '2027-01-15'],
    ['en', 'by 12/18', '2026-12-18'],
    ['en', 'due on November 16', '2026-11-16'],
    ['en', 'by Wednesday', '2026-12-02'],
    ['en', 'by the end of the week', '2026-11-27'],
    ['de', 'bis Donnerstag 12 Uhr', '2026-11-26T12:00'],
    ['de', 'bis Freitag, den 27. November', '2026-11-27'],
    ['de', 'bis zum 3. Dezember', '2026-12-03'],
    ['de', 'bis 15.12.', '2026-12-15'],
    ['de', 'spätestens am 15. Januar 2027', '2027-01-15'],
    ['de', 'heute noch', '2026-11-25'],
    ['de', 'bis übermorgen', '2026-11-27'],
    ['es', 'antes del viernes', '2026-11-27'],
    ['es', 'antes de mañana a las 10', '2026-11-26T10:00'],
    ['es', 'antes del 18/12', '2026-12-18'],
    ['es', 'antes del 20 de enero de 2027', '2027-01-20'],
    ['fr', "d'ici jeudi", '2026-11-26'],
    ['fr', 'avant le 1er décembre', '2026-12-01'],
    ['fr', 'pour demain midi', '2026-11-26T12:00'],
    ['fr', 'avant 17 h', '2026-11-25T17:00'],
    ['fr', "d'ici la fin de la semaine", '2026-11-27'],
    ['fr', 'avant le 15/12', '2026-12-15'],
  ] as const)('%s "%s" → %s', (language, phrase, iso) => {
    expect(resolveDueDate(phrase, language as Language, wednesday)?.iso).toBe(iso);
  });

  it("reads a date without a year as next year's when this year's is long past", () => {
    expect(resolveDueDate('by January 10', 'en', wednesday)?.iso).toBe('2027-01-10');
  });

  it('places nothing it cannot read', () => {
    expect(resolveDueDate('Due By: {{due_date}}', 'en', wednesday)).toBeNull();
  });

  it('counts working days, weekends left out', () => {
    const thursday = dayOfTimestamp('2026-11-26')!;
    expect(workingDaysBetween(thursday, dayOfTimestamp('2026-11-30')!)).toBe(2);
    expect(workingDaysBetween(thursday, dayOfTimestamp('2026-12-01')!)).toBe(3);
  });
});

describe('cutting a task', () => {
  it('cuts between words, never inside a date, and keeps a German final verb', () => {
    const german = clip(
      'Antworten an Jürgen Weiß: Könnten Sie uns bitte bis Freitag, den 27. November die geprüften Pläne für den 2. Bauabschnitt schicken?',
      'de',
    );
    expect(german.length).toBeLessThanOrEqual(120);
    expect(german).toMatch(/ … schicken\?$/);
    expect(german).not.toMatch(/\d\.? …/);
    const english = clip(
      `Reply to Sam: Could you send the signed contract and the two annexes to the notary in Leeds before the meeting on Dec. 3 please`,
      'en',
    );
    expect(english.length).toBeLessThanOrEqual(120);
    expect(english).toMatch(/\p{L}…$/u);
    expect(english).not.toMatch(/Dec\.…$/);
  });
});
