import { Type } from 'typebox';
import { ACCESS, roleMay } from '../auth/contract.js';
import { CreateScheduleSchema, ListSchedulesQuerySchema, ScheduleSchema } from '../schedules/contract.js';
import { ToolRefusal } from './refusals.js';
import { ADDS, READS, type ToolDefinition, define } from './tools.js';

// The tools for recurring work: any reader lists schedules; creating one is a person's call
// (members and admins), so it is not listed to agents, and an agent that calls it anyway is
// told plainly to ask a person.

const SchedulesOutputSchema = Type.Object({ schedules: Type.Array(ScheduleSchema) }, { additionalProperties: false });

export const SCHEDULE_TOOLS: readonly ToolDefinition[] = [
  define({
    name: 'list_schedules',
    title: 'List schedules',
    description:
      'List the schedules of recurring work (cron in a time zone, the item each occurrence makes, next_run_at in UTC and next_run_local), by name; filter by project_id and enabled ("true"/"false").',
    access: ACCESS.read,
    input: ListSchedulesQuerySchema,
    output: SchedulesOutputSchema,
    annotations: READS,
    async run(args, { client, signal }) {
      return { schedules: await client.listSchedules(args, { signal }) };
    },
  }),
  define({
    name: 'create_schedule',
    title: 'Create a schedule',
    description:
      'Create a schedule: one work item (item: type, description, …) per occurrence of cron (five fields or @hourly/@daily/@weekly/@monthly) in tz (IANA). missed: skip|once|all, overlap: skip|allow. Members and admins only.',
    access: ACCESS.schedule,
    input: CreateScheduleSchema,
    output: ScheduleSchema,
    annotations: ADDS,
    async run(args, { client, caller, signal }) {
      if (!roleMay(caller.role, ACCESS.schedule)) {
        throw new ToolRefusal(
          `Schedules are set up by people (members and admins), not by ${caller.role}s: do not retry. Ask a person to create it, or call list_schedules to see the existing ones.`,
        );
      }
      return client.createSchedule(args, { signal });
    },
  }),
];
