import { Counter, Histogram, type Registry } from 'prom-client';
import { METRIC_PREFIX } from '../shared/observability/metrics.js';
import { CALL_OK, type ClassifyObserver } from './observer.js';

// The classifier's metrics, as the observer the service reports to. All counters and one
// histogram: nothing here reads the database.

const CLASSIFY = `${METRIC_PREFIX}classify_`;

/** Seconds per provider call, retries and waits included: local models are slow, deadlines long. */
const PROVIDER_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120];

/**
 * A caller may name its own model (CLASSIFY_ALLOW_OVERRIDES); each name is a series of every
 * metric below. Past this many names the rest share one label value, so no caller can grow the
 * registry without bound.
 */
export const MAX_MODEL_LABELS = 50;
export const OTHER_MODEL = 'other';

export function createClassifyMetrics(registry: Registry): ClassifyObserver {
  const registers = [registry];
  const byModel = ['provider', 'model'] as const;
  const calls = new Counter({
    name: `${CLASSIFY}provider_calls_total`,
    help: 'Provider calls (one per classification that was not a duplicate, retries included), by provider, model and result: ok or the failure kind',
    labelNames: [...byModel, 'kind'],
    registers,
  });
  const latency = new Histogram({
    name: `${CLASSIFY}provider_duration_seconds`,
    help: 'Provider call duration in seconds, every attempt and wait included, by provider and model',
    labelNames: byModel,
    buckets: PROVIDER_BUCKETS,
    registers,
  });
  const retries = new Counter({
    name: `${CLASSIFY}provider_retries_total`,
    help: 'Attempts after the first, by provider and model',
    labelNames: byModel,
    registers,
  });
  const fallbacks = new Counter({
    name: `${CLASSIFY}fallbacks_total`,
    help: 'Classifications answered with the fallback result because the provider call failed, by provider and model',
    labelNames: byModel,
    registers,
  });
  const inputTokens = new Counter({
    name: `${CLASSIFY}input_tokens_total`,
    help: 'Input (prompt) tokens the provider reported, by provider and model',
    labelNames: byModel,
    registers,
  });
  const outputTokens = new Counter({
    name: `${CLASSIFY}output_tokens_total`,
    help: 'Output (completion) tokens the provider reported, by provider and model',
    labelNames: byModel,
    registers,
  });
  const duplicates = new Counter({
    name: `${CLASSIFY}duplicates_served_total`,
    help: 'Duplicates answered from the dedupe store, without a provider call',
    registers,
  });

  const models = new Set<string>();
  const modelLabel = (model: string) => {
    if (models.has(model)) return model;
    if (models.size >= MAX_MODEL_LABELS) return OTHER_MODEL;
    models.add(model);
    return model;
  };

  return {
    providerCall(call) {
      const labels = { provider: call.provider, model: modelLabel(call.model) };
      calls.inc({ ...labels, kind: call.result });
      latency.observe(labels, call.latency_ms / 1000);
      if (call.attempts > 1) retries.inc(labels, call.attempts - 1);
      if (call.result !== CALL_OK) fallbacks.inc(labels);
      if (call.input_tokens > 0) inputTokens.inc(labels, call.input_tokens);
      if (call.output_tokens > 0) outputTokens.inc(labels, call.output_tokens);
    },
    duplicateServed: () => duplicates.inc(),
  };
}
