import { type Static, Type } from 'typebox';
import { Nullable, TimestampSchema } from '../../shared/http/schemas.js';
import { StatusCountsSchema } from '../api-contract.js';

/** Statuses that hold an item in the desk (not finished): the depth chart draws these. */
export const OPEN_STATUSES = ['queued', 'dispatched', 'in_progress', 'blocked'] as const;

export const MAX_STATS_DAYS = 31;

export const StatsQuerySchema = Type.Object(
  {
    days: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_STATS_DAYS,
        default: 7,
        description: 'How many days of hourly history; 7 unless given',
      }),
    ),
  },
  { additionalProperties: false },
);

const Count = Type.Integer({ minimum: 0 });

export const DepthSchema = Type.Object(
  Object.fromEntries(OPEN_STATUSES.map((status) => [status, Type.Integer()])) as Record<
    (typeof OPEN_STATUSES)[number],
    ReturnType<typeof Type.Integer>
  >,
  { additionalProperties: false },
);

export const StatsHourSchema = Type.Object(
  {
    hour: Type.String({ description: 'The hour (UTC) the numbers cover, from its first millisecond' }),
    created: Count,
    completed: Count,
    failed: Count,
    cancelled: Count,
    /** Items in each open status at the end of the hour (now, for the current hour). */
    depth: DepthSchema,
  },
  { additionalProperties: false },
);

export const AgentStatsSchema = Type.Object(
  {
    agent: Type.String(),
    completed: Count,
    failed: Type.Integer({ minimum: 0, description: 'Dispatches that ended failed or with the lease run out' }),
    failure_rate: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
    lead_time_median_s: Nullable(
      Type.Number({ minimum: 0, description: 'Dispatched → completed, from a histogram (within 9%)' }),
    ),
    lead_time_p90_s: Nullable(Type.Number({ minimum: 0 })),
  },
  { additionalProperties: false },
);

export const TypeCountsSchema = Type.Object(
  { type: Type.String(), total: Count, by_status: StatusCountsSchema },
  { additionalProperties: false },
);

export const OldestQueuedSchema = Type.Object(
  { type: Type.String(), age_s: Type.Number({ minimum: 0 }) },
  { additionalProperties: false },
);

export const WorkStatsSchema = Type.Object(
  {
    generated_at: TimestampSchema,
    since: TimestampSchema,
    until: TimestampSchema,
    by_status: StatusCountsSchema,
    by_type: Type.Array(TypeCountsSchema, {
      description:
        'The types with the most items (METRICS_MAX_TYPES, ties by name), most first; then `other`: every other type added up',
    }),
    other_types: Type.Integer({ minimum: 0, description: 'How many types `other` adds up (0: every type is listed)' }),
    oldest_queued_age_s: Nullable(
      Type.Number({ minimum: 0, description: 'Seconds the oldest queued item has waited since it was created' }),
    ),
    oldest_queued_by_type: Type.Array(OldestQueuedSchema, {
      description:
        'For the types listed in `by_type` (and `other`, the oldest of the rest) that have queued items, oldest first',
    }),
    totals: Type.Object(
      { created: Count, completed: Count, failed: Count, cancelled: Count },
      { additionalProperties: false },
    ),
    hourly: Type.Array(StatsHourSchema),
    agents: Type.Array(AgentStatsSchema),
  },
  { additionalProperties: false },
);

export type WorkStats = Static<typeof WorkStatsSchema>;
export type StatsHour = Static<typeof StatsHourSchema>;
export type AgentStats = Static<typeof AgentStatsSchema>;
