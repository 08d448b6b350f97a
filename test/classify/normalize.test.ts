import { describe, expect, it } from 'vitest';
import { fingerprintOf, stripSubjectPrefixes } from '../../src/classify/dedupe/fingerprint.js';
import { hasContent, looksLikeHtml, normalizeEmail, type GraphMessage } from '../../src/email/normalize.js';
import { fixtureEmail, fixtureJson } from './fixtures.js';

describe('normalizeEmail — Graph messages', () => {
  it('reads every envelope field of a full Graph message', () => {
    const email = fixtureEmail('graph_01_v1_message_get_concert_html.json');
    expect(email).toMatchObject({
      shape: 'graph',
      message_id: 'AAMkADhMGAAA=',
      message_key: '<MWHPR6E1BE060@MWHPR1120.namprd22.prod.outlook.com>',
      conversation_id: 'AAQkADOUpag6yWs=',
      subject: '9/9/2018: concert',
      from: { name: 'Adele Vance', address: 'adelev@contoso.OnMicrosoft.com' },
      to: [{ name: 'Alex Wilber', address: 'AlexW@contoso.OnMicrosoft.com' }],
      cc: [],
      received_at: '2018-09-09T03:15:08Z',
      sent_at: '2018-09-09T03:15:06Z',
      has_attachments: false,
      importance: 'normal',
      flag_status: 'notFlagged',
      is_read: true,
    });
    expect(email.body.text).toBe('The group represents Nevada.');
  });

  it('prefers uniqueBody over body', () => {
    const message = fixtureJson<GraphMessage>('graph_02_v1_message_get_welcome_text_body.json');
    const email = normalizeEmail({ ...message, body: { contentType: 'text', content: 'OLD QUOTED THREAD' } }, 6_000);
    expect(email.body.text).toContain('Would you like to choose a day');
    expect(email.body.text).not.toContain('OLD QUOTED THREAD');
    expect(email.message_key).toBe('AAMkAGI1AAAoZCfHAAA=');
    expect(email.from).toBeNull();
  });

  it('matches contentType ignoring case ("HTML")', () => {
    const email = fixtureEmail('graph_04_beta_message_get_mentions.json');
    expect(email.body.text).toContain('@Dana Swope,@Randi Welch, forgot to mention');
    expect(email.body.text).not.toContain('<p>');
    expect(email.conversation_id).toBeNull();
  });

  it('falls back to bodyPreview when the HTML body renders empty', () => {
    const email = fixtureEmail('graph_05_v1_mailfolder_list_myanalytics_empty_html_body.json');
    expect(email.body.text).toContain("We've got your highlights from last week");
    expect(email.message_key).toBeNull();
  });

  it('reads internet headers by lower-cased name', () => {
    const email = fixtureEmail('written/newsletter_weekly_digest.json');
    expect(email.headers['list-unsubscribe']).toBe('<https://devweekly.example/unsubscribe?u=42>');
  });

  it('takes a subject alone as content', () => {
    const email = normalizeEmail(
      { id: 'only-subject', subject: 'Lunch?', from: { emailAddress: { name: 'A', address: 'a@b.c' } } },
      6_000,
    );
    expect(hasContent(email)).toBe(true);
    expect(hasContent(normalizeEmail({ id: 'x' }, 6_000))).toBe(false);
  });
});

describe('normalizeEmail — simplified shape', () => {
  it('takes id and conversationId from the top level and detects an HTML body', () => {
    const email = normalizeEmail(
      {
        email_data: { subject: ' RE:  Hello ', body: '<p>Hi&nbsp;there</p><div style="display:none">secret</div>' },
        id: 'm1',
        conversationId: 'c1',
      },
      6_000,
    );
    expect(email).toMatchObject({
      shape: 'simplified',
      message_id: 'm1',
      message_key: 'm1',
      conversation_id: 'c1',
      subject: 'RE: Hello',
    });
    expect(email.body.text).toBe('Hi there');
    expect(email.body.hidden_text).toBe('secret');
  });

  it('keeps a plain-text body with angle brackets as text', () => {
    expect(looksLikeHtml('if a < b and c > d')).toBe(false);
    expect(normalizeEmail({ email_data: { body: 'if a < b and c > d' } }, 6_000).body.text).toBe('if a < b and c > d');
  });
});

describe('fingerprint', () => {
  const base = {
    id: '1',
    subject: 'Budget',
    from: { emailAddress: { address: 'Dana@Contoso.com' } },
    body: { contentType: 'text', content: 'Please approve.' },
  };

  it('is a SHA-256 hex that ignores reply prefixes, sender case and quoted history', () => {
    const first = fingerprintOf(normalizeEmail(base, 6_000));
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    const reply = normalizeEmail(
      {
        ...base,
        id: '2',
        subject: 'RE: Fwd: AW: Budget',
        from: { emailAddress: { address: 'dana@contoso.com' } },
        body: { contentType: 'text', content: 'Please approve.\n\nOn Mon, Jun 2, 2025, Bob wrote:\n> old' },
      },
      6_000,
    );
    expect(fingerprintOf(reply)).toBe(first);
  });

  it('changes when the sender, the subject or the body changes', () => {
    const first = fingerprintOf(normalizeEmail(base, 6_000));
    expect(
      fingerprintOf(normalizeEmail({ ...base, from: { emailAddress: { address: 'eve@evil.example' } } }, 6_000)),
    ).not.toBe(first);
    expect(fingerprintOf(normalizeEmail({ ...base, subject: 'Budget v2' }, 6_000))).not.toBe(first);
    expect(
      fingerprintOf(normalizeEmail({ ...base, body: { contentType: 'text', content: 'Please reject.' } }, 6_000)),
    ).not.toBe(first);
  });

  it('sees past the truncation budget: a change in the middle of a long body changes it', () => {
    const long = (middle: string): string => `${'start '.repeat(3_000)}${middle}${' end'.repeat(3_000)}`;
    const a = normalizeEmail({ ...base, body: { contentType: 'text', content: long('alpha') } }, 1_000);
    const b = normalizeEmail({ ...base, body: { contentType: 'text', content: long('omega') } }, 1_000);
    expect(a.body.text).toBe(b.body.text);
    expect(fingerprintOf(a)).not.toBe(fingerprintOf(b));
  });

  it('strips repeated reply and forward prefixes', () => {
    expect(stripSubjectPrefixes('Re: RE: Fw: FWD: AW: WG: Sv: Status')).toBe('Status');
    expect(stripSubjectPrefixes('Regarding the plan')).toBe('Regarding the plan');
  });
});
