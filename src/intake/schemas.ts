import { type Static, Type } from 'typebox';
import { CATEGORIES, FALLBACK_CATEGORY } from '../classify/contract.js';
import { Nullable, TimestampSchema, UuidSchema } from '../shared/http/schemas.js';
import { AgentNameSchema, PrioritySchema, WorkTypeSchema } from '../work/contract.js';
import { AUTH_KINDS, MAILBOX_KINDS, MAILBOX_STATES, MESSAGE_ACTIONS, MESSAGE_SOURCES, TLS_MODES } from './tables.js';

export const MAX_RULES = 100;
export const DEFAULT_MESSAGES_PAGE = 50;
export const MAX_MESSAGES_PAGE = 500;
/** The type of the work items the default rule creates. */
export const EMAIL_TASK_TYPE = 'email_task';

const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
const HostSchema = Type.String({
  minLength: 1,
  maxLength: 253,
  pattern: '^[A-Za-z0-9.:\\[\\]_-]+$',
  description: 'Host name or IP address',
});
const PortSchema = Type.Integer({ minimum: 1, maximum: 65_535 });
const TlsSchema = Type.Enum([...TLS_MODES], {
  description: '`tls`: TLS from the first byte (993); `starttls`: upgraded, required; `none`: clear text',
});
const Secret = (description: string) =>
  Type.String({ minLength: 1, maxLength: 20_000, description: `${description}; write-only, never returned` });
const FolderSchema = Type.String({
  minLength: 1,
  maxLength: 1_000,
  description: 'Default INBOX (IMAP) or inbox (Graph)',
});
const CategorySchema = Type.Enum([...CATEGORIES, FALLBACK_CATEGORY]);

export const RuleMatchSchema = Type.Object(
  {
    category: Type.Optional(
      Type.Array(CategorySchema, { minItems: 1, maxItems: 20, description: 'Any of these categories' }),
    ),
    sender: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 320 }), {
        minItems: 1,
        maxItems: 200,
        description: 'Addresses (ada@example.com) or domains (example.com, which also matches its subdomains)',
      }),
    ),
    subject_contains: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'Case-insensitive' })),
    needs_action: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, description: 'Every condition given must hold; none given matches every message' },
);

export const RULE_ACTIONS = ['create_item', 'record'] as const;

export const RoutingRuleSchema = Type.Object(
  {
    match: RuleMatchSchema,
    action: Type.Enum([...RULE_ACTIONS]),
    item: Type.Optional(
      Type.Object(
        {
          type: Type.Optional(WorkTypeSchema),
          project_id: Type.Optional(Nullable(UuidSchema)),
          priority: Type.Optional(PrioritySchema),
          agent: Type.Optional(AgentNameSchema),
        },
        {
          additionalProperties: false,
          description: 'For create_item: what the work item gets instead of the defaults',
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type RoutingRule = Static<typeof RoutingRuleSchema>;

const RulesSchema = Type.Array(RoutingRuleSchema, {
  maxItems: MAX_RULES,
  description:
    'Tried in order; the first that matches decides. When none matches: a message that needs action becomes an email_task work item, any other is only recorded.',
});

const mailboxFields = {
  name: Name,
  host: HostSchema,
  port: PortSchema,
  tls: TlsSchema,
  username: Type.String({ minLength: 1, maxLength: 320 }),
  password: Secret('IMAP password'),
  access_token: Secret('OAuth 2 access token, sent with XOAUTH2'),
  tenant_id: Type.String({ minLength: 1, maxLength: 100 }),
  client_id: Type.String({ minLength: 1, maxLength: 100 }),
  client_secret: Secret('App registration client secret'),
  address: Type.String({
    minLength: 3,
    maxLength: 320,
    description: 'Graph: the mailbox read (user principal name or address)',
  }),
  folder: FolderSchema,
  since: Nullable(
    Type.String({
      format: 'date-time',
      description: 'Also take in mail received since then; default: only mail that arrives from now on',
    }),
  ),
  project_id: Nullable(UuidSchema),
  enabled: Type.Boolean(),
  rules: RulesSchema,
};

const optional = <T extends Record<string, import('typebox').TSchema>>(fields: T) =>
  Object.fromEntries(Object.entries(fields).map(([key, schema]) => [key, Type.Optional(schema)])) as {
    [K in keyof T]: import('typebox').TOptional<T[K]>;
  };

export const CreateMailboxSchema = Type.Object(
  { kind: Type.Enum([...MAILBOX_KINDS]), ...optional(mailboxFields), name: Name },
  {
    additionalProperties: false,
    description:
      'IMAP: host, username, and password or access_token (port defaults to 993 with tls, else 143). Graph: tenant_id, client_id, client_secret, address.',
  },
);
export type CreateMailbox = Static<typeof CreateMailboxSchema>;

export const UpdateMailboxSchema = Type.Object(optional(mailboxFields), {
  additionalProperties: false,
  minProperties: 1,
  description: 'A new password, access_token or client_secret replaces the stored secret',
});
export type UpdateMailbox = Static<typeof UpdateMailboxSchema>;

export const MailboxIdParamsSchema = Type.Object({ id: UuidSchema }, { additionalProperties: false });

const CountsSchema = Type.Object(
  {
    seen: Type.Integer({ description: 'Messages taken in' }),
    classified: Type.Integer(),
    items_created: Type.Integer(),
    notes_added: Type.Integer(),
    failed: Type.Integer(),
  },
  { additionalProperties: false },
);

export const MailboxSchema = Type.Object(
  {
    id: UuidSchema,
    name: Type.String(),
    kind: Type.Enum([...MAILBOX_KINDS]),
    host: Nullable(Type.String()),
    port: Nullable(Type.Integer()),
    tls: Nullable(TlsSchema),
    username: Nullable(Type.String()),
    tenant_id: Nullable(Type.String()),
    client_id: Nullable(Type.String()),
    address: Nullable(Type.String()),
    auth: Type.Enum([...AUTH_KINDS]),
    has_secret: Type.Boolean({ description: 'Whether a secret is stored (it is never returned)' }),
    folder: Type.String(),
    since: Nullable(TimestampSchema),
    project_id: Nullable(UuidSchema),
    enabled: Type.Boolean(),
    rules: Type.Array(RoutingRuleSchema),
    state: Type.Enum([...MAILBOX_STATES]),
    state_changed_at: TimestampSchema,
    last_error: Nullable(Type.String()),
    last_error_at: Nullable(TimestampSchema),
    last_sync_at: Nullable(TimestampSchema),
    counts: CountsSchema,
    backfill: Type.Object(
      { done: Type.Integer(), total: Type.Integer() },
      {
        additionalProperties: false,
        description: 'Messages of the current backfill or import done, of the total found',
      },
    ),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  },
  { additionalProperties: false },
);
export type Mailbox = Static<typeof MailboxSchema>;

export const FAILURE_STAGES = ['dns', 'connect', 'tls', 'login', 'folder', 'timeout', 'secret', 'protocol'] as const;
export type FailureStage = (typeof FAILURE_STAGES)[number];

export const ConnectionTestSchema = Type.Object(
  {
    ok: Type.Boolean(),
    stage: Nullable(Type.Enum([...FAILURE_STAGES], { description: 'Where it failed; null when it worked' })),
    message: Type.String(),
    ms: Type.Integer(),
    folder: Nullable(
      Type.Object(
        {
          path: Type.String(),
          messages: Type.Integer(),
          uid_validity: Nullable(Type.Number()),
          uid_next: Nullable(Type.Integer()),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type ConnectionTest = Static<typeof ConnectionTestSchema>;

export const IntakeMessageSchema = Type.Object(
  {
    id: UuidSchema,
    mailbox_id: UuidSchema,
    source: Type.Enum([...MESSAGE_SOURCES]),
    source_ref: Type.String(),
    message_id: Type.String({ description: 'Message-ID, or a hash of the message when it has none' }),
    conversation_id: Nullable(Type.String()),
    sender: Nullable(Type.String()),
    subject: Nullable(Type.String()),
    received_at: Nullable(TimestampSchema),
    status: Type.Enum(['done', 'failed']),
    action: Type.Enum([...MESSAGE_ACTIONS]),
    category: Nullable(Type.String()),
    needs_action: Nullable(Type.Boolean()),
    priority: Nullable(Type.String()),
    dedupe_status: Nullable(Type.String()),
    work_item_id: Nullable(UuidSchema),
    work_item_url: Nullable(Type.String()),
    rule_index: Nullable(Type.Integer({ description: 'The routing rule that decided, from 0; null for the defaults' })),
    error: Nullable(Type.String()),
    created_at: TimestampSchema,
  },
  { additionalProperties: false },
);
export type IntakeMessage = Static<typeof IntakeMessageSchema>;

export const MessagesQuerySchema = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_MESSAGES_PAGE })),
    cursor: Type.Optional(Type.String({ maxLength: 500 })),
    status: Type.Optional(Type.Enum(['done', 'failed'])),
    action: Type.Optional(Type.Enum([...MESSAGE_ACTIONS])),
  },
  { additionalProperties: false },
);
export type MessagesQuery = Static<typeof MessagesQuerySchema>;

export const ImportAcceptedSchema = Type.Object(
  {
    queued: Type.Integer({ description: 'Messages found in the upload and queued' }),
    backfill: Type.Object({ done: Type.Integer(), total: Type.Integer() }, { additionalProperties: false }),
  },
  { additionalProperties: false },
);
export type ImportAccepted = Static<typeof ImportAcceptedSchema>;
