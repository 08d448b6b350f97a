// A raw message (RFC 5322, MIME) becomes what the classification service reads: a Microsoft
// Graph message, the shape it already speaks, with the envelope, both bodies, the list headers,
// the attachment names and the thread. mailparser does the MIME; this file decides meaning.

import { createHash } from 'node:crypto';
import { type AddressObject, type EmailAddress, simpleParser } from 'mailparser';
import type { GraphEmailAddress, GraphMessage } from '../email/index.js';
import { cleanOptional, cleanText } from './clean-text.js';

/** Headers passed on to the classifier: the ones that say a message is bulk or automated. */
const PASSED_HEADERS = new Set([
  'list-unsubscribe',
  'list-unsubscribe-post',
  'list-id',
  'list-post',
  'precedence',
  'auto-submitted',
  'x-auto-response-suppress',
  'feedback-id',
  'x-campaign',
  'x-mailer',
]);
/** Headers kept apart for matching a reply to the desk's own mail, never shown to the classifier. */
const REPLY_HEADERS = new Set(['delivered-to', 'x-original-to', 'authentication-results']);
const MAX_REFERENCES = 50;
const MAX_REPLY_HEADERS = 20;
const MAX_ATTACHMENTS = 100;

export interface ParsedMessage {
  /** SHA-256 (hex) of the raw bytes. */
  source_hash: string;
  /** Message-ID as written (with its angle brackets), or null. */
  message_id: string | null;
  /** What the message is known by: its Message-ID, else `sha256:<source_hash>`. */
  message_key: string;
  in_reply_to: string | null;
  /** References, oldest first: the first is the thread's root. */
  references: string[];
  /** A thread id the source gives (Graph's conversationId); null for MIME, which has none. */
  thread: string | null;
  subject: string | null;
  from: { name: string | null; address: string | null } | null;
  sent_at: string | null;
  attachment_names: string[];
  graph: GraphMessage;
  /** Delivered-To, X-Original-To and Authentication-Results, top first, lower-cased names. */
  reply_headers: Array<{ name: string; value: string }>;
}

export class UnreadableMessage extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'UnreadableMessage';
  }
}

function idList(value: string | string[] | undefined): string[] {
  const all = Array.isArray(value) ? value : value ? value.split(/\s+/) : [];
  return all.map((id) => cleanText(id).trim()).filter((id) => id !== '');
}

function addresses(value: AddressObject | AddressObject[] | undefined): EmailAddress[] {
  const objects = Array.isArray(value) ? value : value ? [value] : [];
  // Groups ("undisclosed-recipients:;") hold their members one level down.
  return objects
    .flatMap((object) => object.value.flatMap((entry) => (entry.group ? entry.group : [entry])))
    .map((entry) => ({ ...entry, name: cleanText(entry.name ?? ''), address: cleanOptional(entry.address) }));
}

function toGraph(address: EmailAddress): GraphEmailAddress {
  return { emailAddress: { name: address.name || null, address: address.address || null } };
}

function isoDate(value: Date | undefined): string | null {
  return value && !Number.isNaN(value.getTime()) ? value.toISOString() : null;
}

/**
 * The thread a message belongs to: the root of its References, else what it replies to, else
 * itself. A reply that names only its parent is linked to the parent's thread later, from the
 * intake log (see pipeline.ts).
 */
export function conversationOf(
  message: Pick<ParsedMessage, 'thread' | 'references' | 'in_reply_to' | 'message_key'>,
): string {
  return message.thread ?? message.references[0] ?? message.in_reply_to ?? message.message_key;
}

export async function parseMessage(raw: Buffer, receivedAt: string | null): Promise<ParsedMessage> {
  const source_hash = createHash('sha256').update(raw).digest('hex');
  let parsed;
  try {
    parsed = await simpleParser(raw, { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true });
  } catch (error) {
    throw new UnreadableMessage(`not a readable MIME message: ${(error as Error).message}`);
  }
  const named = parsed.headerLines.filter((line) => /^[\x21-\x39\x3b-\x7e]+$/.test(line.key));
  // Every text taken from the message is cleaned here, where it enters (see clean-text.ts).
  const text = typeof parsed.text === 'string' ? cleanText(parsed.text) : '';
  const html = typeof parsed.html === 'string' ? cleanText(parsed.html) : '';
  const subject = cleanOptional(parsed.subject) ?? null;
  if (named.length === 0 && text.trim() === '' && html.trim() === '') {
    throw new UnreadableMessage('not a readable MIME message: no header and no body found');
  }
  const from = addresses(parsed.from)[0] ?? null;
  const message_id = cleanOptional(parsed.messageId)?.trim() || null;
  const references = idList(parsed.references).slice(0, MAX_REFERENCES);
  const in_reply_to = idList(parsed.inReplyTo)[0] ?? null;
  const attachment_names = parsed.attachments
    .map((attachment) => cleanOptional(attachment.filename)?.trim())
    .filter((name): name is string => Boolean(name))
    .slice(0, MAX_ATTACHMENTS);
  const headerValue = (line: { key: string; line: string }) => ({
    name: line.key.toLowerCase(),
    value: cleanText(line.line.slice(line.line.indexOf(':') + 1))
      .replace(/\r?\n[ \t]+/g, ' ')
      .trim(),
  });
  const headers = named.filter((line) => PASSED_HEADERS.has(line.key.toLowerCase())).map(headerValue);
  const reply_headers = named
    .filter((line) => REPLY_HEADERS.has(line.key.toLowerCase()))
    .slice(0, MAX_REPLY_HEADERS)
    .map(headerValue);
  const message_key = message_id ?? `sha256:${source_hash}`;
  const sent_at = isoDate(parsed.date);
  const message: ParsedMessage = {
    source_hash,
    message_id,
    message_key,
    in_reply_to,
    references,
    thread: null,
    subject,
    from: from ? { name: from.name || null, address: from.address || null } : null,
    sent_at,
    attachment_names,
    graph: {},
    reply_headers,
  };
  message.graph = {
    id: message_key,
    ...(message_id && { internetMessageId: message_id }),
    conversationId: conversationOf(message),
    subject,
    body: html.trim() !== '' ? { contentType: 'html', content: html } : { contentType: 'text', content: text },
    from: from ? toGraph(from) : null,
    toRecipients: addresses(parsed.to).map(toGraph),
    ccRecipients: addresses(parsed.cc).map(toGraph),
    replyTo: addresses(parsed.replyTo).map(toGraph),
    receivedDateTime: receivedAt,
    sentDateTime: sent_at,
    hasAttachments: attachment_names.length > 0,
    internetMessageHeaders: headers,
    ...(attachment_names.length > 0 && { attachments: attachment_names.map((name) => ({ name })) }),
  };
  return message;
}

/** A Graph message (from the delta query) as the pipeline reads it: it is already the classifier's shape. */
export function fromGraph(message: GraphMessage): ParsedMessage {
  // The @odata annotations say nothing about the mail; everything else is the message.
  const graph = Object.fromEntries(Object.entries(message).filter(([key]) => !key.startsWith('@'))) as GraphMessage;
  const source_hash = createHash('sha256').update(JSON.stringify(graph)).digest('hex');
  const message_id = graph.internetMessageId?.trim() || null;
  const address = graph.from?.emailAddress ?? graph.sender?.emailAddress ?? null;
  return {
    source_hash,
    message_id,
    message_key: message_id ?? `graph:${graph.id ?? source_hash}`,
    in_reply_to: null,
    references: [],
    thread: graph.conversationId?.trim() || null,
    subject: graph.subject ?? null,
    from: address ? { name: address.name ?? null, address: address.address ?? null } : null,
    sent_at: graph.sentDateTime ?? null,
    attachment_names: (graph.attachments ?? [])
      .map((attachment) => attachment?.name ?? '')
      .filter((name) => name !== ''),
    graph,
    reply_headers: (graph.internetMessageHeaders ?? [])
      .filter((header) => REPLY_HEADERS.has(header.name?.toLowerCase() ?? '') && typeof header.value === 'string')
      .slice(0, MAX_REPLY_HEADERS)
      .map((header) => ({ name: header.name!.toLowerCase(), value: header.value! })),
  };
}
