import { type Static, Type } from 'typebox';
import { Nullable, TimestampSchema, UuidSchema } from '../shared/http/schemas.js';
import { AUTH_MODES } from '../shared/config/auth-modes.js';
import { ROLES } from './roles.js';

const NAME_PATTERN = '^[A-Za-z0-9_.@-]+$';

export const RoleSchema = Type.Enum([...ROLES]);

/** Token and agent names follow the agent-name rule, so created_by always reads like an X-User. */
export const TokenNameSchema = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: NAME_PATTERN,
  description: 'Who holds the token; created_by for tokens without an agent',
});

export const CreateTokenSchema = Type.Object(
  {
    name: TokenNameSchema,
    role: RoleSchema,
    agent: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        pattern: NAME_PATTERN,
        description:
          'The name the token acts as: required for role agent; for role member, default the token name; no other role takes one',
      }),
    ),
    expires_at: Type.Optional(
      Nullable(Type.String({ format: 'date-time', description: 'ISO 8601 with a zone; in the future' })),
    ),
  },
  { additionalProperties: false },
);
export type CreateToken = Static<typeof CreateTokenSchema>;

const tokenFields = {
  id: UuidSchema,
  name: Type.String(),
  role: RoleSchema,
  agent: Nullable(Type.String()),
  created_at: TimestampSchema,
  created_by: Type.String(),
  expires_at: Nullable(TimestampSchema),
  last_used_at: Nullable(TimestampSchema),
  revoked_at: Nullable(TimestampSchema),
};

/** A token as listed: never its secret. */
export const TokenRecordSchema = Type.Object(tokenFields, { additionalProperties: false });
export type TokenRecord = Static<typeof TokenRecordSchema>;

export const CreatedTokenSchema = Type.Object(
  { ...tokenFields, token: Type.String({ description: 'The secret: shown this once, stored only as a hash' }) },
  { additionalProperties: false },
);

export const TokenIdParamsSchema = Type.Object({ id: UuidSchema });

export const PrincipalSchema = Type.Object(
  {
    name: Type.String(),
    role: RoleSchema,
    agent: Nullable(Type.String()),
    token_id: Nullable(Type.String()),
  },
  { additionalProperties: false },
);

export const SessionSchema = Type.Object(
  {
    auth: Type.Enum([...AUTH_MODES]),
    /** null: not signed in. */
    principal: Nullable(PrincipalSchema),
  },
  { additionalProperties: false },
);
export type SessionView = Static<typeof SessionSchema>;

export const SignInSchema = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 1024, description: 'An API token (or AGENTDESK_ADMIN_TOKEN)' }) },
  { additionalProperties: false },
);
