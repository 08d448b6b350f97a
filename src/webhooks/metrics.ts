import type { Logger } from 'pino';
import { Counter, Gauge, type Registry } from 'prom-client';
import { METRIC_PREFIX } from '../shared/observability/metrics.js';
import { DELIVERY_OUTCOMES, type DeliveryOutcome } from './sender.js';
import type { WebhookStatements } from './store/port.js';

// Webhooks in /metrics: each attempt's outcome (counted where it is made, in this process), and
// the age of each endpoint's oldest pending delivery (read from the database when scraped).

export function registerWebhookMetrics(
  registry: Registry,
  statements: Pick<WebhookStatements, 'pendingSummary'>,
  now: () => Date,
  logger: Logger,
): (outcome: DeliveryOutcome) => void {
  const outcomes = new Counter({
    name: `${METRIC_PREFIX}webhook_deliveries_total`,
    help: 'Webhook delivery attempts by outcome: succeeded, retrying (failed, tried again later), failed (retries spent), gone (answered 410)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  for (const outcome of DELIVERY_OUTCOMES) outcomes.inc({ outcome }, 0);
  new Gauge({
    name: `${METRIC_PREFIX}webhook_oldest_pending_seconds`,
    help: "Age of each webhook endpoint's oldest delivery still to be sent",
    labelNames: ['endpoint'],
    registers: [registry],
    async collect() {
      this.reset();
      const at = now().getTime();
      // The database away leaves this gauge empty for the scrape rather than failing the scrape.
      const rows = await statements.pendingSummary().catch((error: unknown) => {
        logger.warn({ err: { message: (error as Error).message } }, 'metrics: webhook deliveries unavailable');
        return [];
      });
      for (const row of rows) {
        if (row.oldest_pending_at === null) continue;
        this.set({ endpoint: row.endpoint_id }, Math.max(0, (at - Date.parse(row.oldest_pending_at)) / 1000));
      }
    },
  });
  return (outcome) => outcomes.inc({ outcome });
}
