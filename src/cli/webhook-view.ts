import type { Delivery, Webhook, WebhookDetail } from '../webhooks/contract.js';
import { type Paint, oneLine, relativeTime, table } from './format.js';

// How `agentdesk webhook` prints endpoints and deliveries for a person: one line or a table an
// endpoint, and each delivery with its attempts below it. `--json` prints the API's own shapes.

export function endpointState(webhook: Webhook, paint: Paint): string {
  if (!webhook.enabled) return paint.red(`disabled (${webhook.disabled_reason ?? 'admin'})`);
  if (webhook.failing_since) return paint.yellow(`failing since ${relativeTime(webhook.failing_since)}`);
  return paint.green('enabled');
}

export function endpointTable(webhooks: Webhook[], paint: Paint): string {
  return table(
    ['ID', 'URL', 'EVENTS', 'FORMAT', 'STATE'],
    webhooks.map((w) => [w.id, w.url, w.events.join(','), w.format, endpointState(w, paint)]),
    paint,
  );
}

/** Every field of one endpoint, a line each. */
export function endpointDetail(webhook: Webhook | WebhookDetail, paint: Paint): string {
  const lines: Array<[string, string]> = [
    ['id', webhook.id],
    ['url', webhook.url],
    ['events', webhook.events.join(', ')],
    ['project', webhook.project_id ?? 'any'],
    ['types', webhook.types?.join(', ') ?? 'any'],
    ['format', webhook.format],
    ['description', webhook.description ?? '-'],
    ['state', endpointState(webhook, paint)],
    ['created', `${relativeTime(webhook.created_at)} by ${webhook.created_by}`],
  ];
  if (webhook.secret_overlap_until)
    lines.push(['previous secret', `still signs until ${webhook.secret_overlap_until}`]);
  if ('pending' in webhook) {
    const oldest = webhook.oldest_pending_at ? ` (oldest ${relativeTime(webhook.oldest_pending_at)})` : '';
    lines.push(['pending', `${webhook.pending}${oldest}`]);
  }
  const width = Math.max(...lines.map(([name]) => name.length));
  return lines.map(([name, value]) => `${paint.bold(name.padEnd(width))}  ${value}\n`).join('');
}

function deliveryState(delivery: Delivery, paint: Paint): string {
  if (delivery.status === 'succeeded') return paint.green('succeeded');
  if (delivery.status === 'failed') return paint.red('failed');
  const next = delivery.next_attempt_at ? ` (next ${relativeTime(delivery.next_attempt_at)})` : '';
  return paint.yellow(`pending${next}`);
}

/** A delivery a line, its attempts indented below it, each with the answer's first words. */
export function deliveryLog(deliveries: Delivery[], paint: Paint): string {
  return deliveries
    .map((delivery) => {
      const head = `${paint.bold(delivery.id)}  ${delivery.type}  ${deliveryState(delivery, paint)}  ${relativeTime(delivery.created_at)}  ${delivery.attempt_count} attempt${delivery.attempt_count === 1 ? '' : 's'}\n`;
      const attempts = delivery.attempts.map((attempt) => {
        const answer = attempt.error
          ? paint.red(oneLine(attempt.error, 80))
          : attempt.response_body
            ? oneLine(attempt.response_body, 80)
            : '';
        return `  ${attempt.at}  ${attempt.status_code ?? '---'}  ${attempt.latency_ms} ms  ${answer}`.trimEnd() + '\n';
      });
      return head + attempts.join('');
    })
    .join('');
}
