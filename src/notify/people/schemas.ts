import { type Static, Type } from 'typebox';
import { Nullable, TimestampSchema } from '../../shared/http/schemas.js';
import { PersonNameSchema } from '../../work/contract.js';

// A person's profile on the wire: where the desk writes to them and how often. The name is the
// one its member token acts as (or X-User with AUTH=off), so watchers and `to` name people alike.

export const NOTIFY_MODES = ['immediate', 'digest', 'off'] as const;
export type NotifyMode = (typeof NOTIFY_MODES)[number];

/** The longest address SMTP carries (RFC 5321's path limit less its brackets). */
export const MAX_EMAIL_LENGTH = 254;

const EmailSchema = Type.String({
  format: 'email',
  minLength: 3,
  maxLength: MAX_EMAIL_LENGTH,
  description: 'One address, without a display name',
});
const NotifyModeSchema = Type.Enum([...NOTIFY_MODES], {
  description: 'immediate: one email per question or review; digest: one a day at digest_at; off: none',
});
const DigestAtSchema = Type.String({
  pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
  description: "HH:MM (24 h) in the person's zone, for a digest",
});
const TimeZoneSchema = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'An IANA time zone, e.g. Europe/Berlin; UTC when left out',
});

export const PersonSchema = Type.Object(
  {
    name: Type.String(),
    email: Type.String(),
    notify: NotifyModeSchema,
    digest_at: Nullable(Type.String()),
    tz: Nullable(Type.String()),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  },
  { additionalProperties: false },
);
export type Person = Static<typeof PersonSchema>;

/** The whole profile: what PUT leaves out is cleared. */
export const PutPersonSchema = Type.Object(
  {
    email: EmailSchema,
    notify: NotifyModeSchema,
    digest_at: Type.Optional(Nullable(DigestAtSchema)),
    tz: Type.Optional(Nullable(TimeZoneSchema)),
  },
  { additionalProperties: false },
);
export type PutPerson = Static<typeof PutPersonSchema>;

export const PersonParamsSchema = Type.Object({ name: PersonNameSchema });
