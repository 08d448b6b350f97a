// What ties an incoming mail to the question it answers, and whether its sender may answer:
// read from the message as intake parses it (mime.ts, or a Graph message). Pure.

import type { GraphMessage } from '../../email/index.js';

/** The parts of intake's parsed message a reply is matched on (intake's ParsedMessage fits). */
export interface ReplyEnvelope {
  in_reply_to: string | null;
  references: readonly string[];
  graph: Pick<GraphMessage, 'toRecipients' | 'ccRecipients' | 'internetMessageHeaders'>;
}

export interface ReplyKeys {
  /** Every recipient address, To and Cc first, then Delivered-To and X-Original-To; no repeats. */
  recipients: string[];
  /** In-Reply-To first, then References newest first; normalized (normalizeMessageId); no repeats. */
  message_ids: string[];
}

// Headers that name the mailbox a message was delivered to, which a Bcc or an alias hides from To.
const DELIVERY_HEADERS = ['delivered-to', 'x-original-to'];
const ADDRESS = /<\s*([^<>\s@]+@[^<>\s@]+?)\s*>|([^\s<>,;:"()[\]@]+@[^\s<>,;:"()[\]@]+)/g;
const MAX_IDS = 60;

/**
 * An address as compared: trimmed, the domain lower-cased. The local part keeps its case, as it
 * may carry a case-sensitive token ("desk+AbC@example.org"); compare people with sameAddress.
 */
export function normalizeAddress(address: string): string {
  const trimmed = address.trim();
  const at = trimmed.lastIndexOf('@');
  return at === -1 ? trimmed : `${trimmed.slice(0, at)}@${trimmed.slice(at + 1).toLowerCase()}`;
}

/** Whether two addresses name the same person: compared whole and case-insensitively. */
export function sameAddress(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

/** A Message-ID as compared: angle brackets and spaces removed, the domain part lower-cased. */
export function normalizeMessageId(id: string): string {
  return normalizeAddress(id.trim().replace(/^<+|>+$/g, ''));
}

function headerValues(envelope: ReplyEnvelope, name: string): string[] {
  return (envelope.graph.internetMessageHeaders ?? [])
    .filter((header) => header.name?.toLowerCase() === name && typeof header.value === 'string')
    .map((header) => header.value!);
}

function addressesIn(value: string): string[] {
  return [...value.matchAll(ADDRESS)].map((match) => match[1] ?? match[2]!);
}

/** The ids in an In-Reply-To or References value: "<a@b> <c@d>", or bare ids between spaces. */
function messageIdsIn(value: string): string[] {
  const bracketed = [...value.matchAll(/<([^<>]+)>/g)].map((match) => match[1]!);
  return bracketed.length > 0 ? bracketed : value.split(/[\s,]+/);
}

function unique(values: string[]): string[] {
  return [...new Set(values.filter((value) => value !== ''))];
}

/**
 * The recipient addresses (a reply token rides in one, "desk+{token}@…") and the message ids
 * the reply names (one may be the Message-ID the desk gave the question's email). Headers are
 * read when intake passes them on; a Graph message carries In-Reply-To only among its headers.
 */
export function replyKeys(envelope: ReplyEnvelope): ReplyKeys {
  const listed = [...(envelope.graph.toRecipients ?? []), ...(envelope.graph.ccRecipients ?? [])]
    .map((recipient) => recipient?.emailAddress?.address ?? '')
    .filter((address) => address.includes('@'));
  const headed = ['to', 'cc', ...DELIVERY_HEADERS].flatMap((name) => headerValues(envelope, name).flatMap(addressesIn));
  const replied = [
    ...(envelope.in_reply_to === null ? [] : [envelope.in_reply_to]),
    ...headerValues(envelope, 'in-reply-to').flatMap(messageIdsIn),
  ];
  const referenced = [...envelope.references, ...headerValues(envelope, 'references').flatMap(messageIdsIn)];
  return {
    recipients: unique([...listed, ...headed].map(normalizeAddress)),
    message_ids: unique(
      [...replied, ...referenced.reverse()].flatMap(messageIdsIn).map(normalizeMessageId).slice(0, MAX_IDS),
    ),
  };
}

export const SENDER_VERDICTS = ['verified', 'mismatch', 'failed-auth'] as const;
export type SenderVerdict = (typeof SENDER_VERDICTS)[number];

/**
 * Whether a reply comes from the person its token names. `mismatch`: the From address is not
 * theirs (compared case-insensitively). `failed-auth`: it is, but the receiving mailbox's
 * Authentication-Results say the address is forged: dmarc=fail, or spf=fail with no passing
 * DKIM signature. Pass the header values in message order, top first: only the first is read,
 * the one the receiving server added last; those below it may have been written by anyone.
 */
export function senderVerdict(
  fromAddress: string | null,
  expectedAddress: string,
  authenticationResults: string | readonly string[] | undefined,
): SenderVerdict {
  if (fromAddress === null || !sameAddress(fromAddress, expectedAddress)) return 'mismatch';
  const header = typeof authenticationResults === 'string' ? authenticationResults : authenticationResults?.[0];
  if (header === undefined) return 'verified';
  const results = methodResults(header);
  if (results.dmarc.includes('fail')) return 'failed-auth';
  if (results.dmarc.includes('pass')) return 'verified';
  const dkimPassed = results.dkim.includes('pass');
  return results.spf.includes('fail') && !dkimPassed ? 'failed-auth' : 'verified';
}

/** The results per method of one Authentication-Results value (RFC 8601), comments removed. */
function methodResults(header: string): Record<'dmarc' | 'spf' | 'dkim', string[]> {
  // The value opens with the server's id ("mx.example.org;"); results follow it.
  const body = header.replace(/\([^()]*\)/g, ' ');
  const semicolon = body.indexOf(';');
  const results = semicolon === -1 ? '' : body.slice(semicolon + 1);
  const found: Record<'dmarc' | 'spf' | 'dkim', string[]> = { dmarc: [], spf: [], dkim: [] };
  for (const match of results.matchAll(/(?:^|[;\s])(dmarc|spf|dkim)\s*=\s*([a-z]+)/gi)) {
    found[match[1]!.toLowerCase() as 'dmarc' | 'spf' | 'dkim'].push(match[2]!.toLowerCase());
  }
  return found;
}
