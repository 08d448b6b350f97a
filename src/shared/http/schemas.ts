import { type Static, type TSchema, Type } from 'typebox';
import { PROBLEM_CONTENT_TYPE } from '../errors.js';
import { type ResponseHeader, withHeaders } from './openapi.js';

export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    errors: Type.Optional(
      Type.Array(Type.Object({ field: Type.String(), message: Type.String() }, { additionalProperties: false })),
    ),
  },
  { additionalProperties: true, description: 'RFC 9457 problem document' },
);

export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

/**
 * The lower-case form the API hands out. The uuid format alone also takes "urn:uuid:…" and upper
 * case, which PostgreSQL's uuid type refuses or folds while SQLite compares text: the stores
 * would answer differently.
 */
export const UuidSchema = Type.String({
  format: 'uuid',
  pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$',
});

export const TimestampSchema = Type.String({
  format: 'date-time',
  description: 'ISO 8601 UTC with milliseconds',
});

export const HealthRetentionSchema = Type.Object(
  {
    oldest_final_at: Type.Union([TimestampSchema, Type.Null()], {
      description: 'When the final item changed longest ago last changed; null: none',
    }),
    items_removed: Type.Integer({
      minimum: 0,
      description: 'Items archived and removed by this instance since it started',
    }),
    archive_bytes: Type.Integer({ minimum: 0, description: 'Bytes this instance appended to the archive files' }),
  },
  { additionalProperties: false, description: 'Present while RETENTION_DAYS is set' },
);
export type HealthRetention = Static<typeof HealthRetentionSchema>;

export const HealthSchema = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
    retention: Type.Optional(HealthRetentionSchema),
    details: Type.Optional(
      Type.Object(
        {
          sqlite_wal: Type.Optional(
            Type.Literal('over_bound', {
              description:
                'The write-ahead log is over SQLITE_WAL_MAX_MB and the checkpoint that resets it cannot finish yet (a reader of another process holds it up)',
            }),
          ),
          sqlite_storage: Type.Optional(Type.Literal('full', { description: 'Writes are refused: the disk is full' })),
        },
        {
          additionalProperties: false,
          description: 'Present while something needs an operator but the service still answers',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

/**
 * An error answer as a route declares it: keyed by its media type, so the OpenAPI document says
 * application/problem+json, which is what the error handler sends (and Fastify serializes a
 * problem with this schema because the reply's type matches).
 */
export const ProblemResponse = {
  description: 'RFC 9457 problem document',
  content: { [PROBLEM_CONTENT_TYPE]: { schema: ProblemSchema } },
} as const;

/** The headers that come with a problem of some statuses, whichever route answers it. */
const PROBLEM_HEADERS: Partial<Record<number, ResponseHeader[]>> = {
  401: ['WWW-Authenticate'],
  405: ['Allow'],
  429: ['Retry-After'],
  503: ['Retry-After'],
};

/** Response declarations for the problem documents a route can answer with. */
export function problemResponses<const Codes extends readonly number[]>(...codes: Codes) {
  return Object.fromEntries(
    codes.map((code) => {
      const headers = PROBLEM_HEADERS[code];
      return [code, headers ? withHeaders(ProblemResponse, ...headers) : ProblemResponse];
    }),
  ) as {
    [K in Codes[number]]: typeof ProblemResponse;
  };
}
