// What the classifier records about its provider calls, and what they cost. A record holds the
// provider, the model, the tokens, the time and the outcome: nothing of the email (no subject,
// body, sender, record key or fingerprint), so usage can be kept longer than the dedupe memory.

import type { LlmProviderName, ModelPrice, PriceTable } from '../../shared/config/config.js';
import { FAILURE_KINDS, type TokenUsage } from '../llm/client.js';

export const CALL_RESULTS = ['ok', ...FAILURE_KINDS] as const;
export type CallResult = (typeof CALL_RESULTS)[number];

/** One provider call: a classification with its retries, as the usage tables keep it. */
export interface ProviderCall {
  provider: LlmProviderName;
  model: string;
  /** Every attempt's tokens: an answer that was then rejected was billed all the same. */
  input_tokens: number;
  output_tokens: number;
  latency_ms: number;
  /** Requests sent to the provider, retries included (0 for none, 1 for the rules provider). */
  attempts: number;
  /** `ok`, or the failure that made the service answer with its fallback. */
  result: CallResult;
}

export type UsageEvent =
  /** The provider was asked. */
  | { kind: 'call'; at: string; call: ProviderCall }
  /** The answer came from the dedupe store: no provider was asked. */
  | { kind: 'duplicate'; at: string; provider: LlmProviderName; model: string };

/** Adds up the tokens the attempts of one call report. */
export interface TokenTally extends TokenUsage {
  add(usage: TokenUsage): void;
}

export function createTokenTally(): TokenTally {
  return {
    input_tokens: 0,
    output_tokens: 0,
    add(usage) {
      this.input_tokens += usage.input_tokens;
      this.output_tokens += usage.output_tokens;
    },
  };
}

/** A count from a provider's usage object; anything else (absent, negative, fractional) is 0. */
export function tokenCount(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : 0;
}

const FREE: ModelPrice = { input_per_million: 0, output_per_million: 0 };

/** The price of a model, null when the table does not know it. The offline rules cost nothing. */
export function priceOf(prices: PriceTable, provider: string, model: string): ModelPrice | null {
  if (provider === 'rules') return FREE;
  return Object.hasOwn(prices, model) ? prices[model]! : null;
}

export function costOf(price: ModelPrice, usage: TokenUsage): number {
  return (usage.input_tokens * price.input_per_million + usage.output_tokens * price.output_per_million) / 1_000_000;
}
