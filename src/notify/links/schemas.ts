import { type Static, Type } from 'typebox';
import { QUESTION_LIMITS } from '../../conversation/contract.js';
import { PROBLEM_CONTENT_TYPE } from '../../shared/errors.js';
import { ProblemSchema } from '../../shared/http/schemas.js';

// The answer link's request shapes. Its answers are HTML pages, declared by media type.

export const AnswerLinkParamsSchema = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 1_024, description: 'The signed token from the email' }) },
  { additionalProperties: false },
);

/** The option a button in the email chose (1-based): the page marks it, and still changes nothing. */
export const AnswerLinkQuerySchema = Type.Object(
  {
    option: Type.Optional(
      Type.Integer({ minimum: 1, maximum: QUESTION_LIMITS.maxOptions, description: 'The option chosen in the email' }),
    ),
  },
  { additionalProperties: false },
);

/** What the page's form sends (application/x-www-form-urlencoded); an empty text box is sent as "". */
export const AnswerLinkFormSchema = Type.Object(
  {
    option: Type.Optional(
      Type.String({ maxLength: QUESTION_LIMITS.option, description: 'The option (or approve / return) chosen' }),
    ),
    answer: Type.Optional(
      Type.String({ maxLength: QUESTION_LIMITS.text, description: 'The text box: the answer, a note, or the reason' }),
    ),
  },
  { additionalProperties: false },
);
export type AnswerLinkForm = Static<typeof AnswerLinkFormSchema>;

export const HtmlPageResponse = (description: string) =>
  ({ description, content: { 'text/html': { schema: Type.String({ description: 'An HTML page' }) } } }) as const;

/**
 * A refusal: the page a person's browser shows, or (what the edges answer before the route runs:
 * a body that does not parse, a form too long) a problem document.
 */
export const HtmlOrProblemResponse = (description: string) =>
  ({
    description,
    content: {
      'text/html': { schema: Type.String({ description: 'An HTML page saying why' }) },
      [PROBLEM_CONTENT_TYPE]: { schema: ProblemSchema },
    },
  }) as const;

/** Where an answer link points: PUBLIC_URL (without a trailing slash) and the token. */
export function answerLinkUrl(publicUrl: string, token: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/answer/${encodeURIComponent(token)}`;
}
