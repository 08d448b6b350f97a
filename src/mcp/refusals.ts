import { ProblemError, UnreachableError } from '../client/errors.js';

// A refusal from agentdesk reaches the model as a tool error (isError), not a protocol error:
// the model reads it and decides what to do, so each text ends with that next step. The
// problem document follows for the fields a program would read (current_version, …).

/** A refusal the MCP layer makes by itself, worded like the service's. */
export class ToolRefusal extends Error {
  override name = 'ToolRefusal';
}

function nextStep(problem: ProblemError, tool: string): string {
  const extra = problem.problem as Record<string, unknown>;
  switch (problem.status) {
    case 400:
    case 413:
    case 422:
      return `Fix the arguments and call ${tool} again.`;
    case 401:
      return 'The token is missing, expired or revoked: retrying will not help; ask a person for a new token.';
    case 403:
      return 'This token may not do that: do not retry; leave the item to its holder or ask a person.';
    case 404:
      return 'Check the id: list_work finds items, claim_next_work gives you one.';
    case 409: {
      const open = extra.open_question as { id?: unknown } | undefined;
      if (open && typeof open.id === 'string') {
        return `Wait for that answer first: call get_answer with question_id "${open.id}".`;
      }
      if (typeof extra.holder === 'string') {
        return `It is held by ${extra.holder}: leave it, and call claim_next_work for other work.`;
      }
      if (Array.isArray(extra.allowed_statuses)) {
        const allowed = extra.allowed_statuses.length > 0 ? extra.allowed_statuses.join(', ') : 'nothing (it is final)';
        return `From ${String(extra.current_status)} it can move to ${allowed}. Call get_work_item to see it before you decide again.`;
      }
      return 'Call get_work_item to see its current state, then decide again.';
    }
    case 412:
      return `Call get_work_item for the current version, check your change still makes sense, then call ${tool} again with that version.`;
    case 429:
    case 503:
      return `Wait a few seconds, then call ${tool} again.`;
    default:
      return 'Call get_work_item to see the current state before you try again.';
  }
}

/** The text of the tool error a failed call becomes. */
export function refusalText(error: unknown, tool: string): string {
  if (error instanceof ProblemError) {
    const head = `agentdesk refused (${error.status} ${error.title}): ${error.detail}`;
    return `${head}\n${nextStep(error, tool)}\n\n${JSON.stringify(error.problem)}`;
  }
  if (error instanceof UnreachableError) {
    return `${error.message}\nIs agentdesk running at that address (AGENTDESK_URL)? Call ${tool} again once it answers.`;
  }
  if (error instanceof ToolRefusal) return error.message;
  if (error instanceof Error && error.name === 'AbortError') return `${tool} was cancelled.`;
  // Never a stack: the message says enough, and a stack says nothing the model can act on.
  return `${tool} failed: ${error instanceof Error ? error.message : String(error)}`;
}
