// What the offline classifier looks for. Each signal is a named, deterministic test over the
// envelope or the text; the names are what `details.source_signals` reports. Text signals are
// read with the lexicons of the languages the email is written in (language.ts).

import type { Email } from '../../email/index.js';
import { lookalikeBrands, replyToMismatch, senderKind } from './envelope.js';
import { detectLanguages } from './language.js';
import { COMPILED, findWords, hasWords, PHRASE_SIGNALS, type CompiledLexicon, type Language } from './lexicon.js';
import { splitSentences } from './sentences.js';

export const SIGNAL_NAMES = [
  'direct_request',
  'question_to_reader',
  'deadline',
  'urgent_wording',
  'impact_wording',
  'softener_wording',
  'approval_request',
  'overdue',
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
  /** Requests that ask for an approval, a signature or a payment. */
  approvals: string[];
  sentences: string[];
  /** The deadline of the request, as written: in a request sentence first, else anywhere. */
  deadline: string | null;
  /** The language whose lexicon found the deadline, which is the one to read it in. */
  deadline_language: Language | null;
  /** Brands a sender, reply address or link imitates. */
  imitated_brands: string[];
}

const SUBJECT_MEETING =
  /^(?:invitation|updated invitation|new event|accepted|declined|tentative|meeting|invite|einladung|invitación|convocatoria)\b/i;
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

  const sentences = splitSentences(body, languages[0]);
  const any = (test: (lexicon: CompiledLexicon) => boolean): boolean => lexicons.some(test);
  const requests = sentences.filter(
    (sentence) =>
      any((lexicon) => hasWords(lexicon.request, sentence)) &&
      !any((lexicon) => hasWords(lexicon.notRequest, sentence)),
  );
  add('direct_request', requests.length);
  add(
    'question_to_reader',
    sentences.filter((sentence) => /\?["'»”)]*$/.test(sentence) && any((lexicon) => hasWords(lexicon.reader, sentence)))
      .length,
  );
  // Most mail never names a login or a password: one scan of the whole text spares the per-sentence test.
  const credentialLexicons = lexicons.filter(
    (lexicon) => hasWords(lexicon.login, text) || hasWords(lexicon.secret, text),
  );
  if (credentialLexicons.length > 0) {
    add(
      'credential_request',
      [subject, ...sentences].filter((sentence) =>
        credentialLexicons.some((lexicon) => asksForCredentials(lexicon, sentence)),
      ).length,
    );
  }

  const found = findDeadline(lexicons, requests, text);
  if (found !== null) add('deadline');
  const approvals = requests.filter((sentence) => any((lexicon) => hasWords(lexicon.approval, sentence)));
  add('approval_request', approvals.length);
  if (any((lexicon) => hasWords(lexicon.overdue, text))) add('overdue');

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
  return {
    counts,
    languages,
    requests,
    approvals,
    sentences,
    deadline: found?.phrase ?? null,
    deadline_language: found?.language ?? null,
    imitated_brands: imitated,
  };
}

/**
 * The deadline that belongs to the request: one with a marker ("by Friday") in a request
 * sentence, else a bare one there ("please approve it today"), else one with a marker anywhere
 * in the subject or body ("Due by: May 3" in a table). A bare "today" outside a request is
 * usually news ("I'm out today"), not a deadline.
 */
function findDeadline(
  lexicons: CompiledLexicon[],
  requests: string[],
  text: string,
): { phrase: string; language: Language } | null {
  const passes: Array<[(lexicon: CompiledLexicon) => RegExp, string[]]> = [
    [(lexicon) => lexicon.deadline, requests],
    [(lexicon) => lexicon.bareDeadline, requests],
    [(lexicon) => lexicon.deadline, [text]],
  ];
  for (const [pattern, places] of passes) {
    for (const place of places) {
      for (const lexicon of lexicons) {
        const [match] = findWords(pattern(lexicon), place, 1);
        if (match !== undefined) return { phrase: match.replace(/\s+/g, ' ').trim(), language: lexicon.language };
      }
    }
  }
  return null;
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

function normalizeText(text: string): string {
  return text.normalize('NFC').replace(APOSTROPHES, "'");
}
