import type { Question } from '../conversation/contract.js';
import type { CallOptions } from './http.js';
import type { WorkClient } from './work-client.js';

// The open question on one item, for `agentdesk answer|review <item id>` (a person names the
// item, as the board and the inbox show it) and MCP's complete_work (which reports the review a
// completion became). An item has at most one open question; its questions are a short list.

export async function openQuestionOf(client: WorkClient, id: string, call: CallOptions = {}): Promise<Question | null> {
  const questions = await client.listItemQuestions(id, call);
  return questions.find((question) => question.status === 'open') ?? null;
}
