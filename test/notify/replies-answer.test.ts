import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readAnswer, readReview, replyText } from '../../src/notify/index.js';

// What a reply's own text answers: an option, a free answer, or a review's decision.

const OPTIONS = ['Répondre', 'Wait for Ann', 'Cancel the run'];

describe('readAnswer with options', () => {
  it.each([
    ['the option as written', 'Répondre', 'Répondre'],
    ['another case, no accents', 'repondre', 'Répondre'],
    ['upper case, accents kept', 'RÉPONDRE', 'Répondre'],
    ['surrounding punctuation', '"Wait for Ann!"', 'Wait for Ann'],
    ['markdown emphasis and spaces', '  **cancel   the run** ', 'Cancel the run'],
    ['its number', '2', 'Wait for Ann'],
    ['its number with a dot', '2.', 'Wait for Ann'],
    ['its number with a hash', '#3', 'Cancel the run'],
    ['its number in parentheses', '(1)', 'Répondre'],
    ['"option" and its number', 'Option 2', 'Wait for Ann'],
    ['"opción" and its number', 'opción 3', 'Cancel the run'],
    ['a non-breaking space inside', 'Wait\u00a0for Ann', 'Wait for Ann'],
  ])('chooses by %s', (_how, line, option) => {
    expect(readAnswer(line, OPTIONS)).toEqual({ option, answer: null });
  });

  it('keeps the lines after the first as the answer beside the option', () => {
    expect(readAnswer('2\n\nShe is back on Monday.\nAsk her then.', OPTIONS)).toEqual({
      option: 'Wait for Ann',
      answer: 'She is back on Monday.\nAsk her then.',
    });
  });

  it('reads an option opening its line before a separator, the rest of the line joining the answer', () => {
    expect(readAnswer('Wait for Ann, she knows the system.\nThanks', OPTIONS)).toEqual({
      option: 'Wait for Ann',
      answer: 'she knows the system.\nThanks',
    });
    expect(readAnswer('3 - too risky today', OPTIONS)).toEqual({ option: 'Cancel the run', answer: 'too risky today' });
    expect(readAnswer('Option 1: yes', OPTIONS)).toEqual({ option: 'Répondre', answer: 'yes' });
  });

  it('prefers the longest option a line opens with', () => {
    expect(readAnswer('Yes, later: after the freeze', ['Yes', 'Yes, later'])).toEqual({
      option: 'Yes, later',
      answer: 'after the freeze',
    });
    expect(readAnswer('Yes, later', ['Yes', 'Yes, later'])).toEqual({ option: 'Yes, later', answer: null });
  });

  it.each([
    ['no option named', 'Maybe tomorrow'],
    ['a number out of range', '4'],
    ['zero', '0'],
    ['an option inside the line, not opening it', 'I would say cancel the run'],
    ['an option followed by more words without a separator', 'Wait for Ann please'],
    ['a decimal', '2.5'],
  ])('is unmatched for %s', (_how, text) => {
    expect(readAnswer(text, OPTIONS)).toEqual({ unmatched: true });
  });

  it('prefers an option named "2" by its text over the second option', () => {
    expect(readAnswer('2', ['1', '3', '2'])).toEqual({ option: '2', answer: null });
  });

  it('keeps options apart that differ only in punctuation', () => {
    expect(readAnswer('-1', ['+1', '-1'])).toEqual({ option: '-1', answer: null });
    expect(readAnswer('+1', ['+1', '-1'])).toEqual({ option: '+1', answer: null });
  });

  it('is empty for empty text', () => {
    expect(readAnswer('', OPTIONS)).toEqual({ empty: true });
    expect(readAnswer(' \n\t', null)).toEqual({ empty: true });
  });

  it('cuts the answer beside an option to 4,000 characters', () => {
    const result = readAnswer(`1\n${'x'.repeat(5000)}`, OPTIONS);
    expect(result).toEqual({ option: 'Répondre', answer: 'x'.repeat(4000) });
  });

  it('reads a whole German Outlook reply', () => {
    const body = [
      'option 2',
      'Ann ist ab Montag da.',
      '',
      'Von: agentdesk <desk@example.org>',
      'Gesendet: Montag, 3. November 2026 10:02',
      'An: Bob <bob@example.org>',
      'Betreff: [agentdesk] build fragt',
      '',
      'Wie weiter?',
    ].join('\r\n');
    expect(readAnswer(replyText(body), OPTIONS)).toEqual({ option: 'Wait for Ann', answer: 'Ann ist ab Montag da.' });
  });
});

describe('readAnswer without options', () => {
  it('takes the first paragraph', () => {
    expect(readAnswer('Use the staging database.\nIt has the data.\n\nAlso, thanks!', null)).toEqual({
      option: null,
      answer: 'Use the staging database.\nIt has the data.',
    });
  });

  it('takes the first paragraph of CRLF text with spaces on the blank line', () => {
    expect(readAnswer('Yes.\r\n  \r\nMore.', null)).toEqual({ option: null, answer: 'Yes.' });
  });

  it('cuts a longer paragraph to 4,000 characters without splitting a character', () => {
    expect(readAnswer('a'.repeat(4001), null)).toEqual({ option: null, answer: 'a'.repeat(4000) });
    const emoji = `${'a'.repeat(3999)}\u{1F600}b`;
    expect(readAnswer(emoji, null)).toEqual({ option: null, answer: 'a'.repeat(3999) });
  });

  it('never throws and keeps answers within the limit', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 5000 }),
        fc.option(fc.array(fc.string(), { maxLength: 4 })),
        (text, options) => {
          const result = readAnswer(text, options);
          if ('answer' in result && result.answer !== null) {
            expect(result.answer.length).toBeLessThanOrEqual(4000);
            expect(result.answer.trim()).not.toBe('');
          }
          if ('option' in result && result.option !== null) expect(options).toContain(result.option);
        },
      ),
    );
  });
});

describe('readReview', () => {
  it.each([
    ['approve', 'en'],
    ['Approved.', 'en'],
    ['OK', 'en'],
    ['LGTM!', 'en'],
    ['Genehmigt', 'de'],
    ['freigeben', 'de'],
    ['Aprobado', 'es'],
    ['aprobar', 'es'],
    ['Approuvé', 'fr'],
    ['approuvee', 'fr'],
  ])('%s approves (%s)', (text) => {
    expect(readReview(text)).toEqual({ decision: 'approve', note: null });
  });

  it('keeps what follows an approval as a note', () => {
    expect(readReview('Approved - nice work.\nShip it.')).toEqual({
      decision: 'approve',
      note: 'nice work.\nShip it.',
    });
  });

  it.each([
    ['Return: the tests fail.', 'the tests fail.'],
    ['rejected, wrong branch', 'wrong branch'],
    ['Zurück: die Tabelle fehlt.', 'die Tabelle fehlt.'],
    ['Zurückgeben – bitte Tests ergänzen', 'bitte Tests ergänzen'],
    ['Devolver: falta la tabla.', 'falta la tabla.'],
    ['Renvoyer : il manque les tests.', 'il manque les tests.'],
    ['retourner\n\nLe résumé est faux.\nVoir la page 2.', 'Le résumé est faux.\nVoir la page 2.'],
  ])('%s returns with the rest as the reason', (text, reason) => {
    expect(readReview(text)).toEqual({ decision: 'return', reason });
  });

  it('reads a return without a reason as one the caller cannot apply', () => {
    expect(readReview('Return')).toEqual({ decision: 'return', reason: null });
    expect(readReview('zurück!')).toEqual({ decision: 'return', reason: null });
  });

  it.each([
    '',
    'Looks good to me',
    'not approved',
    'No problem',
    'approvedish',
    '1',
    'Approval pending',
    'Approve? The tests fail.',
  ])('%j decides nothing', (text) => {
    expect(readReview(text)).toBeNull();
  });

  it('reads a reply from a mail client', () => {
    const body = [
      'Genehmigt',
      '',
      'Von meinem iPhone gesendet',
      '',
      '> Am 03.11.2026 um 10:02 schrieb agentdesk <desk@example.org>:',
      '> Bitte prüfen.',
    ].join('\n');
    expect(readReview(replyText(body))).toEqual({ decision: 'approve', note: null });
    expect(readReview(replyText('> Approve?\n> Return?'))).toBeNull();
  });

  it('never throws', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (text) => {
        const decision = readReview(text);
        expect(decision === null || ['approve', 'return'].includes(decision.decision)).toBe(true);
      }),
    );
  });
});
