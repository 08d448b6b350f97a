import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeMessageId, replyKeys, senderVerdict, type ReplyEnvelope } from '../../src/notify/index.js';
import { parseMessage } from '../../src/intake/mime.js';

// What ties a reply to its question (recipient token, message ids) and whether its sender may answer.

const address = (value: string) => ({ emailAddress: { name: null, address: value } });

function envelope(
  overrides: Partial<ReplyEnvelope> & { headers?: Array<{ name: string; value: string }> },
): ReplyEnvelope {
  return {
    in_reply_to: overrides.in_reply_to ?? null,
    references: overrides.references ?? [],
    graph: {
      toRecipients: overrides.graph?.toRecipients ?? [],
      ccRecipients: overrides.graph?.ccRecipients ?? [],
      internetMessageHeaders: overrides.headers ?? overrides.graph?.internetMessageHeaders ?? [],
    },
  };
}

describe('replyKeys', () => {
  it('lists To and Cc, then Delivered-To and X-Original-To, the domain lower-cased and the token kept as written', () => {
    const keys = replyKeys(
      envelope({
        graph: {
          toRecipients: [address('Desk+Q1.AbC_-x@Example.ORG')],
          ccRecipients: [address('bob@example.org'), { emailAddress: { name: 'No address', address: null } }],
        },
        headers: [
          { name: 'delivered-to', value: 'desk+Q2.tok@mail.example.org' },
          { name: 'X-Original-To', value: 'Ann <desk+Q3.tok@EXAMPLE.org>' },
          { name: 'to', value: '"Desk" <Desk+Q1.AbC_-x@example.org>, undisclosed-recipients:;' },
        ],
      }),
    );
    expect(keys.recipients).toEqual([
      'Desk+Q1.AbC_-x@example.org',
      'bob@example.org',
      'desk+Q2.tok@mail.example.org',
      'desk+Q3.tok@example.org',
    ]);
  });

  it('lists In-Reply-To first, then References newest first, normalized and without repeats', () => {
    const keys = replyKeys(
      envelope({
        in_reply_to: '<Q1.Ann@Desk.Example.ORG>',
        references: ['<root@Mail.example.org>', '<middle@x.org>', '<Q1.Ann@desk.example.org>'],
      }),
    );
    expect(keys.message_ids).toEqual(['Q1.Ann@desk.example.org', 'middle@x.org', 'root@mail.example.org']);
  });

  it('reads In-Reply-To and References from the headers (a Graph message carries them only there)', () => {
    const keys = replyKeys(
      envelope({
        headers: [
          { name: 'In-Reply-To', value: '<q9@desk.example.org>' },
          { name: 'References', value: '<a@b.org>\r\n <q9@DESK.example.org>' },
        ],
      }),
    );
    expect(keys.message_ids).toEqual(['q9@desk.example.org', 'a@b.org']);
  });

  it('reads what intake parses from a raw reply', async () => {
    const raw = [
      'From: Ann Example <Ann@Example.org>',
      'To: "agentdesk" <desk+Q1.tok@example.org>',
      'Cc: bob@example.org',
      'Subject: Re: [agentdesk] build asks: which plan?',
      'Message-ID: <reply-1@mail.example.org>',
      'In-Reply-To: <q1.ann@desk.example.org>',
      'References: <thread@example.org> <q1.ann@desk.example.org>',
      'Content-Type: text/plain; charset=utf-8',
      '',
      '2',
      '',
      'On Mon, 3 Nov 2026 at 10:02, agentdesk <desk+Q1.tok@example.org> wrote:',
      '> Which plan?',
      '',
    ].join('\r\n');
    const message = await parseMessage(Buffer.from(raw), null);
    expect(replyKeys(message)).toEqual({
      recipients: ['desk+Q1.tok@example.org', 'bob@example.org'],
      message_ids: ['q1.ann@desk.example.org', 'thread@example.org'],
    });
  });

  it('never throws on arbitrary header values', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.array(fc.string(), { maxLength: 5 }),
        fc.string(),
        (inReplyTo, references, header) => {
          const keys = replyKeys(
            envelope({ in_reply_to: inReplyTo, references, headers: [{ name: 'references', value: header }] }),
          );
          for (const id of keys.message_ids) expect(id).not.toMatch(/^<|>$/);
        },
      ),
    );
  });
});

describe('normalizeMessageId', () => {
  it('removes the angle brackets and lower-cases the domain only', () => {
    expect(normalizeMessageId(' <AbC.123@Desk.Example.ORG> ')).toBe('AbC.123@desk.example.org');
    expect(normalizeMessageId('no-domain')).toBe('no-domain');
  });
});

describe('senderVerdict', () => {
  it('verifies the named person, compared case-insensitively, when no results are given', () => {
    expect(senderVerdict('Ann@Example.ORG', 'ann@example.org', undefined)).toBe('verified');
  });

  it('is a mismatch for anyone else or no sender', () => {
    expect(senderVerdict('mallory@example.org', 'ann@example.org', undefined)).toBe('mismatch');
    expect(senderVerdict(null, 'ann@example.org', undefined)).toBe('mismatch');
    expect(senderVerdict('ann@example.org.evil', 'ann@example.org', 'mx; dmarc=pass')).toBe('mismatch');
  });

  it.each([
    ['dmarc=fail', 'mx.example.org; dmarc=fail (p=reject dis=none) header.from=example.org', 'failed-auth'],
    ['spf=fail, dkim=none', 'mx.example.org; spf=fail smtp.mailfrom=example.org; dkim=none', 'failed-auth'],
    ['spf=fail, dkim=fail', 'mx.example.org;\r\n spf=fail smtp.mailfrom=x; dkim=fail header.d=x', 'failed-auth'],
    ['spf=fail, no dkim', 'mx.example.org; spf=fail smtp.mailfrom=example.org', 'failed-auth'],
    ['spf=fail but a dkim signature passes', 'mx; spf=fail; dkim=fail header.d=a; dkim=pass header.d=b', 'verified'],
    ['dmarc=pass', 'mx.example.org; dmarc=pass; spf=fail', 'verified'],
    ['all pass', 'mx.example.org; dkim=pass header.d=example.org; spf=pass; dmarc=pass', 'verified'],
    ['spf=softfail only', 'mx.example.org; spf=softfail; dkim=none', 'verified'],
    ['a comment that says fail', 'mx.example.org (dmarc=fail is what they say); spf=pass', 'verified'],
    ['no results', 'mx.example.org; none', 'verified'],
  ])('with %s: %s', (_case, header, verdict) => {
    expect(senderVerdict('ann@example.org', 'ann@example.org', header)).toBe(verdict);
    expect(senderVerdict('ann@example.org', 'ann@example.org', [header])).toBe(verdict);
  });

  it('reads only the topmost value, the one the receiving server added', () => {
    const receiving = 'mx.desk.example.org; dmarc=fail header.from=example.org';
    const forged = 'mx.elsewhere; dmarc=pass';
    expect(senderVerdict('ann@example.org', 'ann@example.org', [receiving, forged])).toBe('failed-auth');
    expect(senderVerdict('ann@example.org', 'ann@example.org', [forged, receiving])).toBe('verified');
  });
});
