import { type Static, Type } from 'typebox';
import { Nullable } from '../shared/http/schemas.js';
import { CATEGORIES, DEDUPE_STATUSES, FALLBACK_CATEGORY, MATCHED_ON, PRIORITIES } from './categories.js';

// Request: the simplified shape or a Microsoft Graph message, plus the per-request overrides.
// Every field the spec lists is typed; anything else a Graph message carries passes through.

export const OVERRIDE_PROVIDERS = ['openai', 'anthropic'] as const;
export type OverrideProvider = (typeof OVERRIDE_PROVIDERS)[number];

/** 5 MiB, as the issue sets; larger bodies are a 413. */
export const CLASSIFY_BODY_LIMIT = 5 * 1024 * 1024;

const Text = Nullable(Type.String());

export const GraphEmailAddressSchema = Type.Object(
  {
    emailAddress: Type.Object(
      { name: Type.Optional(Text), address: Type.Optional(Text) },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true },
);

const RecipientsSchema = Nullable(Type.Array(GraphEmailAddressSchema, { maxItems: 10_000 }));

export const GraphItemBodySchema = Type.Object(
  { contentType: Type.Optional(Text), content: Type.Optional(Text) },
  { additionalProperties: true },
);

export const ClassifyRequestSchema = Type.Object(
  {
    email_data: Type.Optional(
      Type.Object(
        { subject: Type.Optional(Text), body: Type.Optional(Text) },
        { additionalProperties: true, description: 'The simplified shape: subject and a body that may be HTML' },
      ),
    ),
    id: Type.Optional(Text),
    internetMessageId: Type.Optional(Text),
    conversationId: Type.Optional(Text),
    subject: Type.Optional(Text),
    bodyPreview: Type.Optional(Text),
    body: Type.Optional(Nullable(GraphItemBodySchema)),
    uniqueBody: Type.Optional(Nullable(GraphItemBodySchema)),
    sender: Type.Optional(Nullable(GraphEmailAddressSchema)),
    from: Type.Optional(Nullable(GraphEmailAddressSchema)),
    toRecipients: Type.Optional(RecipientsSchema),
    ccRecipients: Type.Optional(RecipientsSchema),
    bccRecipients: Type.Optional(RecipientsSchema),
    replyTo: Type.Optional(RecipientsSchema),
    receivedDateTime: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
    sentDateTime: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
    hasAttachments: Type.Optional(Nullable(Type.Boolean())),
    importance: Type.Optional(Text),
    isRead: Type.Optional(Nullable(Type.Boolean())),
    flag: Type.Optional(Nullable(Type.Object({ flagStatus: Type.Optional(Text) }, { additionalProperties: true }))),
    internetMessageHeaders: Type.Optional(
      Nullable(Type.Array(Type.Object({ name: Type.String(), value: Type.String() }, { additionalProperties: true }))),
    ),
    attachments: Type.Optional(
      Nullable(
        Type.Array(Type.Object({ name: Type.Optional(Text) }, { additionalProperties: true }), {
          maxItems: 10_000,
          description: "Graph's expanded attachments; only their names are read",
        }),
      ),
    ),
    provider: Type.Optional(
      Type.Enum([...OVERRIDE_PROVIDERS], { description: 'Overrides LLM_PROVIDER for this request' }),
    ),
    model: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Overrides LLM_MODEL' })),
    base_url: Type.Optional(
      Type.String({ minLength: 1, maxLength: 2_000, description: 'Provider API base address; requires api_key' }),
    ),
    api_key: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1_000,
        description: 'Provider credential; never logged, stored or echoed',
      }),
    ),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  },
  { additionalProperties: true },
);
export type ClassifyRequest = Static<typeof ClassifyRequestSchema>;

const DetailsSchema = Type.Object(
  {
    summary: Text,
    suggested_title: Text,
    suggested_notes: Text,
    deadline: Text,
    people: Type.Array(Type.String()),
    organizations: Type.Array(Type.String()),
    attachments_referenced: Type.Array(Type.String()),
    next_steps: Type.Array(Type.String()),
    key_points: Type.Array(Type.String()),
    source_signals: Type.Array(Type.String()),
    dedupe_key: Nullable(Type.String({ description: 'Content fingerprint (SHA-256 hex)' })),
  },
  { additionalProperties: false },
);

const DedupeSchema = Type.Object(
  {
    status: Type.Enum([...DEDUPE_STATUSES]),
    seen_count: Type.Integer({ minimum: 1 }),
    matched_on: Type.Enum([...MATCHED_ON]),
    message_id: Text,
    conversation_id: Text,
    fingerprint: Type.String(),
  },
  { additionalProperties: false },
);

export const ClassifyResultSchema = Type.Object(
  {
    needs_action: Type.Boolean(),
    category: Type.Enum([...CATEGORIES, FALLBACK_CATEGORY]),
    priority: Type.Enum([...PRIORITIES]),
    task_description: Text,
    reasoning: Type.String(),
    confidence: Type.Number({ minimum: 0, maximum: 1 }),
    details: DetailsSchema,
    dedupe: DedupeSchema,
  },
  { additionalProperties: false },
);
