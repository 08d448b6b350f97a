import { describe, expect, it } from 'vitest';
import { decideReply, type ReplyMessage } from '../../src/notify/index.js';

// What a recognised reply does to its question: the answer it gives, or why it gives none.

const ANN = 'ann@example.org';

function reply(text: string, options: { from?: string; auth?: string; html?: boolean } = {}): ReplyMessage {
  return {
    in_reply_to: null,
    references: [],
    from: { address: options.from ?? ANN },
    graph: { body: { contentType: options.html ? 'html' : 'text', content: text } },
    reply_headers: options.auth ? [{ name: 'authentication-results', value: options.auth }] : [],
  };
}

const QUESTION = { kind: 'question', status: 'open', options: ['Ship it', 'Wait for Ann'] } as const;
const FREE = { kind: 'question', status: 'open', options: null } as const;
const REVIEW = { kind: 'review', status: 'open', options: ['approve', 'return'] } as const;
const QUOTE = '\n\nOn Mon, 3 Nov 2026 at 10:02, Desk <desk@example.org> wrote:\n> Ship it or wait?\n';

describe('a reply to the desk mail', () => {
  it('chooses the option its first line names, with the rest as the answer', () => {
    expect(decideReply(QUESTION, reply(`wait for ann: she knows the client${QUOTE}`), ANN, null)).toEqual({
      kind: 'answer',
      input: { option: 'Wait for Ann', answer: 'she knows the client' },
    });
    expect(decideReply(QUESTION, reply(`1${QUOTE}`), ANN, null)).toEqual({
      kind: 'answer',
      input: { option: 'Ship it' },
    });
  });

  it('answers a free question with its first paragraph, from HTML too', () => {
    expect(decideReply(FREE, reply(`Use the staging key.\n\nThanks,\nAnn${QUOTE}`), ANN, null)).toEqual({
      kind: 'answer',
      input: { answer: 'Use the staging key.' },
    });
    expect(decideReply(FREE, reply('<div>Use the <b>staging</b> key.</div>', { html: true }), ANN, null)).toEqual({
      kind: 'answer',
      input: { answer: 'Use the staging key.' },
    });
  });

  it('approves or returns a review, in German too, and by the buttons number', () => {
    expect(decideReply(REVIEW, reply(`Approve${QUOTE}`), ANN, null)).toEqual({
      kind: 'answer',
      input: { option: 'approve' },
    });
    expect(decideReply(REVIEW, reply('Zurückgeben: die Zahlen fehlen'), ANN, null)).toEqual({
      kind: 'answer',
      input: { option: 'return', answer: 'die Zahlen fehlen' },
    });
    expect(decideReply(REVIEW, reply('1'), ANN, null)).toEqual({ kind: 'answer', input: { option: 'approve' } });
    expect(decideReply(REVIEW, reply('return'), ANN, null)).toMatchObject({ kind: 'refused', unverified: false });
  });

  it('answers nothing for a forged or expired token, another sender, or a failed authentication', () => {
    expect(decideReply(QUESTION, reply('1'), ANN, 'its reply token is forged')).toEqual({
      kind: 'refused',
      why: 'its reply token is forged',
      unverified: true,
    });
    expect(decideReply(QUESTION, reply('1', { from: 'mallory@example.org' }), ANN, null)).toMatchObject({
      kind: 'refused',
      unverified: true,
    });
    // The same address written in another case is the same person.
    expect(decideReply(QUESTION, reply('1', { from: 'Ann@Example.ORG' }), ANN, null).kind).toBe('answer');
    expect(
      decideReply(
        QUESTION,
        reply('1', { auth: 'mx.example.org; spf=fail smtp.mailfrom=example.org; dmarc=fail' }),
        ANN,
        null,
      ),
    ).toMatchObject({ kind: 'refused', unverified: true });
  });

  it('answers nothing when the question is closed, or the reply names no option or holds only a quote', () => {
    expect(decideReply({ ...QUESTION, status: 'answered' }, reply('1'), ANN, null)).toMatchObject({
      why: 'the question was already answered',
    });
    expect(decideReply({ ...QUESTION, status: 'moot' }, reply('1'), ANN, null)).toMatchObject({ kind: 'refused' });
    expect(decideReply(QUESTION, reply('Maybe tomorrow?'), ANN, null)).toMatchObject({
      kind: 'refused',
      unverified: false,
    });
    expect(decideReply(FREE, reply(QUOTE), ANN, null)).toMatchObject({
      why: 'the reply holds no text of its own (only the quoted mail)',
    });
  });
});
