import { type Static, Type } from 'typebox';
import { Nullable, TimestampSchema, UuidSchema } from '../../shared/http/schemas.js';

// The outbox on the wire: who was told, of what, when, and how sending went. The mail's bodies
// are not shown: they carry the person's signed answer links.

export const NOTIFICATION_KINDS = ['question', 'review', 'digest', 'escalation', 'test', 'notice'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/**
 * pending: not tried yet; sent; failed: the last attempt failed. A failed row is tried again
 * while `next_attempt_at` is set; once the attempts are spent it stays failed with none (given up).
 * skipped: its question closed (answered or moot) before the mail went, so it never will;
 * `last_error` says why.
 */
export const NOTIFICATION_STATUSES = ['pending', 'sent', 'failed', 'skipped'] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

export const NOTIFICATION_PAGE = { default: 50, max: 200 } as const;

export const NotificationSchema = Type.Object(
  {
    id: UuidSchema,
    kind: Type.Enum([...NOTIFICATION_KINDS]),
    person: Type.String(),
    address: Type.String(),
    work_item_id: Nullable(UuidSchema),
    question_id: Nullable(UuidSchema),
    message_id: Type.String(),
    subject: Type.String(),
    status: Type.Enum([...NOTIFICATION_STATUSES], {
      description:
        'failed: the last attempt failed; tried again at next_attempt_at, or given up when that is null. skipped: the question closed before the mail went (last_error says why); never sent',
    }),
    attempts: Type.Integer({ minimum: 0 }),
    next_attempt_at: Nullable(TimestampSchema),
    last_error: Nullable(Type.String()),
    created_at: TimestampSchema,
    sent_at: Nullable(TimestampSchema),
  },
  { additionalProperties: false },
);
export type Notification = Static<typeof NotificationSchema>;

export const NotificationsQuerySchema = Type.Object(
  {
    status: Type.Optional(Type.Enum([...NOTIFICATION_STATUSES])),
    work_item_id: Type.Optional(UuidSchema),
    person: Type.Optional(Type.String({ minLength: 1, maxLength: 254 })),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: NOTIFICATION_PAGE.max, default: NOTIFICATION_PAGE.default }),
    ),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'Opaque; from the Link header' })),
  },
  { additionalProperties: false },
);
export type NotificationsQuery = Static<typeof NotificationsQuerySchema>;
