import { type Command, InvalidArgumentError, Option } from 'commander';
import {
  DELIVERY_STATUSES,
  type DeliveryStatus,
  type UpdateWebhook,
  WEBHOOK_FORMATS,
  type Webhook,
  type WebhookFormat,
} from '../webhooks/contract.js';
import { type CliContext, UsageError } from './context.js';
import { json, paintFor } from './format.js';
import { integer, isUuid, list, projectId } from './options.js';
import { deliveryLog, endpointDetail, endpointState, endpointTable } from './webhook-view.js';

// `agentdesk webhook …`: the endpoints that hear the desk's events, signed, and their delivery log.
// Admin token only. A new secret is printed once, alone on stdout, so a script can keep it.

const DURATION_RE = /^(\d+)\s*(m|h|d)$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

function webhookId(value: string): string {
  if (!isUuid(value)) throw new InvalidArgumentError('expected a webhook id (a UUID, as webhook list shows it)');
  return value.toLowerCase();
}

/** `--since`: an ISO time with a zone, or a span back from now (90m, 24h, 3d). */
export function sinceTime(value: string, now: number = Date.now()): string {
  const span = DURATION_RE.exec(value.trim());
  if (span) return new Date(now - Number(span[1]) * UNIT_MS[span[2] as keyof typeof UNIT_MS]).toISOString();
  if (!/(Z|[+-]\d\d:?\d\d)$/i.test(value.trim()) || Number.isNaN(Date.parse(value)))
    throw new InvalidArgumentError('expected an ISO time with a zone (2026-01-31T09:00:00Z) or a span (90m, 24h, 3d)');
  return new Date(Date.parse(value)).toISOString();
}

interface FilterOptions {
  url?: string;
  events?: string[];
  project?: string;
  types?: string[];
  format?: WebhookFormat;
  description?: string;
  json?: boolean;
}

const withFilters = (command: Command) =>
  command
    .option('--project <project>', 'only events of this project (its id or name)')
    .option('--types <types>', 'only work items of these types (comma-separated)', list)
    .addOption(new Option('--format <format>', 'the body sent: standard, or slack').choices([...WEBHOOK_FORMATS]))
    .option('--description <text>', 'what it is for')
    .option('--json', 'the answer as JSON');

export function registerWebhookCommand(program: Command, context: CliContext): void {
  const { io } = context;
  const paint = paintFor(io);
  const webhook = program
    .command('webhook')
    .description("Webhooks: the desk's events delivered, signed, to other systems (admin token)");
  const said = (done: Webhook, options: { json?: boolean }, verb: string) =>
    io.out(options.json ? json(done) : `${verb} ${done.id}  ${done.url}  ${endpointState(done, paint)}\n`);

  withFilters(
    webhook
      .command('add')
      .description('Add an endpoint; its signing secret is printed once, on stdout')
      .requiredOption('--url <url>', 'where deliveries go (http or https)')
      .requiredOption(
        '--events <names>',
        'event names, comma-separated, or * for all (webhook events lists them)',
        list,
      ),
  ).action(async (options: FilterOptions & { url: string; events: string[] }) => {
    const created = await context.work().createWebhook({
      url: options.url,
      events: options.events,
      ...(options.project !== undefined && { project_id: await projectId(context, options.project) }),
      ...(options.types !== undefined && { types: options.types }),
      ...(options.format !== undefined && { format: options.format }),
      ...(options.description !== undefined && { description: options.description }),
    });
    io.err(
      `Added webhook ${created.id} for ${created.url}. Its signing secret is shown only now: keep it where the receiver reads it.\n`,
    );
    io.out(options.json ? json(created) : `${created.secret}\n`);
  });

  webhook
    .command('list')
    .alias('ls')
    .description('Every endpoint, with its state')
    .option('--json', 'a JSON array')
    .action(async (options: { json?: boolean }) => {
      const found = await context.work().listWebhooks();
      if (options.json) return io.out(json(found));
      io.out(found.length === 0 ? 'No webhooks.\n' : endpointTable(found, paint));
    });

  webhook
    .command('events')
    .description('The event names an endpoint may subscribe to')
    .option('--json', 'a JSON array')
    .action(async (options: { json?: boolean }) => {
      const names = await context.work().listWebhookEvents();
      io.out(options.json ? json(names) : names.map((name) => `${name}\n`).join(''));
    });

  webhook
    .command('show')
    .description('One endpoint, with how many deliveries wait')
    .argument('<webhook>', 'its id', webhookId)
    .option('--json', 'the endpoint as JSON')
    .action(async (id: string, options: { json?: boolean }) => {
      const found = await context.work().getWebhook(id);
      io.out(options.json ? json(found) : endpointDetail(found, paint));
    });

  withFilters(
    webhook
      .command('update')
      .description('Change an endpoint: what is not given stays')
      .argument('<webhook>', 'its id', webhookId)
      .option('--url <url>', 'where deliveries go')
      .option('--events <names>', 'event names, comma-separated, or *', list)
      .option('--any-project', 'events of every project')
      .option('--any-type', 'work items of every type'),
  ).action(async (id: string, options: FilterOptions & { anyProject?: boolean; anyType?: boolean }) => {
    if (options.anyProject && options.project !== undefined)
      throw new UsageError('--project or --any-project, not both');
    if (options.anyType && options.types !== undefined) throw new UsageError('--types or --any-type, not both');
    const body: UpdateWebhook = {
      ...(options.url !== undefined && { url: options.url }),
      ...(options.events !== undefined && { events: options.events }),
      ...(options.project !== undefined && { project_id: await projectId(context, options.project) }),
      ...(options.anyProject && { project_id: null }),
      ...(options.types !== undefined && { types: options.types }),
      ...(options.anyType && { types: null }),
      ...(options.format !== undefined && { format: options.format }),
      ...(options.description !== undefined && { description: options.description || null }),
    };
    if (Object.keys(body).length === 0) throw new UsageError('nothing to change: give at least one option');
    said(await context.work().updateWebhook(id, body), options, 'Updated');
  });

  for (const [name, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    webhook
      .command(name)
      .description(enabled ? 'Send to the endpoint again' : 'Stop sending to the endpoint')
      .argument('<webhook>', 'its id', webhookId)
      .option('--json', 'the endpoint as JSON')
      .action(async (id: string, options: { json?: boolean }) => {
        said(await context.work().updateWebhook(id, { enabled }), options, enabled ? 'Enabled' : 'Disabled');
      });
  }

  webhook
    .command('delete')
    .alias('rm')
    .description('Delete an endpoint and its delivery log')
    .argument('<webhook>', 'its id', webhookId)
    .action(async (id: string) => {
      await context.work().deleteWebhook(id);
      io.out(`Deleted webhook ${id}.\n`);
    });

  webhook
    .command('rotate-secret')
    .description('A new signing secret, printed once on stdout; the old one still signs for a while')
    .argument('<webhook>', 'its id', webhookId)
    .option('--json', 'the answer as JSON')
    .action(async (id: string, options: { json?: boolean }) => {
      const rotated = await context.work().rotateWebhookSecret(id);
      io.err(
        `New secret for webhook ${id}, shown only now. The previous one also signs until ${rotated.previous_valid_until}.\n`,
      );
      io.out(options.json ? json(rotated) : `${rotated.secret}\n`);
    });

  webhook
    .command('test')
    .description('Send a webhook.test event to this endpoint alone')
    .argument('<webhook>', 'its id', webhookId)
    .option('--json', 'the delivery as JSON')
    .action(async (id: string, options: { json?: boolean }) => {
      const delivery = await context.work().testWebhook(id);
      io.out(options.json ? json(delivery) : `Queued test delivery ${delivery.id}.\n`);
    });

  webhook
    .command('deliveries')
    .description('The delivery log, newest first: each delivery with its attempts')
    .argument('<webhook>', 'its id', webhookId)
    .addOption(new Option('--status <status>', 'only these').choices([...DELIVERY_STATUSES]))
    .option('--limit <n>', 'deliveries at most (1-200)', integer(1, 200))
    .option('--cursor <cursor>', 'the page after the one that printed it')
    .option('--json', 'a JSON array')
    .action(
      async (id: string, options: { status?: DeliveryStatus; limit?: number; cursor?: string; json?: boolean }) => {
        const page = await context.work().listWebhookDeliveries(id, {
          ...(options.status !== undefined && { status: options.status }),
          ...(options.limit !== undefined && { limit: options.limit }),
          ...(options.cursor !== undefined && { cursor: options.cursor }),
        });
        if (options.json) return io.out(json(page.deliveries));
        io.out(page.deliveries.length === 0 ? 'No deliveries.\n' : deliveryLog(page.deliveries, paint));
        if (page.next_cursor) io.out(`More: --cursor ${page.next_cursor}\n`);
      },
    );

  webhook
    .command('redeliver')
    .description('Send one delivery again, with the same webhook-id')
    .argument('<webhook>', 'its id', webhookId)
    .argument('<delivery>', 'the delivery id (msg_…), as deliveries shows it')
    .option('--json', 'the delivery as JSON')
    .action(async (id: string, deliveryId: string, options: { json?: boolean }) => {
      const delivery = await context.work().redeliverWebhook(id, deliveryId);
      io.out(options.json ? json(delivery) : `Queued ${delivery.id} again.\n`);
    });

  webhook
    .command('recover')
    .description('Send again every failed delivery since a time')
    .argument('<webhook>', 'its id', webhookId)
    .requiredOption('--since <time>', 'an ISO time with a zone, or a span back from now (90m, 24h, 3d)', (v) =>
      sinceTime(v),
    )
    .option('--json', 'the answer as JSON')
    .action(async (id: string, options: { since: string; json?: boolean }) => {
      const recovered = await context.work().recoverWebhookDeliveries(id, options.since);
      io.out(options.json ? json(recovered) : `Queued ${recovered.requeued} failed deliveries again.\n`);
    });
}
