import { type AddressObject, type ParsedMail, simpleParser } from 'mailparser';
import type { ClassifyRequest } from '../classify/contract.js';
import { UsageError } from './context.js';

// What `agentdesk classify` sends: a Graph message given as JSON passes through as it is; a
// MIME message (.eml) is parsed and written as the Graph message it would be, so the service
// sees one shape and its dedupe, rules and prompt read the same fields for both.

type GraphAddress = { emailAddress: { name: string | null; address: string | null } };

function addresses(field: AddressObject | AddressObject[] | undefined): GraphAddress[] {
  const objects = field === undefined ? [] : Array.isArray(field) ? field : [field];
  return objects.flatMap((object) =>
    object.value.flatMap((entry) =>
      (entry.group ?? [entry]).map((one) => ({
        emailAddress: { name: one.name || null, address: one.address ?? null },
      })),
    ),
  );
}

/**
 * The thread a MIME message belongs to, as Graph's conversationId would group it: the first
 * message named in References (the thread's root), else the one it replies to, else itself.
 */
function threadOf(mail: ParsedMail): string | null {
  const references =
    mail.references === undefined
      ? []
      : Array.isArray(mail.references)
        ? mail.references
        : mail.references.split(/\s+/);
  return references.find(Boolean) ?? mail.inReplyTo ?? mail.messageId ?? null;
}

/** The header lines as Graph lists them: unfolded, value after the colon. */
function headerList(mail: ParsedMail): Array<{ name: string; value: string }> {
  return mail.headerLines.map(({ key, line }) => {
    const colon = line.indexOf(':');
    return {
      name: colon === -1 ? key : line.slice(0, colon),
      value: (colon === -1 ? line : line.slice(colon + 1)).replace(/\r?\n[ \t]+/g, ' ').trim(),
    };
  });
}

export async function graphMessageOfMime(raw: Buffer): Promise<ClassifyRequest> {
  const mail = await simpleParser(raw, { skipImageLinks: true });
  const html = typeof mail.html === 'string' ? mail.html : null;
  const date = mail.date && !Number.isNaN(mail.date.getTime()) ? mail.date.toISOString() : null;
  const from = addresses(mail.from)[0] ?? null;
  return {
    internetMessageId: mail.messageId ?? null,
    conversationId: threadOf(mail),
    subject: mail.subject ?? null,
    body: html !== null ? { contentType: 'html', content: html } : { contentType: 'text', content: mail.text ?? '' },
    from,
    sender: from,
    toRecipients: addresses(mail.to),
    ccRecipients: addresses(mail.cc),
    replyTo: addresses(mail.replyTo),
    sentDateTime: date,
    receivedDateTime: date,
    hasAttachments: mail.attachments.some((attachment) => !attachment.related),
    internetMessageHeaders: headerList(mail),
  };
}

/**
 * JSON when the text starts as a JSON object does (a Graph message or the simplified shape),
 * MIME otherwise; the file's name does not decide, so `-` works for both.
 */
export async function emailOfFile(raw: Buffer, name: string): Promise<ClassifyRequest> {
  const text = raw.toString('utf8').replace(/^\uFEFF/, '');
  if (text.trimStart().startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new UsageError(`${name} starts like JSON but is not: ${(error as Error).message}`);
    }
    return parsed as ClassifyRequest;
  }
  if (!/^[\x21-\x39\x3b-\x7e]+:/m.test(text.slice(0, 4_096))) {
    throw new UsageError(`${name} is neither a JSON message nor a MIME message (.eml): no header lines at its start`);
  }
  return graphMessageOfMime(raw);
}
