import { openQuestionOf } from '../client/open-question.js';
import type { WorkClient } from '../client/work-client.js';
import type { Question } from '../conversation/contract.js';
import type { WorkItem } from '../work/contract.js';
import { TOOL_WAIT_MAX_S } from './conversation-schemas.js';

// What the tools tell a model about a question to a person: the next step for an open one, an
// answered one and a review, and how complete_work finds the review a completion was turned into.

type Call = { signal: AbortSignal };

function nextStepFor(question: Question): string {
  if (question.status === 'open') {
    return (
      `No answer yet; the item stays blocked and its lease is paused, so nothing expires while you wait. ` +
      `Call get_answer with id and question_id "${question.id}" (wait_s up to ${TOOL_WAIT_MAX_S}) to wait again, ` +
      'or claim_next_work to do other work meanwhile and come back to it.'
    );
  }
  const said = question.option !== null ? `chose "${question.option}"` : 'answered';
  const why = question.answer ? `: ${question.answer}` : '';
  if (question.kind === 'review') {
    return question.option === 'approve'
      ? `${question.answered_by} approved it${why}; the item is completed. Nothing more to do on it.`
      : `${question.answered_by} returned it${why}. The item is in_progress for you again with a fresh lease: address that, then call complete_work.`;
  }
  return `${question.answered_by} ${said}${why}. The item is in_progress for you again with a fresh lease: carry on, and heartbeat as before.`;
}

export function withNextStep(question: Question): Record<string, unknown> {
  return { ...question, next_step: nextStepFor(question) };
}

/**
 * The open review a completion left, if it left one: a complete answered with the item still
 * blocked means the item waits for a person's review (the service's rule, not ours).
 */
export async function openReviewOf(client: WorkClient, item: WorkItem, call: Call): Promise<Question | null> {
  if (item.status !== 'blocked') return null;
  const open = await openQuestionOf(client, item.id, call);
  return open !== null && open.kind === 'review' ? open : null;
}

export function reviewNextStep(review: Question): string {
  return (
    `Sent for review: the item waits, blocked, for a person to approve it (it then completes) or return it to you with a reason. ` +
    `Nothing to do meanwhile: call claim_next_work for other work, or get_answer with question_id "${review.id}" to wait for the verdict.`
  );
}
