import { type Static, Type } from 'typebox';
import { Nullable, TimestampSchema, UuidSchema } from '../shared/http/schemas.js';
import { CreateWorkItemSchema } from '../work/contract.js';

// Schedules on the wire: the routes, MCP and the typed client share these. Times are UTC ISO
// strings; each `*_local` twin is the same instant in the schedule's zone, with its offset.

export const MISSED_POLICIES = ['skip', 'once', 'all'] as const;
export type MissedPolicy = (typeof MISSED_POLICIES)[number];
export const OVERLAP_POLICIES = ['skip', 'allow'] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];
export const OCCURRENCE_OUTCOMES = ['made', 'skipped_overlap', 'missed', 'run_now', 'failed'] as const;
export type OccurrenceOutcome = (typeof OCCURRENCE_OUTCOMES)[number];

export const CRON_NICKNAMES = ['@hourly', '@daily', '@weekly', '@monthly'] as const;
export const MAX_CATCHUP = { min: 1, max: 1000, default: 100 } as const;
export const SCHEDULE_LIMITS = { name: 200, cron: 200, tz: 64 } as const;
/** How many upcoming runs and past occurrences a schedule's page shows. */
export const NEXT_RUNS = 5;
export const RECENT_OCCURRENCES = 20;

const item = CreateWorkItemSchema.properties;
export const ItemTemplateSchema = Type.Object(
  {
    type: item.type,
    description: item.description,
    priority: item.priority,
    project_id: item.project_id,
    payload: item.payload,
    agent: item.agent,
    review_required: item.review_required,
    watchers: item.watchers,
  },
  {
    additionalProperties: false,
    description: "The fields of each item it makes; payload.schedule is the desk's ({id, name, occurrence_at})",
  },
);
export type ItemTemplate = Static<typeof ItemTemplateSchema>;

const NameSchema = Type.String({ minLength: 1, maxLength: SCHEDULE_LIMITS.name, pattern: '\\S' });
const CronSchema = Type.String({
  minLength: 1,
  maxLength: SCHEDULE_LIMITS.cron,
  description: `Five fields (minute hour day-of-month month day-of-week) or ${CRON_NICKNAMES.join(', ')}`,
});
const TzSchema = Type.String({ minLength: 1, maxLength: SCHEDULE_LIMITS.tz, description: 'An IANA time zone' });
const MissedSchema = Type.Enum([...MISSED_POLICIES], {
  description: 'Occurrences more than 60 s late: skip none, make the latest once, or all (at most max_catchup)',
});
const OverlapSchema = Type.Enum([...OVERLAP_POLICIES], {
  description: "skip: no item while the previous occurrence's item is not final",
});
const MaxCatchupSchema = Type.Integer({ minimum: MAX_CATCHUP.min, maximum: MAX_CATCHUP.max });
const WhenSchema = Type.String({ format: 'date-time', description: 'ISO 8601 with a zone' });

const settable = {
  name: NameSchema,
  cron: CronSchema,
  tz: TzSchema,
  item: ItemTemplateSchema,
  missed: Type.Optional(MissedSchema),
  max_catchup: Type.Optional(MaxCatchupSchema),
  overlap: Type.Optional(OverlapSchema),
  starts_at: Type.Optional(Nullable(WhenSchema)),
  ends_at: Type.Optional(Nullable(WhenSchema)),
  enabled: Type.Optional(Type.Boolean()),
};

export const CreateScheduleSchema = Type.Object(settable, { additionalProperties: false });
export type CreateSchedule = Static<typeof CreateScheduleSchema>;

export const UpdateScheduleSchema = Type.Object(
  {
    ...settable,
    name: Type.Optional(NameSchema),
    cron: Type.Optional(CronSchema),
    tz: Type.Optional(TzSchema),
    item: Type.Optional(ItemTemplateSchema),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateSchedule = Static<typeof UpdateScheduleSchema>;

export const RunTimeSchema = Type.Object({ at: TimestampSchema, local: Type.String() });
export type RunTime = Static<typeof RunTimeSchema>;

export const OccurrenceSchema = Type.Object({
  occurrence_at: TimestampSchema,
  occurrence_local: Type.String(),
  outcome: Type.Enum([...OCCURRENCE_OUTCOMES]),
  work_item_id: Nullable(UuidSchema),
  reason: Nullable(Type.String()),
  created_at: TimestampSchema,
});
export type Occurrence = Static<typeof OccurrenceSchema>;

export const ScheduleSchema = Type.Object({
  id: UuidSchema,
  name: Type.String(),
  cron: Type.String(),
  tz: Type.String(),
  project_id: Nullable(UuidSchema),
  item: ItemTemplateSchema,
  missed: MissedSchema,
  max_catchup: Type.Integer(),
  overlap: OverlapSchema,
  starts_at: Nullable(TimestampSchema),
  ends_at: Nullable(TimestampSchema),
  enabled: Type.Boolean(),
  disabled_reason: Nullable(Type.String()),
  next_run_at: Nullable(TimestampSchema),
  next_run_local: Nullable(Type.String({ description: 'next_run_at in tz, ISO 8601 with its offset' })),
  last_run_at: Nullable(TimestampSchema),
  created_by: Type.String(),
  created_at: TimestampSchema,
  updated_at: TimestampSchema,
  version: Type.Integer(),
});
export type Schedule = Static<typeof ScheduleSchema>;

export const ScheduleDetailSchema = Type.Object({
  ...ScheduleSchema.properties,
  next_runs: Type.Array(RunTimeSchema, { description: 'The next five occurrences (fewer before ends_at)' }),
  occurrences: Type.Array(OccurrenceSchema, { description: 'The last 20 occurrences, newest first' }),
});
export type ScheduleDetail = Static<typeof ScheduleDetailSchema>;

export const ScheduleParamsSchema = Type.Object({ id: UuidSchema });

export const ListSchedulesQuerySchema = Type.Object(
  {
    project_id: Type.Optional(UuidSchema),
    enabled: Type.Optional(Type.Enum(['true', 'false'])),
  },
  { additionalProperties: false },
);
export type ListSchedulesQuery = Static<typeof ListSchedulesQuerySchema>;

export const PreviewQuerySchema = Type.Object(
  { cron: CronSchema, tz: TzSchema, starts_at: Type.Optional(WhenSchema) },
  { additionalProperties: false },
);
export type PreviewQuery = Static<typeof PreviewQuerySchema>;

export const PreviewSchema = Type.Object({ runs: Type.Array(RunTimeSchema) });
export type Preview = Static<typeof PreviewSchema>;

export const RunNowSchema = Type.Object({ occurrence: OccurrenceSchema, work_item_id: UuidSchema });
export type RunNow = Static<typeof RunNowSchema>;
