// What a recognised reply to the desk's mail does: the answer it gives, or why it answers nothing
// (which then becomes a comment on the item). Pure: intake's commit reads the question and the
// message, and applies the verdict through the conversation's answer.

import { type Answer, REVIEW_OPTIONS } from '../../conversation/contract.js';
import { renderHtml } from '../../email/index.js';
import { readAnswer, readReview } from './answers.js';
import { type ReplyEnvelope, senderVerdict } from './reply-keys.js';
import { replyText } from './reply-text.js';

/** The parts of the question a reply is judged against. */
export interface RepliedQuestion {
  kind: 'question' | 'review';
  status: 'open' | 'answered' | 'moot';
  /** The offered options, or null for a free answer. */
  options: readonly string[] | null;
}

/** The reply as intake parsed it (its ParsedMessage fits). */
export interface ReplyMessage extends ReplyEnvelope {
  from: { address: string | null } | null;
  graph: ReplyEnvelope['graph'] & { body?: { contentType?: string | null; content?: string | null } | null };
  reply_headers: ReadonlyArray<{ name: string; value: string }>;
}

/** `unverified`: refused for who sent it (its token or its sender), not for what it says. */
export type ReplyVerdict = { kind: 'answer'; input: Answer } | { kind: 'refused'; why: string; unverified: boolean };

/** The reply's own text: its plain body, or its HTML rendered, without quotes and signature. */
export function ownText(message: ReplyMessage): string {
  const body = message.graph.body;
  const content = body?.content ?? '';
  return replyText(body?.contentType === 'html' ? renderHtml(content).text : content);
}

/**
 * `refused`: a reason found before reading the reply (a forged or expired token). `address`:
 * where the desk's mail went, so the only sender whose reply may answer.
 */
export function decideReply(
  question: RepliedQuestion,
  message: ReplyMessage,
  address: string,
  refused: string | null,
): ReplyVerdict {
  if (refused !== null) return { kind: 'refused', why: refused, unverified: true };
  const authentication = message.reply_headers
    .filter((header) => header.name === 'authentication-results')
    .map((header) => header.value);
  const sender = senderVerdict(message.from?.address ?? null, address, authentication);
  if (sender === 'mismatch')
    return { kind: 'refused', why: `its sender is not ${address}, to whom the question was sent`, unverified: true };
  if (sender === 'failed-auth')
    return { kind: 'refused', why: "the receiving mailbox could not verify the sender's address", unverified: true };
  if (question.status === 'answered')
    return { kind: 'refused', why: 'the question was already answered', unverified: false };
  if (question.status === 'moot')
    return { kind: 'refused', why: 'the question was closed: its work item ended', unverified: false };
  const text = ownText(message);
  if (text === '')
    return { kind: 'refused', why: 'the reply holds no text of its own (only the quoted mail)', unverified: false };
  if (question.kind === 'review') {
    const review = readReview(text) ?? reviewByOption(text, question.options);
    if (review === null)
      return {
        kind: 'refused',
        why: 'its first word neither approves nor returns the work (approve / return)',
        unverified: false,
      };
    if (review.decision === 'approve')
      return { kind: 'answer', input: { option: REVIEW_OPTIONS.approve, ...(review.note && { answer: review.note }) } };
    if (review.reason === null)
      return { kind: 'refused', why: 'a return must say why: write the reason after "return"', unverified: false };
    return { kind: 'answer', input: { option: REVIEW_OPTIONS.return, answer: review.reason } };
  }
  const read = readAnswer(text, question.options);
  if ('empty' in read)
    return { kind: 'refused', why: 'the reply holds no text of its own (only the quoted mail)', unverified: false };
  if ('unmatched' in read)
    return {
      kind: 'refused',
      why: 'its first line names none of the options (by its words or its number)',
      unverified: false,
    };
  if (read.option === null) return { kind: 'answer', input: { answer: read.answer } };
  return { kind: 'answer', input: { option: read.option, ...(read.answer !== null && { answer: read.answer }) } };
}

/** A review answered by the option's number or exact word ("1", "Return: …"), as the buttons name them. */
function reviewByOption(text: string, options: readonly string[] | null): ReturnType<typeof readReview> {
  const read = readAnswer(text, options);
  if (!('option' in read) || read.option === null) return null;
  return read.option === REVIEW_OPTIONS.approve
    ? { decision: 'approve', note: read.answer }
    : { decision: 'return', reason: read.answer };
}
