import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { answerLinkUrl, createLinkTokens, replyAddress, replyTokenFrom } from '../../src/notify/index.js';
import { escapeHtml } from '../../src/notify/links/page.js';

// Answer-link and reply tokens: what one secret signs verifies, anything else is refused with its
// reason, and a reply token survives an email local part (length, re-casing).

const NOW = new Date('2026-12-01T12:00:00Z');
const NOW_S = NOW.getTime() / 1000;
const tokens = createLinkTokens(randomBytes(32), 7 * 86_400);
const person = fc.stringMatching(/^[A-Za-z0-9_.@-]{1,64}$/);
const uuid = fc.uuid().map((id) => id.toLowerCase());
const TOKEN_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.';

describe('answer-link tokens', () => {
  it('round trip: the claims signed are the claims verified, and the token is URL-safe', () => {
    fc.assert(
      fc.property(uuid, person, fc.integer({ min: 1, max: 10 * 365 * 86_400 }), (question_id, name, ahead) => {
        const token = tokens.sign({ question_id, person: name, expires_at: NOW_S + ahead });
        expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
        expect(encodeURIComponent(token)).toBe(token);
        expect(answerLinkUrl('https://desk.example.org/', token)).toBe(`https://desk.example.org/answer/${token}`);
        expect(tokens.verify(token, NOW)).toEqual({
          ok: true,
          claims: { question_id, person: name, expires_at: NOW_S + ahead },
        });
      }),
    );
  });

  it('any single-character change is refused', () => {
    fc.assert(
      fc.property(
        uuid,
        person,
        fc.nat(),
        fc.constantFrom(...TOKEN_CHARS),
        (question_id, name, position, replacement) => {
          const token = tokens.sign({ question_id, person: name }, NOW);
          const at = position % token.length;
          fc.pre(token[at] !== replacement);
          const changed = token.slice(0, at) + replacement + token.slice(at + 1);
          const result = tokens.verify(changed, NOW);
          expect(result.ok).toBe(false);
        },
      ),
    );
  });

  it('expires at its expiry, with ANSWER_LINK_TTL as the default', () => {
    const token = tokens.sign({ question_id: randomUUID(), person: 'ada' }, NOW);
    expect(tokens.verify(token, new Date(NOW.getTime() + 7 * 86_400_000 - 1000)).ok).toBe(true);
    expect(tokens.verify(token, new Date(NOW.getTime() + 7 * 86_400_000))).toEqual({ ok: false, reason: 'expired' });
  });

  it('another secret, garbage and a reply token are refused with their reasons', () => {
    const other = createLinkTokens(randomBytes(32), 60);
    const token = other.sign({ question_id: randomUUID(), person: 'ada' }, NOW);
    expect(tokens.verify(token, NOW)).toEqual({ ok: false, reason: 'forged' });
    for (const garbage of ['', 'abc', 'a.b.c', 'a b.c', '%2e.x', 'x'.repeat(5000)]) {
      expect(tokens.verify(garbage, NOW)).toEqual({ ok: false, reason: 'malformed' });
    }
    expect(tokens.verify(tokens.signReply(randomUUID()), NOW)).toEqual({ ok: false, reason: 'malformed' });
  });
});

describe('reply tokens', () => {
  it('round trip through an address, in any case, within 64 characters of local part', () => {
    fc.assert(
      fc.property(uuid, fc.boolean(), (id, upper) => {
        const token = tokens.signReply(id);
        expect(token).toMatch(/^[a-z2-7]{26}-[a-z2-7]{16}$/);
        const address = replyAddress('desk+{token}@example.org', token);
        expect(address.split('@')[0]!.length).toBeLessThanOrEqual(64);
        const received = upper ? `Desk <${address.toUpperCase()}>` : address;
        const back = replyTokenFrom('desk+{token}@example.org', received);
        expect(back).toBe(token);
        expect(tokens.verifyReply(back!)).toEqual({ ok: true, claims: { notification_id: id } });
      }),
    );
  });

  it('any single-character change (other than its case) is refused', () => {
    fc.assert(
      fc.property(uuid, fc.nat(), fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-'), (id, position, char) => {
        const token = tokens.signReply(id);
        const at = position % token.length;
        fc.pre(token[at] !== char);
        expect(tokens.verifyReply(token.slice(0, at) + char + token.slice(at + 1)).ok).toBe(false);
      }),
    );
  });

  it('another secret is forged; an answer link is malformed; other addresses give no token', () => {
    const id = randomUUID();
    expect(createLinkTokens(randomBytes(32), 60).verifyReply(tokens.signReply(id))).toEqual({
      ok: false,
      reason: 'forged',
    });
    expect(tokens.verifyReply(tokens.sign({ question_id: id, person: 'ada' }, NOW))).toEqual({
      ok: false,
      reason: 'malformed',
    });
    expect(replyTokenFrom('desk+{token}@example.org', 'desk@example.org')).toBeNull();
    expect(replyTokenFrom('desk+{token}@example.org', 'other+abc@example.org')).toBeNull();
    expect(replyTokenFrom('desk+{token}@example.org', 'desk+abc@example.org.evil')).toBeNull();
    expect(() => replyAddress('desk@example.org', 'x')).toThrow(/\{token\}/);
    expect(() => replyAddress(`${'d'.repeat(30)}+{token}@example.org`, tokens.signReply(id))).toThrow(/64/);
  });
});

describe('the pages escape what they show', () => {
  it('escapeHtml leaves no markup character and reads back as the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const escaped = escapeHtml(text);
        expect(escaped).not.toMatch(/[<>"']/);
        expect(escaped.replace(/&(?!#\d+;)/g, '')).toBe(escaped);
        const back = escaped.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
        expect(back).toBe(text);
      }),
    );
  });
});
