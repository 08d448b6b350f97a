import type { Principal } from '../../auth/index.js';
import type { QuestionService } from '../../conversation/index.js';
import type { Answer, Question } from '../../conversation/contract.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../shared/errors.js';
import type { LinkTokens, TokenRefusal } from './tokens.js';

// One click: what an answer link shows and what its form does. The token is the credential,
// good for one question as one person; showing changes nothing (mail scanners fetch links).

/** What the page shows of the item the question is about. */
export interface ItemSummary {
  type: string;
  description: string;
  priority: number;
  /** The project's name; null when the item has none. */
  project: string | null;
}

/** Why a link gives no form: its token's reason, or the question's state. */
export type LinkRefusal = TokenRefusal | 'used' | 'moot' | 'gone' | 'forbidden';

export type LinkOutcome =
  | {
      kind: 'form';
      question: Question;
      item: ItemSummary;
      person: string;
      problem: string | null;
      /** The option a button in the email chose, marked on the page (nothing is answered yet). */
      chosen?: string | null;
    }
  | { kind: 'answered'; question: Question; item: ItemSummary }
  | { kind: 'refused'; reason: LinkRefusal; question?: Question };

/** What a form sends: an option's button, and the text box (empty when left empty). */
export interface LinkAnswer {
  option?: string;
  answer?: string;
}

export interface AnswerLinkDeps {
  tokens: LinkTokens;
  questions: Pick<QuestionService, 'find' | 'answer'>;
  /** The item's fields the page shows; undefined when it is gone. */
  describeItem(id: string): Promise<ItemSummary | undefined>;
  now: () => Date;
}

export type AnswerLinks = ReturnType<typeof createAnswerLinks>;

export function createAnswerLinks({ tokens, questions, describeItem, now }: AnswerLinkDeps) {
  /** The token's question, open and with its item, or why the link gives no form. */
  async function open(
    token: string,
  ): Promise<
    { ok: true; question: Question; item: ItemSummary; person: string } | { ok: false; outcome: LinkOutcome }
  > {
    const verified = tokens.verify(token, now());
    if (!verified.ok) return { ok: false, outcome: { kind: 'refused', reason: verified.reason } };
    const { question_id, person } = verified.claims;
    const question = await questions.find(question_id);
    const item = question && (await describeItem(question.work_item_id));
    if (!question || !item) return { ok: false, outcome: { kind: 'refused', reason: 'gone' } };
    if (question.status !== 'open') return { ok: false, outcome: refusedFor(question) };
    return { ok: true, question, item, person };
  }

  /** GET: the question and its form, `option` (1-based) marked when an email's button chose it; nothing is written. */
  async function show(token: string, option?: number): Promise<LinkOutcome> {
    const found = await open(token);
    if (!found.ok) return found.outcome;
    const { question } = found;
    const chosen = option === undefined ? null : (question.options?.[option - 1] ?? null);
    return { kind: 'form', ...found, problem: null, chosen };
  }

  /** POST: answers as the person the token names, recorded as via `link`. */
  async function answer(token: string, sent: LinkAnswer): Promise<LinkOutcome> {
    const found = await open(token);
    if (!found.ok) return found.outcome;
    const { question, item, person } = found;
    const input: Answer = {
      ...(sent.option !== undefined && sent.option !== '' && { option: sent.option }),
      ...(sent.answer !== undefined && sent.answer.trim() !== '' && { answer: sent.answer.trim() }),
    };
    // The person the link was made for, with no token of theirs: the link is their proof.
    const principal: Principal = { name: person, role: 'member', agent: null, token_id: null };
    try {
      const answered = await questions.answer(question.work_item_id, question.id, input, principal, 'link');
      return { kind: 'answered', question: answered, item };
    } catch (error) {
      if (error instanceof ValidationError) return { kind: 'form', question, item, person, problem: error.message };
      if (error instanceof ConflictError) {
        const now = await questions.find(question.id);
        return now ? refusedFor(now) : { kind: 'refused', reason: 'gone' };
      }
      if (error instanceof ForbiddenError) return { kind: 'refused', reason: 'forbidden', question };
      if (error instanceof NotFoundError) return { kind: 'refused', reason: 'gone' };
      throw error;
    }
  }

  return { show, answer };
}

function refusedFor(question: Question): LinkOutcome {
  return { kind: 'refused', reason: question.status === 'moot' ? 'moot' : 'used', question };
}
