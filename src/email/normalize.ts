// Both request shapes become one `Email`: everything downstream (dedupe, prompt, rules) reads
// only this. The HTTP schema has already checked types; this decides meaning.

import { collapseWhitespace, prepareBody, stripInvisible, type BodyFormat, type PreparedBody } from './body-text.js';

export interface GraphEmailAddress {
  emailAddress?: { name?: string | null; address?: string | null } | null;
}

export interface GraphItemBody {
  contentType?: string | null;
  content?: string | null;
}

/** A Microsoft Graph message; the many fields we do not read are passed through untouched. */
export interface GraphMessage {
  id?: string | null;
  internetMessageId?: string | null;
  conversationId?: string | null;
  subject?: string | null;
  bodyPreview?: string | null;
  body?: GraphItemBody | null;
  uniqueBody?: GraphItemBody | null;
  sender?: GraphEmailAddress | null;
  from?: GraphEmailAddress | null;
  toRecipients?: GraphEmailAddress[] | null;
  ccRecipients?: GraphEmailAddress[] | null;
  bccRecipients?: GraphEmailAddress[] | null;
  replyTo?: GraphEmailAddress[] | null;
  receivedDateTime?: string | null;
  sentDateTime?: string | null;
  hasAttachments?: boolean | null;
  importance?: string | null;
  isRead?: boolean | null;
  flag?: { flagStatus?: string | null } | null;
  internetMessageHeaders?: Array<{ name?: string | null; value?: string | null }> | null;
  /** Graph lists attachments only when asked to expand them; only their names are read. */
  attachments?: Array<{ name?: string | null }> | null;
}

export interface SimplifiedEmail {
  email_data: { subject?: string | null; body?: string | null };
  id?: string | null;
  conversationId?: string | null;
}

export type EmailInput = SimplifiedEmail | GraphMessage;

export interface Mailbox {
  name: string | null;
  address: string | null;
}

export interface Email {
  shape: 'simplified' | 'graph';
  /** The request's `id`. */
  message_id: string | null;
  /** `internetMessageId` when present, else `id`: what dedupe matches a message on. */
  message_key: string | null;
  conversation_id: string | null;
  subject: string;
  body: PreparedBody;
  /** The author (`from`, else `sender`). */
  from: Mailbox | null;
  sender: Mailbox | null;
  to: Mailbox[];
  cc: Mailbox[];
  bcc: Mailbox[];
  reply_to: Mailbox[];
  received_at: string | null;
  sent_at: string | null;
  has_attachments: boolean | null;
  importance: string | null;
  flag_status: string | null;
  is_read: boolean | null;
  /** Internet headers by lower-cased name, when the caller selected them. */
  headers: Readonly<Record<string, string>>;
  /** File names of the attachments, when the caller listed them. */
  attachment_names: string[];
}

const SUBJECT_MAX_CHARS = 1_000;

export function isSimplified(input: EmailInput): input is SimplifiedEmail {
  const data = (input as Partial<SimplifiedEmail>).email_data;
  return typeof data === 'object' && data !== null;
}

export function normalizeEmail(input: EmailInput, maxChars: number): Email {
  return isSimplified(input) ? fromSimplified(input, maxChars) : fromGraph(input, maxChars);
}

function fromSimplified(input: SimplifiedEmail, maxChars: number): Email {
  const raw = input.email_data.body ?? '';
  return {
    ...emptyEnvelope(),
    shape: 'simplified',
    message_id: text(input.id),
    message_key: text(input.id),
    conversation_id: text(input.conversationId),
    subject: cleanSubject(input.email_data.subject),
    body: prepareBody(raw, looksLikeHtml(raw) ? 'html' : 'text', maxChars),
  };
}

function fromGraph(input: GraphMessage, maxChars: number): Email {
  const from = mailbox(input.from) ?? mailbox(input.sender);
  return {
    shape: 'graph',
    message_id: text(input.id),
    message_key: text(input.internetMessageId) ?? text(input.id),
    conversation_id: text(input.conversationId),
    subject: cleanSubject(input.subject),
    body: graphBody(input, maxChars),
    from,
    sender: mailbox(input.sender) ?? from,
    to: mailboxes(input.toRecipients),
    cc: mailboxes(input.ccRecipients),
    bcc: mailboxes(input.bccRecipients),
    reply_to: mailboxes(input.replyTo),
    received_at: text(input.receivedDateTime),
    sent_at: text(input.sentDateTime),
    has_attachments: typeof input.hasAttachments === 'boolean' ? input.hasAttachments : null,
    importance: text(input.importance)?.toLowerCase() ?? null,
    flag_status: text(input.flag?.flagStatus),
    is_read: typeof input.isRead === 'boolean' ? input.isRead : null,
    headers: headerMap(input.internetMessageHeaders),
    attachment_names: attachmentNames(input.attachments),
  };
}

/**
 * `uniqueBody` holds only the new part of a thread message, so it wins; a body that renders
 * to nothing (Graph often sends an empty HTML shell) falls back to the next source.
 */
function graphBody(input: GraphMessage, maxChars: number): PreparedBody {
  const candidates: Array<{ content: string; format: BodyFormat }> = [];
  for (const body of [input.uniqueBody, input.body]) {
    if (body && typeof body.content === 'string' && body.content.trim() !== '') {
      candidates.push({ content: body.content, format: body.contentType?.toLowerCase() === 'html' ? 'html' : 'text' });
    }
  }
  for (const candidate of candidates) {
    const prepared = prepareBody(candidate.content, candidate.format, maxChars);
    if (/[\p{L}\p{N}]/u.test(prepared.full_text)) return prepared;
  }
  return prepareBody(input.bodyPreview ?? '', 'text', maxChars);
}

/** Whether an email has anything to classify: a subject or some body text. */
export function hasContent(email: Email): boolean {
  return email.subject !== '' || email.body.full_text !== '';
}

function emptyEnvelope(): Omit<Email, 'shape' | 'message_id' | 'message_key' | 'conversation_id' | 'subject' | 'body'> {
  return {
    from: null,
    sender: null,
    to: [],
    cc: [],
    bcc: [],
    reply_to: [],
    received_at: null,
    sent_at: null,
    has_attachments: null,
    importance: null,
    flag_status: null,
    is_read: null,
    headers: {},
    attachment_names: [],
  };
}

const HTML_TAG =
  /<(?:html|head|body|div|p|br|span|a|b|i|u|strong|em|font|table|tr|td|th|ul|ol|li|h[1-6]|img|blockquote|style|meta|center|hr)\b[^<>]*>/i;

/** The simplified shape does not say whether its body is HTML; markup says it for it. */
export function looksLikeHtml(body: string): boolean {
  return HTML_TAG.test(body.slice(0, 100_000));
}

function cleanSubject(subject: string | null | undefined): string {
  return collapseWhitespace(stripInvisible(subject ?? ''))
    .replace(/\n/g, ' ')
    .slice(0, SUBJECT_MAX_CHARS);
}

function text(value: string | null | undefined): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

function mailbox(value: GraphEmailAddress | null | undefined): Mailbox | null {
  const address = value?.emailAddress;
  if (!address) return null;
  const name = text(stripInvisible(address.name ?? ''));
  const email = text(address.address);
  return name === null && email === null ? null : { name, address: email };
}

function mailboxes(values: GraphEmailAddress[] | null | undefined): Mailbox[] {
  return (values ?? []).map(mailbox).filter((value): value is Mailbox => value !== null);
}

function headerMap(headers: GraphMessage['internetMessageHeaders']): Record<string, string> {
  const map: Record<string, string> = {};
  for (const header of headers ?? []) {
    const name = text(header.name)?.toLowerCase();
    if (name && typeof header.value === 'string') map[name] = header.value;
  }
  return map;
}

const ATTACHMENTS_KEPT = 50;

function attachmentNames(attachments: GraphMessage['attachments']): string[] {
  if (!Array.isArray(attachments)) return [];
  return attachments
    .map((attachment) =>
      attachment && typeof attachment.name === 'string' ? text(stripInvisible(attachment.name)) : null,
    )
    .filter((name): name is string => name !== null)
    .slice(0, ATTACHMENTS_KEPT);
}
