import { ConflictError, ForbiddenError, NotFoundError } from '../shared/errors.js';
import { CREATOR, type Question } from './schemas.js';

// The conversation's domain errors: no HTTP here; shared/problem.ts maps them by their class.

export class CommentNotFound extends NotFoundError {
  constructor(id: string) {
    super(`Comment ${id} does not exist on this work item`);
  }
}

export class QuestionNotFound extends NotFoundError {
  constructor(id: string) {
    super(`Question ${id} does not exist on this work item`);
  }
}

export class MayNotComment extends ForbiddenError {
  constructor(agent: string | null) {
    super(
      `This token acts as agent ${agent ?? '(none)'}; it may comment only on items that agent holds, has held or created`,
    );
  }
}

export class MayNotAsk extends ForbiddenError {
  constructor(agent: string | null) {
    super(`This token acts as agent ${agent ?? '(none)'}; an agent asks only about the item it holds`);
  }
}

export class MayNotAnswer extends ForbiddenError {
  constructor(agent: string | null) {
    super(
      `This token acts as agent ${agent ?? '(none)'}; this question is not addressed to it: an agent answers only a question addressed to ${CREATOR} on an item it created`,
    );
  }
}

/** Asked about an item that is not in a state to wait for an answer. */
export class NotAskable extends ConflictError {
  constructor(status: string, why: string) {
    super(`The work item is ${status}: ${why}`, { current_status: status });
  }
}

export class OpenQuestionExists extends ConflictError {
  constructor(open: Question) {
    super(`The work item already has an open question (${open.id}); it must be answered before another is asked`, {
      open_question: open,
    });
  }
}

export class QuestionMoot extends ConflictError {
  constructor(question: Question) {
    super(`Question ${question.id} was closed unanswered: its work item reached a final status while it was open`, {
      question,
    });
  }
}

export class QuestionAlreadyAnswered extends ConflictError {
  constructor(question: Question) {
    super(`Question ${question.id} was already answered by ${question.answered_by ?? 'someone'}`, { question });
  }
}
