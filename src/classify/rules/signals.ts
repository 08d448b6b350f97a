// What the offline classifier looks for. Each signal is a named, deterministic test over the
// envelope or the text; the names are what `details.source_signals` reports.

import type { Email } from '../normalize.js';

export const SIGNAL_NAMES = [
  'direct_request',
  'question_to_reader',
  'deadline',
  'urgent_wording',
  'invoice',
  'payment_due',
  'receipt',
  'order_or_shipping',
  'subscription_or_trial',
  'meeting_invitation',
  'meeting_scheduling',
  'list_unsubscribe_header',
  'unsubscribe_link',
  'no_reply_sender',
  'automated_sender',
  'bulk_sender',
  'automated_wording',
  'promotional_wording',
  'newsletter_wording',
  'spam_wording',
  'reply_to_mismatch',
  'fyi_wording',
  'high_importance',
  'flagged',
  'has_attachments',
] as const;
export type SignalName = (typeof SIGNAL_NAMES)[number];

export interface Signals {
  /** How many times (or distinct ways) each signal matched; absent means zero. */
  counts: Partial<Record<SignalName, number>>;
  /** Sentences that ask the reader for something, in order. */
  requests: string[];
  sentences: string[];
}

const MONTH = '(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const WEEKDAY = '(?:mon|tues|wednes|thurs|fri|satur|sun)day';
const DATE_WORDS = `(?:today|tonight|tomorrow|eod|cob|end of (?:the )?(?:day|week|month|quarter)|${WEEKDAY}(?: \\d{1,2}(?::\\d{2})?\\s?(?:am|pm))?|next week|this week|noon|midnight|${MONTH}\\.? \\d{1,2}(?:st|nd|rd|th)?(?:,? \\d{4})?|\\d{1,2}(?:st|nd|rd|th)? (?:of )?${MONTH}(?: \\d{4})?|\\d{4}-\\d{2}-\\d{2}|\\d{1,2}[/.]\\d{1,2}(?:[/.]\\d{2,4})?|\\d{1,2}(?::\\d{2})?\\s?(?:am|pm)|\\{\\{ ?\\w+ ?\\}\\})`;

export const DEADLINE = new RegExp(
  // A bare "due" takes no colon: "Amount Due: $40" names an amount, "Due by: May 3" a date.
  `\\b(?:(?:by|before|due (?:by|on|date)|no later than|until|deadline(?: is)?|expires?(?: on)?|ends? (?:on|in))\\s*:?\\s*|due\\s+)(${DATE_WORDS}|\\d+ (?:days?|hours?|weeks?))`,
  'i',
);

const REQUEST_PATTERNS: readonly RegExp[] = [
  /\b(?:please|pls|kindly)\s+(?:\w+\s+){0,2}?(?:review|approve|sign|send|confirm|reply|respond|let|get back|complete|fill|submit|update|check|call|schedule|book|pay|consider|provide|share|take|look|advise|forward|prepare|fix|join|choose|pick|decide|read|verify|rsvp|register|return|make|add|remove|give)\b/i,
  /\b(?:could|can|would|will) you\b/i,
  /\b(?:i|we) need (?:you|your)\b/i,
  /\baction (?:is )?required\b/i,
  /\b(?:need|require|awaiting) your (?:input|approval|feedback|signature|help|review|decision|response|reply|answer)\b/i,
  /\blet me know\b/i,
  /\bwould you like to\b/i,
];

const TEXT_SIGNALS: ReadonlyArray<[SignalName, RegExp]> = [
  ['urgent_wording', /\b(?:urgent|asap|as soon as possible|immediately|right away|time[- ]sensitive|high priority)\b/gi],
  ['invoice', /\b(?:invoice|billing statement|statement is (?:now )?available)\b/gi],
  ['payment_due', /\b(?:(?:amount|balance|payment) due|due (?:by|date|on)|pay (?:the |this |your )?(?:invoice|bill|balance)|past due|overdue|submit payment|payment (?:is )?(?:required|reminder))\b/gi],
  ['receipt', /\b(?:receipt|payment (?:received|confirmation|successful)|thank you for your (?:order|purchase|payment)|we(?:'ve| have) received your payment)\b/gi],
  ['order_or_shipping', /\b(?:order (?:confirmation|#|number|no\.?)|your order|(?:has|have) (?:been )?shipped|out for delivery|tracking number|shipment|booking (?:confirmation|reference)|reservation (?:is )?confirmed|e-?ticket|itinerary)\b/gi],
  ['subscription_or_trial', /\b(?:trial (?:ends|expires|expiring|period)|subscription (?:will renew|renews|expires|has been renewed)|renewal notice|your plan (?:will|has))\b/gi],
  ['meeting_invitation', /\b(?:(?:invitation|invite) (?:to|for) (?:a |an |the |our )?(?:\w+ )?(?:meeting|call|sync|review|interview|session|workshop)|join (?:the )?(?:zoom|teams|google meet|webex) (?:meeting|call)?|zoom\.us\/j|teams\.microsoft\.com\/l\/meetup|meet\.google\.com|meeting (?:request|invite|invitation)|calendar invit\w*|accept\s*\|?\s*(?:tentative|maybe)\s*\|?\s*decline)\b/gi],
  ['meeting_scheduling', /\b(?:(?:schedule|set up|book|arrange) (?:a |an )?(?:meeting|call|time|chat|sync|1:1|one-on-one)|(?:are you|would you be) (?:free|available)|what time works|available times|choose a (?:day|date|time)|find a time)\b/gi],
  ['unsubscribe_link', /\b(?:unsubscribe|opt[- ]out|manage (?:your )?(?:email )?(?:preferences|subscriptions?)|email preferences|update your preferences|you(?:'re| are) receiving this (?:email|message) because|no longer wish to receive)\b/gi],
  ['automated_wording', /\b(?:this is an automated|automatically generated|do not reply to this (?:e-?mail|message)|(?:e-?mail|message) was sent automatically|receiving this notification|notification settings|security alert|new sign-?in|sign-?in attempt|password (?:was|has been) (?:changed|reset)|verification code|one-time (?:pass)?code|build (?:failed|passed|succeeded)|pipeline (?:failed|passed|succeeded)|commented on|mentioned you|assigned (?:you|to you)|pull request|merge request|status (?:changed|update))\b/gi],
  ['promotional_wording', /(?:\b\d{1,2}% off\b|\b(?:sale|discount|coupon|promo code|limited[- ]time|exclusive offer|special offer|free shipping|shop now|buy now|order now|save \$?\d+|best price|offer ends|last chance|don'?t miss out|upgrade (?:now|today)|clearance|flash sale|new arrivals|black friday|cyber monday)\b)/gi],
  ['newsletter_wording', /\b(?:newsletter|digest|weekly (?:roundup|update|recap)|monthly (?:roundup|update|recap)|this week in|issue #?\d+|read more|read the full|view (?:this email )?in (?:your )?browser|top stories|editor'?s? (?:note|picks)|in this issue|highlights from|your (?:past|last) week)\b/gi],
  ['spam_wording', /\b(?:you(?:'ve| have) (?:won|been selected)|winner|claim your (?:prize|reward|money|funds)|lottery|inheritance|beneficiary|wire transfer|western union|bitcoin|crypto(?:currency)? (?:investment|opportunity)|million (?:dollars|usd)|100% free|risk[- ]free|act now|urgent (?:reply|response) needed|verify your (?:account|identity) (?:now|immediately)|(?:account|mailbox) (?:will be )?(?:suspended|locked|deactivated)|congratulations!? you|dear (?:friend|beneficiary|winner)|double your (?:money|income)|make money fast|viagra|casino|processing fee)\b/gi],
  ['fyi_wording', /\b(?:fyi|for your (?:information|reference|records)|heads[- ]up|just (?:a quick )?(?:note|update)|just letting you know|no action (?:is )?(?:needed|required)|no need to (?:reply|respond)|keeping you in the loop|for awareness)\b/gi],
];

const SUBJECT_MEETING = /^(?:invitation|updated invitation|new event|accepted|declined|tentative|meeting|invite)\b/i;
const NO_REPLY_LOCAL = /^(?:no[-_.]?reply|do[-_.]?not[-_.]?reply|mailer-daemon|postmaster|bounces?)(?:[-_.+]|$)/i;
const AUTOMATED_LOCAL = /^(?:notifications?|notify|alerts?|automated|system|robot|builds?|ci|jira|github|status|security|account|accounts|billing|receipts?|orders?)(?:[-_.+]|$)/i;
const BULK_LOCAL = /^(?:news|newsletters?|marketing|promo(?:tions)?|offers?|deals|hello|info|updates?|digest|community)(?:[-_.+]|$)/i;

export function detectSignals(email: Email): Signals {
  const text = `${email.subject}\n${email.body.text}`;
  const counts: Partial<Record<SignalName, number>> = {};
  const add = (name: SignalName, count = 1): void => {
    if (count > 0) counts[name] = (counts[name] ?? 0) + count;
  };

  const sentences = splitSentences(email.body.text);
  const requests = sentences.filter((sentence) => REQUEST_PATTERNS.some((pattern) => pattern.test(sentence)));
  add('direct_request', requests.length);
  add('question_to_reader', sentences.filter((sentence) => /\?$/.test(sentence) && /\byou(?:r)?\b/i.test(sentence)).length);
  if (DEADLINE.test(text)) add('deadline');
  for (const [name, pattern] of TEXT_SIGNALS) {
    // Distinct wordings, so one phrase repeated in a footer does not outweigh real evidence.
    const distinct = new Set((text.match(pattern) ?? []).map((match) => match.toLowerCase()));
    add(name, distinct.size);
  }
  if (SUBJECT_MEETING.test(email.subject)) add('meeting_invitation', 2);

  const headers = email.headers;
  if (headers['list-unsubscribe'] || headers['list-id'] || /^(?:bulk|list)$/i.test(headers.precedence ?? '')) {
    add('list_unsubscribe_header');
  }
  const local = (email.from?.address ?? '').split('@')[0] ?? '';
  if (NO_REPLY_LOCAL.test(local)) add('no_reply_sender');
  else if (AUTOMATED_LOCAL.test(local)) add('automated_sender');
  else if (BULK_LOCAL.test(local)) add('bulk_sender');
  if (replyToMismatch(email)) add('reply_to_mismatch');
  if (email.importance === 'high') add('high_importance');
  if (email.flag_status?.toLowerCase() === 'flagged') add('flagged');
  if (email.has_attachments === true) add('has_attachments');
  return { counts, requests, sentences };
}

export function count(signals: Signals, name: SignalName): number {
  return signals.counts[name] ?? 0;
}

export function has(signals: Signals, name: SignalName): boolean {
  return count(signals, name) > 0;
}

/** Present signal names, in the fixed order of SIGNAL_NAMES. */
export function signalList(signals: Signals): string[] {
  return SIGNAL_NAMES.filter((name) => has(signals, name));
}

export function splitSentences(text: string): string[] {
  return text
    .split(/\n+|(?<=[.!?])\s+(?=[A-Z0-9"'(])/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => /\p{L}/u.test(sentence));
}

/** Addresses of machines and mailing systems rather than of a person. */
export function isMachineAddress(address: string | null | undefined): boolean {
  const local = (address ?? '').split('@')[0] ?? '';
  return NO_REPLY_LOCAL.test(local) || AUTOMATED_LOCAL.test(local) || BULK_LOCAL.test(local);
}

function domainOf(address: string | null | undefined): string | null {
  const at = address?.lastIndexOf('@') ?? -1;
  return address && at > 0 ? address.slice(at + 1).toLowerCase() : null;
}

/** Replies routed to a different domain than the sender's: a common mark of fraud. */
function replyToMismatch(email: Email): boolean {
  const from = domainOf(email.from?.address);
  if (from === null) return false;
  return email.reply_to.some((mailbox) => {
    const domain = domainOf(mailbox.address);
    return domain !== null && domain !== from && !domain.endsWith(`.${from}`) && !from.endsWith(`.${domain}`);
  });
}
