import { type Static, Type } from 'typebox';
import { Nullable, TimestampSchema, UuidSchema } from '../shared/http/schemas.js';
import { WorkTypeSchema } from '../work/contract.js';

// Webhooks on the wire. An endpoint's secret appears only in the answers to create and
// rotate-secret; every other answer leaves it out.

export const WEBHOOK_FORMATS = ['standard', 'slack'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** gone: it answered 410; failing: it failed for days on end; admin: PATCH enabled:false. */
export const DISABLED_REASONS = ['gone', 'failing', 'admin'] as const;
export type DisabledReason = (typeof DISABLED_REASONS)[number];

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const DELIVERY_PAGE = { default: 50, max: 200 } as const;

const UrlSchema = Type.String({ minLength: 1, maxLength: 2048, description: 'http(s) address the deliveries go to' });
const EventsSchema = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  minItems: 1,
  maxItems: 64,
  description: 'Event names (GET /webhooks/events), or ["*"] for all',
});
const TypesSchema = Type.Array(WorkTypeSchema, {
  minItems: 1,
  maxItems: 64,
  description: 'Only work items of these types',
});
const DescriptionSchema = Type.String({ maxLength: 500 });

export const WebhookSchema = Type.Object(
  {
    id: UuidSchema,
    url: Type.String(),
    events: Type.Array(Type.String()),
    project_id: Nullable(UuidSchema),
    types: Nullable(Type.Array(Type.String())),
    format: Type.Enum([...WEBHOOK_FORMATS]),
    description: Nullable(Type.String()),
    enabled: Type.Boolean(),
    disabled_reason: Nullable(Type.Enum([...DISABLED_REASONS])),
    failing_since: Nullable(TimestampSchema),
    created_by: Type.String(),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
    secret_overlap_until: Nullable(TimestampSchema),
  },
  { additionalProperties: false },
);
export type Webhook = Static<typeof WebhookSchema>;

export const CreatedWebhookSchema = Type.Object(
  { ...WebhookSchema.properties, secret: Type.String({ description: 'whsec_…: shown this once' }) },
  { additionalProperties: false },
);
export type CreatedWebhook = Static<typeof CreatedWebhookSchema>;

export const WebhookDetailSchema = Type.Object(
  {
    ...WebhookSchema.properties,
    pending: Type.Integer({ minimum: 0 }),
    oldest_pending_at: Nullable(TimestampSchema),
  },
  { additionalProperties: false },
);
export type WebhookDetail = Static<typeof WebhookDetailSchema>;

export const CreateWebhookSchema = Type.Object(
  {
    url: UrlSchema,
    events: EventsSchema,
    project_id: Type.Optional(Nullable(UuidSchema)),
    types: Type.Optional(Nullable(TypesSchema)),
    format: Type.Optional(Type.Enum([...WEBHOOK_FORMATS])),
    description: Type.Optional(Nullable(DescriptionSchema)),
  },
  { additionalProperties: false },
);
export type CreateWebhook = Static<typeof CreateWebhookSchema>;

export const UpdateWebhookSchema = Type.Object(
  {
    url: Type.Optional(UrlSchema),
    events: Type.Optional(EventsSchema),
    project_id: Type.Optional(Nullable(UuidSchema)),
    types: Type.Optional(Nullable(TypesSchema)),
    format: Type.Optional(Type.Enum([...WEBHOOK_FORMATS])),
    description: Type.Optional(Nullable(DescriptionSchema)),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateWebhook = Static<typeof UpdateWebhookSchema>;

export const RotatedSecretSchema = Type.Object(
  { id: UuidSchema, secret: Type.String(), previous_valid_until: TimestampSchema },
  { additionalProperties: false },
);
export type RotatedSecret = Static<typeof RotatedSecretSchema>;

export const AttemptSchema = Type.Object(
  {
    at: TimestampSchema,
    status_code: Nullable(Type.Integer()),
    latency_ms: Type.Integer({ minimum: 0 }),
    response_body: Nullable(Type.String({ description: 'The first KiB of the answer' })),
    error: Nullable(Type.String()),
  },
  { additionalProperties: false },
);
export type Attempt = Static<typeof AttemptSchema>;

export const DeliverySchema = Type.Object(
  {
    id: Type.String({ description: 'msg_…: the webhook-id header, the same on every retry and redelivery' }),
    endpoint_id: UuidSchema,
    event_id: Nullable(Type.Integer()),
    type: Type.String(),
    status: Type.Enum([...DELIVERY_STATUSES], {
      description: 'pending: waiting for its first or next attempt (next_attempt_at); failed: retries spent',
    }),
    attempt_count: Type.Integer({ minimum: 0 }),
    next_attempt_at: Nullable(TimestampSchema),
    created_at: TimestampSchema,
    delivered_at: Nullable(TimestampSchema),
    attempts: Type.Array(AttemptSchema),
  },
  { additionalProperties: false },
);
export type Delivery = Static<typeof DeliverySchema>;

export const WebhookParamsSchema = Type.Object({ id: UuidSchema }, { additionalProperties: false });
export const DeliveryParamsSchema = Type.Object(
  { id: UuidSchema, delivery_id: Type.String({ pattern: '^msg_[A-Za-z0-9_-]{1,64}$' }) },
  { additionalProperties: false },
);

export const DeliveriesQuerySchema = Type.Object(
  {
    status: Type.Optional(Type.Enum([...DELIVERY_STATUSES])),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: DELIVERY_PAGE.max, default: DELIVERY_PAGE.default })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'Opaque; from the Link header' })),
  },
  { additionalProperties: false },
);
export type DeliveriesQuery = Static<typeof DeliveriesQuerySchema>;

export const RecoverSchema = Type.Object({ since: TimestampSchema }, { additionalProperties: false });
export const RecoveredSchema = Type.Object({ requeued: Type.Integer({ minimum: 0 }) }, { additionalProperties: false });
export const WebhookEventsSchema = Type.Object({ events: Type.Array(Type.String()) }, { additionalProperties: false });
