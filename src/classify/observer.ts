import type { ProviderCall } from './usage/records.js';

// What the classification service tells whoever watches it (the metrics): one report per
// provider call (the same record the usage tables keep), one per duplicate answered from the
// dedupe store. Never any content of the email. Called after the fact; cheap, never throws.

export const CALL_OK = 'ok';

export interface ClassifyObserver {
  /** Once per classification that went to a provider (the rules classifier included). */
  providerCall(call: ProviderCall): void;
  /** A duplicate was answered with the classification the dedupe store holds, no provider call. */
  duplicateServed(): void;
}

export const NO_CLASSIFY_OBSERVER: ClassifyObserver = { providerCall: () => {}, duplicateServed: () => {} };
