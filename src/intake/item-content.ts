// What a message writes on a work item: a new item's description and payload, or a later message's
// note and payload entry. Bounded under the work service's limits (notes 10,000 characters, payload
// 64 KiB) and cut without splitting a character, since half of one is not storable (clean-text.ts).

import type { ClassifyResult } from '../classify/contract.js';
import { MAX_PAYLOAD_BYTES } from '../work/contract.js';
import { cutText } from './clean-text.js';
import type { ParsedMessage } from './mime.js';

const NOTE_EXCERPT_CHARS = 400;
const MAX_DESCRIPTION_CHARS = 2_000;
const MAX_THREAD_ENTRIES = 50;

export interface MailboxRef {
  id: string;
  name: string;
}

function sender(message: ParsedMessage): string {
  const from = message.from;
  if (!from) return 'an unknown sender';
  if (from.name && from.address) return `${from.name} <${from.address}>`;
  return from.address ?? from.name ?? 'an unknown sender';
}

export function describeItem(message: ParsedMessage, result: ClassifyResult): string {
  const task = result.task_description?.trim() || result.details.suggested_title?.trim();
  const subject = message.subject?.trim();
  const text = task || (subject ? `Email: ${subject}` : `Email from ${sender(message)}`);
  return cutText(text, MAX_DESCRIPTION_CHARS);
}

function emailRef(
  mailbox: MailboxRef,
  message: ParsedMessage,
  sourceRef: string,
  conversation: string,
  receivedAt: string | null,
) {
  return {
    mailbox_id: mailbox.id,
    mailbox: mailbox.name,
    source_ref: sourceRef,
    message_id: message.message_key,
    conversation_id: conversation,
    in_reply_to: message.in_reply_to,
    from: message.from,
    subject: message.subject,
    sent_at: message.sent_at,
    received_at: receivedAt,
    attachments: message.attachment_names,
  };
}

export function itemPayload(
  mailbox: MailboxRef,
  message: ParsedMessage,
  result: ClassifyResult,
  sourceRef: string,
  conversation: string,
  receivedAt: string | null,
): Record<string, unknown> {
  const payload = {
    email: emailRef(mailbox, message, sourceRef, conversation, receivedAt),
    classification: result,
    thread: [] as unknown[],
  };
  // The classification is model output: bounded like everything else that lands on an item.
  if (Buffer.byteLength(JSON.stringify(payload)) > MAX_PAYLOAD_BYTES) {
    return {
      ...payload,
      classification: {
        ...result,
        details: { ...result.details, key_points: [], next_steps: [] },
        reasoning: cutText(result.reasoning, 500),
      },
    };
  }
  return payload;
}

/** The first lines of the message's new text (quoted history left out by the classifier). */
export function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > NOTE_EXCERPT_CHARS ? `${cutText(flat, NOTE_EXCERPT_CHARS - 1)}…` : flat;
}

export function followUpNote(message: ParsedMessage, at: string, summary: string): string {
  return `Follow-up from ${sender(message)} at ${message.sent_at ?? at}${message.subject ? ` — ${message.subject}` : ''}:\n${summary}`;
}

/** Adds the message to the payload's thread, keeping the newest entries that fit. */
export function appendThreadEntry(payloadText: string | null, entry: Record<string, unknown>): string {
  let payload: Record<string, unknown> = {};
  try {
    const parsed = payloadText ? (JSON.parse(payloadText) as unknown) : {};
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) payload = parsed as Record<string, unknown>;
  } catch {
    // A payload someone replaced with something else: the thread starts over beside it.
  }
  const thread = Array.isArray(payload.thread) ? [...(payload.thread as unknown[]), entry] : [entry];
  let kept = thread.slice(-MAX_THREAD_ENTRIES);
  let text = JSON.stringify({ ...payload, thread: kept });
  while (Buffer.byteLength(text) > MAX_PAYLOAD_BYTES && kept.length > 0) {
    kept = kept.slice(1);
    text = JSON.stringify({ ...payload, thread: kept });
  }
  return text;
}

export function threadEntry(
  message: ParsedMessage,
  result: ClassifyResult,
  sourceRef: string,
  receivedAt: string | null,
  summary: string,
) {
  return {
    message_id: message.message_key,
    source_ref: sourceRef,
    from: message.from,
    subject: message.subject,
    sent_at: message.sent_at,
    received_at: receivedAt,
    category: result.category,
    needs_action: result.needs_action,
    priority: result.priority,
    summary,
  };
}
