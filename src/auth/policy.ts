import { ForbiddenError, ValidationError } from '../shared/errors.js';
import type { Principal } from './authenticator.js';
import { roleWithArticle } from './roles.js';

// What an agent token may do beyond its role's routes: act as its own agent and no other.
// Only admins dispatch work to whoever they like; everyone else is held here.

export function assertMayDispatch(principal: Principal | null, agent: string | undefined): void {
  if (agent === undefined || principal === null || principal.role === 'admin') return;
  if (principal.agent === null) {
    throw new ForbiddenError(`${roleWithArticle(principal.role)} token cannot dispatch work to an agent; submit it without "agent"`);
  }
  if (agent !== principal.agent) {
    throw new ForbiddenError(`This token acts as agent ${principal.agent}; it cannot dispatch to or act as ${agent}`);
  }
}

/** Called with the item locked, so the check and the change see the same assignment. */
export function assertMayChangeItem(principal: Principal | null, assignedAgent: string | null): void {
  if (principal === null || principal.role === 'admin') return;
  if (principal.agent === null || assignedAgent !== principal.agent) {
    throw new ForbiddenError(
      `This token acts as agent ${principal.agent ?? '(none)'}; it may change only items assigned to that agent`,
    );
  }
}

/**
 * The agent a claim, heartbeat or move acts as: the one the request names (held to the token as
 * assertMayDispatch says), else the agent its token is bound to. Undefined when neither names one.
 */
export function actingAgent(principal: Principal | null, agent: string | undefined): string | undefined {
  assertMayDispatch(principal, agent);
  return agent ?? principal?.agent ?? undefined;
}

/** As actingAgent, for the requests that cannot go without an agent (claim, heartbeat). */
export function requireActingAgent(principal: Principal | null, agent: string | undefined): string {
  const acting = actingAgent(principal, agent);
  if (acting === undefined) throw ValidationError.of('agent', 'is required (this caller is bound to no agent)');
  return acting;
}
