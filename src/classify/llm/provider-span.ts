// One span per provider call, every attempt and wait included: who answered, how, and the tokens used, the
// same record the usage tables and the metrics get. Never the prompt, the answer, the email or the key:
// nothing here is given any of them.

import type { SpanAttributes, Tracing } from '../../shared/observability/tracing.js';
import type { ProviderCall } from '../usage/records.js';
import type { RetryOutcome } from './retry.js';

export interface ProviderCallInfo {
  provider: string;
  model: string;
  /** The provider's host, without path or query; null when unknown. */
  host: string | null;
}

export const PROVIDER_SPAN = 'llm.call';

/**
 * Runs `call` (the retry loop) in a span, and describes its outcome with `recordOf`; with
 * tracing off, just runs it.
 */
export async function traceProviderCall<T>(
  tracing: Tracing,
  info: ProviderCallInfo,
  call: () => Promise<RetryOutcome<T>>,
  recordOf: (outcome: RetryOutcome<T>) => ProviderCall,
): Promise<{ outcome: RetryOutcome<T>; record: ProviderCall }> {
  if (!tracing.enabled) {
    const outcome = await call();
    return { outcome, record: recordOf(outcome) };
  }
  const attributes: SpanAttributes = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': info.provider,
    'gen_ai.request.model': info.model,
    ...(info.host !== null && { 'server.address': info.host }),
  };
  return tracing.span(PROVIDER_SPAN, attributes, async (span) => {
    const outcome = await call();
    const record = recordOf(outcome);
    span.set({
      'agentdesk.llm.attempts': record.attempts,
      'agentdesk.llm.result': record.result,
      'gen_ai.usage.input_tokens': record.input_tokens,
      'gen_ai.usage.output_tokens': record.output_tokens,
    });
    if (!outcome.ok) {
      span.set({ 'error.type': outcome.failure.kind });
      span.fail(outcome.failure.kind);
    }
    return { outcome, record };
  });
}
