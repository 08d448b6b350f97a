// What the offline classifier looks for. Each signal is a named, deterministic test over the
// envelope or the text; the names are what `details.source_signals` reports. Text signals are
// read with the lexicons of the languages the email is written in (language.ts).

import type { Email } from '../normalize.js';
import { lookalikeBrands, replyToMismatch, senderKind } from './envelope.js';
import { detectLanguages } from './language.js';
import { COMPILED, findWords, hasWords, PHRASE_SIGNALS, type CompiledLexicon, type Language } from './lexicon.js';

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
  'event_promotion',
  'newsletter_wording',
  'spam_wording',
  'credential_request',
  'lookalike_domain',
  'account_threat',
  'reply_to_mismatch',
  'fyi_wording',
  'welcome_announcement',
  'high_importance',
  'flagged',
  'has_attachments',
] as const;
export type SignalName = (typeof SIGNAL_NAMES)[number];

export interface Signals {
  /** How many times (or distinct ways) each signal matched; absent means zero. */
  counts: Partial<Record<SignalName, number>>;
  /** Languages the email was read in, the main one first. */
  languages: Language[];
  /** Sentences that ask the reader for something, in order. */
  requests: string[];
  sentences: string[];
  /** The first deadline found in the subject or body, as written. */
  deadline: string | null;
  /** Brands a sender, reply address or link imitates. */
  imitated_brands: string[];
}

const SUBJECT_MEETING = /^(?:invitation|updated invitation|new event|accepted|declined|tentative|meeting|invite|einladung|invitación|convocatoria)\b/i;
/** Apostrophes and quotes in their typographic forms read as the plain ones the lexicons use. */
const APOSTROPHES = /[\u2019\u2018\u02BC\u0060\u00B4]/g;

export function detectSignals(email: Email): Signals {
  const subject = normalizeText(email.subject);
  const body = normalizeText(email.body.text);
  const text = `${subject}\n${body}`;
  const languages = detectLanguages(text);
  const lexicons = languages.map((language) => COMPILED[language]);
  const counts: Partial<Record<SignalName, number>> = {};
  const add = (name: SignalName, count = 1): void => {
    if (count > 0) counts[name] = (counts[name] ?? 0) + count;
  };

  const sentences = splitSentences(body);
  const any = (test: (lexicon: CompiledLexicon) => boolean): boolean => lexicons.some(test);
  const requests = sentences.filter(
    (sentence) => any((lexicon) => hasWords(lexicon.request, sentence)) && !any((lexicon) => hasWords(lexicon.notRequest, sentence)),
  );
  add('direct_request', requests.length);
  add('question_to_reader', sentences.filter((sentence) => /\?["'»”)]*$/.test(sentence) && any((lexicon) => hasWords(lexicon.reader, sentence))).length);
  // Most mail never names a login or a password: one scan of the whole text spares the per-sentence test.
  const credentialLexicons = lexicons.filter((lexicon) => hasWords(lexicon.login, text) || hasWords(lexicon.secret, text));
  if (credentialLexicons.length > 0) {
    add('credential_request', [subject, ...sentences].filter((sentence) => credentialLexicons.some((lexicon) => asksForCredentials(lexicon, sentence))).length);
  }

  let deadline: string | null = null;
  for (const lexicon of lexicons) {
    const [match] = findWords(lexicon.deadline, text, 1);
    if (match !== undefined) {
      deadline = match.replace(/\s+/g, ' ').trim();
      break;
    }
  }
  if (deadline !== null) add('deadline');

  for (const name of PHRASE_SIGNALS) {
    // Distinct wordings, so one phrase repeated in a footer does not outweigh real evidence.
    const distinct = new Set<string>();
    for (const lexicon of lexicons) {
      const pattern = lexicon.phrases[name];
      if (pattern) for (const match of findWords(pattern, text)) distinct.add(match.toLowerCase());
    }
    add(name, distinct.size);
  }
  if (SUBJECT_MEETING.test(subject)) add('meeting_invitation', 2);

  const headers = email.headers;
  if (headers['list-unsubscribe'] || headers['list-id'] || /^(?:bulk|list)$/i.test(headers.precedence ?? '')) {
    add('list_unsubscribe_header');
  }
  const kind = senderKind(email.from?.address);
  if (kind === 'no_reply') add('no_reply_sender');
  else if (kind === 'automated') add('automated_sender');
  else if (kind === 'bulk') add('bulk_sender');
  if (replyToMismatch(email)) add('reply_to_mismatch');
  const imitated = lookalikeBrands(email, text);
  add('lookalike_domain', imitated.length);
  if (email.importance === 'high') add('high_importance');
  if (email.flag_status?.toLowerCase() === 'flagged') add('flagged');
  if (email.has_attachments === true) add('has_attachments');
  return { counts, languages, requests, sentences, deadline, imitated_brands: imitated };
}

/** "Sign in and confirm your password": a way in (or a secret) and a demand to hand it over. */
function asksForCredentials(lexicon: CompiledLexicon, sentence: string): boolean {
  return (hasWords(lexicon.login, sentence) || hasWords(lexicon.secret, sentence)) && hasWords(lexicon.ask, sentence);
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

/** Splits on lines and sentence ends; "¿", "¡", "«" and „ may open a sentence, as capitals do. */
export function splitSentences(text: string): string[] {
  return text
    .split(/\n+|(?<=[.!?…])\s+(?=[\p{Lu}\p{N}"'(¿¡«„“])/u)
    .map((sentence) => sentence.trim())
    .filter((sentence) => /\p{L}/u.test(sentence));
}

function normalizeText(text: string): string {
  return text.normalize('NFC').replace(APOSTROPHES, "'");
}
