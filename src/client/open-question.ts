import type { Question } from '../conversation/schemas.js';
import type { WorkClient } from './work-client.js';
import type { CallOptions } from './http.js';

// The open question on one item, for `agentdesk answer|review <item id>` and MCP's
// complete_work (which reports the review a completion became). The API has no route for "the
// open question of item X"; the inbox narrowed to the item's agent and project holds it, and an
// item has at most one, so a page or two of that short list finds it.

const PAGE = 200;

export async function openQuestionOf(client: WorkClient, id: string, call: CallOptions = {}): Promise<Question | null> {
  const item = await client.getWork(id, call);
  const query = {
    status: 'open' as const,
    limit: PAGE,
    ...(item.assigned_agent !== null && { agent: item.assigned_agent }),
    ...(item.project_id !== null && { project_id: item.project_id }),
  };
  let page = await client.listQuestions(query, call);
  for (;;) {
    const found = page.items.find((entry) => entry.work_item_id === id);
    if (found) {
      const { item: _item, ...question } = found;
      return question;
    }
    if (!page.next_cursor) return null;
    page = await client.listQuestions({ ...query, cursor: page.next_cursor }, call);
  }
}
