// From signals to a score per category; the highest wins, ties going to the category that
// costs the reader most to miss. Weights are small integers so a reader can follow a verdict
// by hand from the `source_signals` of an answer.

import type { Category } from '../categories.js';
import { count, has, type SignalName, type Signals } from './signals.js';

/** Tie-break order: what costs the reader most when missed comes first. */
export const PRECEDENCE: readonly Category[] = [
  'spam',
  'meeting',
  'transactional',
  'action_required',
  'marketing',
  'newsletter',
  'notification',
  'fyi',
];

export function isBulk(signals: Signals): boolean {
  return has(signals, 'list_unsubscribe_header') || has(signals, 'unsubscribe_link') || has(signals, 'bulk_sender');
}

export function isAutomated(signals: Signals): boolean {
  return has(signals, 'no_reply_sender') || has(signals, 'automated_sender');
}

export function scoreCategories(signals: Signals): Record<Category, number> {
  const c = (name: SignalName): number => count(signals, name);
  const bulk = isBulk(signals);
  const automated = isAutomated(signals);
  const request = 3 * Math.min(c('direct_request'), 2) + 2 * Math.min(c('question_to_reader'), 2);
  // An approval, a signature or a payment asked of the reader is work, even on an invoice.
  const action =
    request > 0
      ? request +
        c('deadline') +
        c('urgent_wording') +
        c('flagged') +
        c('high_importance') +
        3 * Math.min(c('approval_request'), 1)
      : 0;
  const event = Math.min(c('event_promotion'), 3);
  const promo = Math.min(c('promotional_wording'), 3);
  const meeting = 4 * Math.min(c('meeting_invitation'), 2) + 3 * Math.min(c('meeting_scheduling'), 1);
  return {
    spam: spamScore(signals),
    // A webinar or a trade fair invites everyone to an event; it is no meeting of the reader's.
    meeting: event >= 2 || (event >= 1 && bulk) ? Math.floor(meeting / 2) : meeting,
    transactional:
      3 * Math.min(c('invoice') + c('payment_due'), 1) +
      3 * Math.min(c('receipt'), 1) +
      3 * Math.min(c('order_or_shipping'), 1) +
      2 * Math.min(c('subscription_or_trial'), 1),
    // Bulk and automated mail asks things of everyone; it rarely needs this reader.
    // (Its approvals too: "please pay your invoice" from a billing system is the invoice itself.)
    action_required: bulk || automated ? Math.floor((action - 3 * Math.min(c('approval_request'), 1)) / 2) : action,
    marketing: promo + event > 0 ? 2 * promo + 2 * event + (bulk ? 1 : 0) : 0,
    newsletter:
      3 * Math.min(c('newsletter_wording'), 2) +
      (has(signals, 'list_unsubscribe_header') ? 2 : 0) +
      (has(signals, 'unsubscribe_link') ? 1 : 0),
    notification: 3 * Math.min(c('automated_wording'), 2) + (automated ? 2 : 0),
    // An announcement ("please join me in welcoming…") informs; the request in it is a figure of speech.
    fyi: 3 * Math.min(c('fyi_wording'), 1) + 3 * Math.min(c('welcome_announcement'), 1),
  };
}

function spamScore(signals: Signals): number {
  const c = (name: SignalName): number => count(signals, name);
  const lookalike = has(signals, 'lookalike_domain');
  const threat = has(signals, 'account_threat');
  const diverted = has(signals, 'reply_to_mismatch');
  // Phishing: credentials asked for on a borrowed brand, under a threat, or with replies diverted.
  // Any one alone is honest mail: a bank's own login notice, a shop naming its carrier.
  const phishing = has(signals, 'credential_request') && (lookalike || threat || diverted);
  const lure = lookalike && (threat || c('spam_wording') > 0);
  const words = c('spam_wording');
  // One scammy phrase can appear in honest mail; two, or one with a diverted Reply-To or a threat, cannot.
  const scam = words >= 2 || (words >= 1 && (diverted || threat));
  return (phishing ? 8 : lure ? 6 : 0) + (scam ? 3 * words + c('reply_to_mismatch') : 0);
}
