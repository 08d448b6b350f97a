import { ForbiddenError, ValidationError } from '../shared/errors.js';
import type { Principal } from './authenticator.js';
import { ACCESS, ROLES_BY_ACCESS, roleWithArticle } from './roles.js';

// What an agent token may do beyond its role's routes: act as its own agent and no other.
// Only admins dispatch work to whoever they like; everyone else is held here. And who the
// holder of an item is, which the review holds to: never lowered by it, never passed by it.

export function assertMayDispatch(principal: Principal | null, agent: string | undefined): void {
  if (agent === undefined || principal === null || principal.role === 'admin') return;
  if (principal.agent === null) {
    throw new ForbiddenError(
      `${roleWithArticle(principal.role)} token cannot dispatch work to an agent; submit it without "agent"`,
    );
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

/** A person (a member or an admin): who answers questions and passes reviews, never an agent. */
export function isPerson(caller: { role: string }): boolean {
  return (ROLES_BY_ACCESS[ACCESS.answer] as readonly string[]).includes(caller.role);
}

/**
 * Whether the caller is `holder`, however it names itself: the `agent` its request names, the
 * agent its token acts as, or with AUTH=off (no token) the X-User header.
 */
export function isHolder(principal: Principal | null, agent: string | undefined, holder: string | null): boolean {
  if (holder === null) return false;
  if (agent === holder) return true;
  if (principal === null) return false;
  return principal.agent === holder || (principal.token_id === null && principal.name === holder);
}

/**
 * A change that lowers an item's review (its `review_required`, or its project's setting by a
 * move out of a review project): a person's call, and never the holder's own, since the review
 * exists to check the holder's work.
 */
export function assertMayLowerReview(principal: Principal | null, byHolder: boolean): void {
  if (principal === null) return;
  if (!isPerson(principal)) {
    throw new ForbiddenError(
      `${roleWithArticle(principal.role)} token may not lower an item's review (review_required false, or a move out of a project that requires review); only a person (member or admin) may`,
    );
  }
  if (byHolder) {
    throw new ForbiddenError(
      'The agent holding an item may not lower its review (review_required false, or a move out of a project that requires review); a person who does not hold it may',
    );
  }
}

/** Submitting with review_required false into a project that requires review: a person's call. */
export function assertMaySubmitBelowReview(caller: { role: string }): void {
  if (isPerson(caller)) return;
  throw new ForbiddenError(
    `${roleWithArticle(caller.role)} token may not submit with review_required false into a project that requires review; only a person (member or admin) may`,
  );
}

/** The holder is never its own reviewer: whoever did the work may not approve or return it. */
export function assertNotOwnReviewer(principal: Principal | null, worker: string | null): void {
  if (!isHolder(principal, undefined, worker)) return;
  throw new ForbiddenError(`This review is of work by ${worker}, which is you: another person reviews it`);
}
