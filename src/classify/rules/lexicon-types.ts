// The shape of one language's lexicon. Every entry is a small regular-expression source,
// matched case-insensitively between word edges (see lexicon.ts); keep quantifiers bounded.

export const LANGUAGES = ['en', 'de', 'es', 'fr'] as const;
export type Language = (typeof LANGUAGES)[number];

/** Signals found by looking for phrases anywhere in the subject and body. */
export const PHRASE_SIGNALS = [
  'urgent_wording',
  /** Something is down, broken, blocked or insecure: urgent without the word. */
  'impact_wording',
  /** The sender says it can wait: "no rush", "whenever you get a chance". */
  'softener_wording',
  'invoice',
  'payment_due',
  'receipt',
  'order_or_shipping',
  'subscription_or_trial',
  'meeting_invitation',
  'meeting_scheduling',
  'unsubscribe_link',
  'automated_wording',
  'promotional_wording',
  'event_promotion',
  'newsletter_wording',
  'spam_wording',
  'account_threat',
  'fyi_wording',
  'welcome_announcement',
] as const;
export type PhraseSignal = (typeof PHRASE_SIGNALS)[number];

export interface Lexicon {
  language: Language;
  /** Short, frequent words of this language that the other three rarely use. */
  stopwords: readonly string[];
  /** Letters (a character-class body) common here and rare in the other languages. */
  letters: string;
  phrases: Readonly<Partial<Record<PhraseSignal, readonly string[]>>>;
  /** A sentence with one of these asks the reader to do something. */
  requests: readonly string[];
  /** …unless it has one of these: "do not reply", "please join me in welcoming". */
  not_requests: readonly string[];
  /** Words that make a question one put to the reader ("you", "Sie", "usted", "vous"). */
  reader: readonly string[];
  /**
   * A sentence asks for credentials when it names signing in or a secret and asks to confirm,
   * verify, enter or update: "sign in and confirm your password".
   */
  credentials: { login: readonly string[]; secret: readonly string[]; ask: readonly string[] };
  deadline: {
    /** What introduces a deadline: "by", "bis", "antes del", "avant le". */
    markers: readonly string[];
    /** What may follow a marker: days, dates, times. */
    dates: readonly string[];
    /** A time of day that may follow a date: "Thursday noon", "Donnerstag 12 Uhr", "mañana a las 10". */
    times: readonly string[];
    /** Deadlines that need no marker inside a request: "please approve it today", "firmes hoy". */
    bare: readonly string[];
  };
  /** Payment requests and approvals put to the reader: "please approve", "bitte freigeben". */
  approvals: readonly string[];
  /** Something already late: "overdue", "überfällig", "vencida", "en retard". */
  overdue: readonly string[];
}
