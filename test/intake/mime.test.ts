import { describe, expect, it } from 'vitest';
import { normalizeEmail } from '../../src/email/normalize.js';
import { UnreadableMessage, conversationOf, parseMessage } from '../../src/intake/mime.js';
import { splitMbox, splitUpload } from '../../src/intake/uploads.js';
import { mail } from '../support/mail.js';

// A raw message becomes the classification input (sender, recipients, subject, text
// and HTML, List-Unsubscribe, attachment names, Message-ID, the thread); uploads split right.

describe('MIME to classification input', () => {
  it('carries the envelope, both bodies, the list headers, the attachments and the thread', async () => {
    const raw = mail({
      from: '"Dana Swope" <dana@contoso.com>',
      to: 'Support <support@example.com>, ops@example.com',
      subject: 'Re: Invoice 42',
      text: 'Plain part',
      html: '<p>HTML <b>part</b></p>',
      messageId: '<reply@contoso.com>',
      inReplyTo: '<parent@contoso.com>',
      references: ['<root@contoso.com>', '<parent@contoso.com>'],
      headers: {
        'List-Unsubscribe': '<https://contoso.com/unsub>,\r\n <mailto:unsub@contoso.com>',
        'X-Other': 'dropped',
      },
      attachments: [{ name: 'invoice-42.pdf', content: '%PDF' }],
    });
    const parsed = await parseMessage(Buffer.from(raw), '2025-06-10T09:00:00.000Z');
    expect(parsed).toMatchObject({
      message_id: '<reply@contoso.com>',
      message_key: '<reply@contoso.com>',
      in_reply_to: '<parent@contoso.com>',
      references: ['<root@contoso.com>', '<parent@contoso.com>'],
      subject: 'Re: Invoice 42',
      from: { name: 'Dana Swope', address: 'dana@contoso.com' },
      attachment_names: ['invoice-42.pdf'],
    });
    expect(conversationOf(parsed)).toBe('<root@contoso.com>');
    expect(parsed.graph).toMatchObject({
      internetMessageId: '<reply@contoso.com>',
      conversationId: '<root@contoso.com>',
      body: { contentType: 'html', content: expect.stringContaining('<b>part</b>') },
      toRecipients: [
        { emailAddress: { name: 'Support', address: 'support@example.com' } },
        { emailAddress: { address: 'ops@example.com' } },
      ],
      receivedDateTime: '2025-06-10T09:00:00.000Z',
      hasAttachments: true,
      attachments: [{ name: 'invoice-42.pdf' }],
    });
    expect(parsed.graph.internetMessageHeaders).toEqual([
      { name: 'list-unsubscribe', value: '<https://contoso.com/unsub>, <mailto:unsub@contoso.com>' },
    ]);
    // What the classifier reads of it.
    const email = normalizeEmail(parsed.graph, 6_000);
    expect(email.headers['list-unsubscribe']).toContain('unsub');
    expect(email.attachment_names).toEqual(['invoice-42.pdf']);
    expect(email.body.text).toContain('HTML part');
  });

  it('keys a message without Message-ID by its bytes, and a reply naming only its parent by the parent', async () => {
    const bare = await parseMessage(Buffer.from('Subject: no id\r\n\r\nhello\r\n'), null);
    expect(bare.message_id).toBeNull();
    expect(bare.message_key).toBe(`sha256:${bare.source_hash}`);
    expect(conversationOf(bare)).toBe(bare.message_key);
    const child = await parseMessage(Buffer.from(mail({ subject: 'Re: x', text: 'y', inReplyTo: '<parent@x>' })), null);
    expect(conversationOf(child)).toBe('<parent@x>');
  });

  it('refuses bytes with no header and no body as unreadable', async () => {
    await expect(parseMessage(Buffer.from([0, 1, 0xff, 0xfe, 0, 10, 13, 0]), null)).rejects.toBeInstanceOf(
      UnreadableMessage,
    );
    await expect(parseMessage(Buffer.from('just words, no headers\r\n'), null)).rejects.toThrow(
      /no header and no body/,
    );
  });
});

describe('uploads', () => {
  it('splits an mbox on its From lines and unquotes >From', () => {
    const mbox = Buffer.from(
      'From a@x Mon Jan  1 00:00:00 2024\nSubject: one\n\nbody one\n>From the quoted line\n\nFrom b@x Mon Jan  1 00:00:01 2024\nSubject: two\n\nbody two\n',
      'latin1',
    );
    const messages = splitMbox(mbox).map((message) => message.toString('latin1'));
    expect(messages).toEqual(['Subject: one\n\nbody one\nFrom the quoted line\n', 'Subject: two\n\nbody two']);
  });

  it('takes message/rfc822 as one message, sniffs octet-stream, and refuses an empty upload', () => {
    expect(splitUpload(Buffer.from('Subject: a\r\n\r\nFrom here on\r\n'), 'message/rfc822')).toHaveLength(1);
    expect(
      splitUpload(
        Buffer.from('From a@x date\nSubject: a\n\nb\nFrom b@x date\nSubject: c\n\nd\n'),
        'application/octet-stream',
      ),
    ).toHaveLength(2);
    expect(() => splitUpload(Buffer.from('  \r\n'), 'message/rfc822')).toThrow(/holds no message/);
  });
});
