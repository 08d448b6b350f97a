import { type Command, Option } from 'commander';
import {
  type CreateSchedule,
  type ItemTemplate,
  type Schedule,
  type ScheduleDetail,
  type UpdateSchedule,
  MAX_CATCHUP,
  MISSED_POLICIES,
  OVERLAP_POLICIES,
} from '../schedules/contract.js';
import type { CliContext } from './context.js';
import { UsageError } from './context.js';
import { type Paint, json, oneLine, paintFor, table } from './format.js';
import { integer, isUuid, projectId, readPayload } from './options.js';

// `agentdesk schedule …`: recurring work, one item per occurrence of a cron expression in a zone.
// Members and admins manage schedules; every reader lists, shows and previews them.

interface ScheduleOptions {
  name?: string;
  cron?: string;
  tz?: string;
  type?: string;
  description?: string;
  priority?: number;
  project?: string;
  payload?: string;
  agent?: string;
  missed?: CreateSchedule['missed'];
  maxCatchup?: number;
  overlap?: CreateSchedule['overlap'];
  startsAt?: string;
  endsAt?: string;
  disabled?: boolean;
  json?: boolean;
}

/** The zone of this machine: what "08:30" means to the person typing it. */
const localZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

function templateOptions(command: Command, update: boolean): Command {
  const none = update ? ' (none to clear)' : '';
  return command
    .option('--name <name>', 'unique per project, ignoring case')
    .option('--cron <expr>', 'five fields (minute hour day month weekday) or @hourly, @daily, @weekly, @monthly')
    .option('--tz <zone>', `an IANA time zone${update ? '' : ` (default this machine's: ${localZone()})`}`)
    .option('--type <type>', "each item's type")
    .option('--description <text>', "each item's description")
    .option('--priority <n>', '1 (highest) to 5; default 3', integer(1, 5))
    .option('--project <project>', `the items' project (id or name)${none}`)
    .option('--payload <json>', 'a JSON object (inline, @file.json or @- for stdin)')
    .option('--agent <agent>', 'dispatch each item to this agent')
    .addOption(new Option('--missed <policy>', 'occurrences more than 60 s late').choices([...MISSED_POLICIES]))
    .option(
      '--max-catchup <n>',
      `with --missed all, at most this many (${MAX_CATCHUP.min}–${MAX_CATCHUP.max})`,
      integer(MAX_CATCHUP.min, MAX_CATCHUP.max),
    )
    .addOption(
      new Option('--overlap <policy>', 'skip: no item while the previous one is not final').choices([
        ...OVERLAP_POLICIES,
      ]),
    )
    .option('--starts-at <time>', `no occurrence before it (ISO 8601)${none}`)
    .option('--ends-at <time>', `none after it (ISO 8601)${none}`)
    .option('--json', 'the schedule as JSON');
}

const nullable = (value: string | undefined) => (value === undefined ? undefined : value === 'none' ? null : value);

function policies(options: ScheduleOptions): Partial<CreateSchedule> {
  const startsAt = nullable(options.startsAt);
  const endsAt = nullable(options.endsAt);
  return {
    ...(options.missed !== undefined && { missed: options.missed }),
    ...(options.maxCatchup !== undefined && { max_catchup: options.maxCatchup }),
    ...(options.overlap !== undefined && { overlap: options.overlap }),
    ...(startsAt !== undefined && { starts_at: startsAt }),
    ...(endsAt !== undefined && { ends_at: endsAt }),
  };
}

/** `base` and the options together hold type and description (add checks that they are given). */
async function template(
  context: CliContext,
  options: ScheduleOptions,
  base: Partial<ItemTemplate>,
): Promise<ItemTemplate> {
  const project = options.project === undefined ? undefined : options.project === 'none' ? null : options.project;
  return {
    ...base,
    ...(options.type !== undefined && { type: options.type }),
    ...(options.description !== undefined && { description: options.description }),
    ...(options.priority !== undefined && { priority: options.priority }),
    ...(project !== undefined && { project_id: project === null ? null : await projectId(context, project) }),
    ...(options.payload !== undefined && { payload: await readPayload(context.io, options.payload) }),
    ...(options.agent !== undefined && { agent: options.agent }),
  } as ItemTemplate;
}

const touchesItem = (o: ScheduleOptions) =>
  [o.type, o.description, o.priority, o.project, o.payload, o.agent].some((value) => value !== undefined);

/** A schedule by id, or by its name when one schedule has it (ignoring case). */
async function scheduleId(context: CliContext, value: string): Promise<string> {
  if (isUuid(value)) return value.toLowerCase();
  const wanted = value.trim().toLowerCase();
  const found = (await context.work().listSchedules()).filter((s) => s.name.toLowerCase() === wanted);
  if (found.length === 1) return found[0]!.id;
  // Not a usage mistake: the service knows no such schedule, or several (exit 1).
  throw new Error(
    found.length === 0
      ? `no schedule named "${value}" (schedule list shows them)`
      : `${found.length} schedules are named "${value}" (one per project): give its id`,
  );
}

const state = (s: Schedule, paint: Paint) => (s.enabled ? paint.green('enabled') : paint.dim('disabled'));

function scheduleLine(s: Schedule, paint: Paint): string {
  const next = s.next_run_local ? `next ${s.next_run_local}` : 'no next run';
  return `${s.id}  ${s.name}  ${s.cron} ${s.tz}  ${state(s, paint)}  ${next}\n`;
}

export function scheduleDetail(s: ScheduleDetail, paint: Paint): string {
  const lines = [
    `${paint.bold(s.name)}  ${state(s, paint)}${s.disabled_reason ? ` (${s.disabled_reason})` : ''}`,
    `id          ${s.id}`,
    `rhythm      ${s.cron} in ${s.tz}`,
    `item        ${s.item.type}: ${oneLine(s.item.description, 70)}`,
    `project     ${s.project_id ?? '-'}`,
    `missed      ${s.missed}${s.missed === 'all' ? ` (at most ${s.max_catchup})` : ''}   overlap ${s.overlap}`,
    `window      ${s.starts_at ?? '-'} to ${s.ends_at ?? '-'}`,
    `last run    ${s.last_run_at ?? '-'}`,
    `created by  ${s.created_by}`,
    '',
    paint.bold('Next runs'),
    ...(s.next_runs.length === 0 ? ['  none'] : s.next_runs.map((run) => `  ${run.local}  (${run.at})`)),
    '',
    paint.bold('Occurrences (newest first)'),
  ];
  if (s.occurrences.length === 0) lines.push('  none yet');
  for (const o of s.occurrences) {
    lines.push(`  ${o.occurrence_local}  ${o.outcome}  ${o.work_item_id ?? o.reason ?? '-'}`);
  }
  return `${lines.join('\n')}\n`;
}

export function registerScheduleCommand(program: Command, context: CliContext): void {
  const { io } = context;
  const paint = () => paintFor(io);
  const schedule = program
    .command('schedule')
    .description('Recurring work: one item per occurrence of a cron expression in a time zone (AUTH: members manage)');

  schedule
    .command('list')
    .alias('ls')
    .description('Every schedule, by name')
    .option('--project <project>', 'of this project (id or name)')
    .option('--enabled', 'only enabled schedules')
    .option('--disabled', 'only disabled schedules')
    .option('--json', 'a JSON array')
    .action(async (options: { project?: string; enabled?: boolean; disabled?: boolean; json?: boolean }) => {
      if (options.enabled && options.disabled) throw new UsageError('--enabled and --disabled exclude each other');
      const found = await context.work().listSchedules({
        ...(options.project !== undefined && { project_id: await projectId(context, options.project) }),
        ...(options.enabled && { enabled: 'true' as const }),
        ...(options.disabled && { enabled: 'false' as const }),
      });
      if (options.json) return io.out(json(found));
      if (found.length === 0) return io.out('No schedules.\n');
      io.out(
        table(
          ['ID', 'NAME', 'CRON', 'ZONE', 'STATE', 'NEXT RUN (LOCAL)'],
          found.map((s) => [s.id, oneLine(s.name, 40), s.cron, s.tz, state(s, paint()), s.next_run_local ?? '-']),
          paint(),
        ),
      );
    });

  schedule
    .command('show')
    .description('One schedule with its next five runs and its last 20 occurrences')
    .argument('<schedule>', 'its id or name')
    .option('--json', 'the schedule as JSON')
    .action(async (which: string, options: { json?: boolean }) => {
      const found = await context.work().getSchedule(await scheduleId(context, which));
      io.out(options.json ? json(found) : scheduleDetail(found, paint()));
    });

  templateOptions(schedule.command('add').alias('create'), false)
    .description('Create a schedule')
    .option('--disabled', 'create it disabled')
    .action(async (options: ScheduleOptions) => {
      const missing = (['name', 'cron', 'type', 'description'] as const).filter((key) => options[key] === undefined);
      if (missing.length > 0) throw new UsageError(`missing ${missing.map((key) => `--${key}`).join(', ')}`);
      const item = await template(context, options, {});
      const created = await context.work().createSchedule({
        name: options.name!,
        cron: options.cron!,
        tz: options.tz ?? localZone(),
        item,
        ...policies(options),
        ...(options.disabled && { enabled: false }),
      });
      io.out(options.json ? json(created) : scheduleLine(created, paint()));
    });

  templateOptions(schedule.command('update'), true)
    .description('Change a schedule; a new rhythm starts at the time of the edit')
    .argument('<schedule>', 'its id or name')
    .action(async (which: string, options: ScheduleOptions) => {
      const given = Object.keys(options).some((key) => key !== 'json');
      if (!given) throw new UsageError('nothing to change: give at least one option');
      const id = await scheduleId(context, which);
      const patch: UpdateSchedule = {
        ...(options.name !== undefined && { name: options.name }),
        ...(options.cron !== undefined && { cron: options.cron }),
        ...(options.tz !== undefined && { tz: options.tz }),
        ...policies(options),
      };
      // The template is replaced whole: merge the fields given into the current one.
      if (touchesItem(options))
        patch.item = await template(context, options, (await context.work().getSchedule(id)).item);
      const updated = await context.work().updateSchedule(id, patch);
      io.out(options.json ? json(updated) : scheduleLine(updated, paint()));
    });

  for (const [verb, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    schedule
      .command(verb)
      .description(
        enabled
          ? 'Enable a schedule: what came due while disabled follows its missed policy'
          : 'Disable a schedule: it makes nothing until enabled',
      )
      .argument('<schedule>', 'its id or name')
      .option('--json', 'the schedule as JSON')
      .action(async (which: string, options: { json?: boolean }) => {
        const updated = await context.work().updateSchedule(await scheduleId(context, which), { enabled });
        io.out(options.json ? json(updated) : scheduleLine(updated, paint()));
      });
  }

  schedule
    .command('delete')
    .alias('rm')
    .description('Delete a schedule and its occurrences; the items it made stay')
    .argument('<schedule>', 'its id or name')
    .action(async (which: string) => {
      const id = await scheduleId(context, which);
      await context.work().deleteSchedule(id);
      io.out(`Deleted ${id}.\n`);
    });

  schedule
    .command('run')
    .description('One occurrence now, outside the rhythm: its item is made at once')
    .argument('<schedule>', 'its id or name')
    .option('--json', 'the occurrence and the item id as JSON')
    .action(async (which: string, options: { json?: boolean }) => {
      const ran = await context.work().runSchedule(await scheduleId(context, which));
      io.out(options.json ? json(ran) : `Made ${ran.work_item_id} (occurrence ${ran.occurrence.occurrence_local}).\n`);
    });

  schedule
    .command('preview')
    .description('The next five runs of an expression in a zone, without saving')
    .requiredOption('--cron <expr>', 'five fields or @hourly, @daily, @weekly, @monthly')
    .option('--tz <zone>', `an IANA time zone (default this machine's: ${localZone()})`)
    .option('--starts-at <time>', 'no run before it (ISO 8601)')
    .option('--json', 'the runs as JSON')
    .action(async (options: { cron: string; tz?: string; startsAt?: string; json?: boolean }) => {
      const preview = await context.work().previewSchedule({
        cron: options.cron,
        tz: options.tz ?? localZone(),
        ...(options.startsAt !== undefined && { starts_at: options.startsAt }),
      });
      if (options.json) return io.out(json(preview));
      if (preview.runs.length === 0) return io.out('No runs.\n');
      io.out(
        table(
          ['LOCAL', 'UTC'],
          preview.runs.map((run) => [run.local, run.at]),
          paint(),
        ),
      );
    });
}
