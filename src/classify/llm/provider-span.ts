// One span per provider call: every attempt and every wait between them, as the caller waits.
// It records who answered (provider, model, host), how (attempts, result kind) and what it
// used (tokens, summed over the attempts the provider answered). Never the prompt, the answer,
// the email or the key: nothing here is given any of them.

import type { SpanAttributes, Tracing } from '../../shared/tracing.js';
import type { LlmUsage } from './client.js';
import type { RetryOutcome } from './retry.js';

export interface ProviderCallInfo {
  provider: string;
  model: string;
  /** The provider's host, without path or query; null when unknown. */
  host: string | null;
}

export type UsageSink = (usage: LlmUsage) => void;

export const PROVIDER_SPAN = 'llm.call';

/** Runs `call` (the retry loop) in a span; with tracing off, just runs it. */
export async function traceProviderCall<T>(
  tracing: Tracing,
  info: ProviderCallInfo,
  call: (onUsage: UsageSink | undefined) => Promise<RetryOutcome<T>>,
): Promise<RetryOutcome<T>> {
  if (!tracing.enabled) return call(undefined);
  const attributes: SpanAttributes = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': info.provider,
    'gen_ai.request.model': info.model,
    ...(info.host !== null && { 'server.address': info.host }),
  };
  return tracing.span(PROVIDER_SPAN, attributes, async (span) => {
    const used: { input: number | null; output: number | null } = { input: null, output: null };
    const outcome = await call((usage) => {
      if (usage.input_tokens !== null) used.input = (used.input ?? 0) + usage.input_tokens;
      if (usage.output_tokens !== null) used.output = (used.output ?? 0) + usage.output_tokens;
    });
    span.set({
      'agentdesk.llm.attempts': outcome.attempts,
      'agentdesk.llm.result': outcome.ok ? 'ok' : outcome.failure.kind,
      ...(used.input !== null && { 'gen_ai.usage.input_tokens': used.input }),
      ...(used.output !== null && { 'gen_ai.usage.output_tokens': used.output }),
    });
    if (!outcome.ok) {
      span.set({ 'error.type': outcome.failure.kind });
      span.fail(outcome.failure.kind);
    }
    return outcome;
  });
}
