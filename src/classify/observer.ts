import type { LlmProviderName } from '../shared/config.js';
import type { FailureKind } from './llm/client.js';

// What the classification service tells whoever watches it (the metrics): one report per
// provider call, one per duplicate answered from the dedupe store. Never any content of the
// email. Called after the fact; must be cheap and never throw.

export const CALL_OK = 'ok';
/** `ok`, or the failure that made the caller get the fallback answer. */
export type ProviderCallKind = typeof CALL_OK | FailureKind;

export interface ProviderCall {
  provider: LlmProviderName;
  model: string;
  kind: ProviderCallKind;
  /** The whole call: every attempt and the waits between them. */
  latency_ms: number;
  /** 1 for a call that needed no retry; 1 for the rules classifier. */
  attempts: number;
  /** Summed over the attempts whose responses said (0 for the rules classifier). */
  input_tokens: number;
  output_tokens: number;
}

export interface ClassifyObserver {
  /** Once per classification that went to a provider (the rules classifier included). */
  providerCall(call: ProviderCall): void;
  /** A duplicate was answered with the classification the dedupe store holds, no provider call. */
  duplicateServed(): void;
}

export const NO_CLASSIFY_OBSERVER: ClassifyObserver = { providerCall: () => {}, duplicateServed: () => {} };
