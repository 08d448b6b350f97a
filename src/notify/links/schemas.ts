import { type Static, Type } from 'typebox';
import { QUESTION_LIMITS } from '../../conversation/contract.js';

// The answer link's request shapes. Its answers are HTML pages, declared by media type.

export const AnswerLinkParamsSchema = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 1_024, description: 'The signed token from the email' }) },
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
  ({ description, content: { 'text/html': { schema: Type.String() } } }) as const;
