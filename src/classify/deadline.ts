// How long one POST /classify may take, for whoever waits on its answer (the UI's relay in the work service).
// The classifier owns the formula because only it knows the worst case.

import type { LlmConfig } from '../shared/config/config.js';
import { buildRetryPolicy } from './llm/retry.js';

/** The store's reads and writes around the provider calls, with room for a loaded database. */
const STORE_ALLOWANCE_MS = 5_000;

/** The provider's share: every attempt and every wait between attempts. */
export function providerDeadlineMs(llm: Pick<LlmConfig, 'timeoutMs' | 'maxRetries'>): number {
  return buildRetryPolicy(llm.timeoutMs, llm.maxRetries).deadline_ms;
}

/**
 * The longest a classify request takes: one provider deadline waiting for a copy of the email in flight
 * elsewhere, and, if no answer comes, another classifying it itself.
 */
export function classifyDeadlineMs(llm: Pick<LlmConfig, 'timeoutMs' | 'maxRetries'>): number {
  return 2 * providerDeadlineMs(llm) + STORE_ALLOWANCE_MS;
}
