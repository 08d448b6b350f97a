import { ForbiddenError } from '../shared/errors.js';
import type { Principal } from './authenticator.js';

// What an agent token may do beyond its role's routes: act as its own agent and no other.
// Only admins dispatch work to whoever they like; everyone else is held here.

export function assertMayDispatch(principal: Principal | null, agent: string | undefined): void {
  if (agent === undefined || principal === null || principal.role === 'admin') return;
  if (principal.agent === null) {
    throw new ForbiddenError(`A ${principal.role} token cannot dispatch work to an agent; submit it without "agent"`);
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
