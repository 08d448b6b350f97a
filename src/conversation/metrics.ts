import { Gauge, type Registry } from 'prom-client';
import { METRIC_PREFIX } from '../shared/observability/metrics.js';

// The conversation's gauge: how many callers wait for an answer in this process (as
// claims_waiting counts long polls). A client that hangs up leaves the count at once.

export function registerConversationGauges(registry: Registry, waits: { waiting(): number }): void {
  new Gauge({
    name: `${METRIC_PREFIX}work_answers_waiting`,
    help: 'Callers waiting for the answer to a question (GET /work/{id}/questions/{qid}?wait_s) in this process',
    registers: [registry],
    collect() {
      this.set(waits.waiting());
    },
  });
}
