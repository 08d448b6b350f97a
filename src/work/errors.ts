import { ConflictError, NotFoundError, PreconditionFailedError, ValidationError } from '../shared/errors.js';
import type { WorkStatus } from './api-contract.js';

export class WorkItemNotFound extends NotFoundError {
  constructor(id: string) {
    super(`Work item ${id} does not exist`);
  }
}

export class ProjectNotFound extends NotFoundError {
  constructor(id: string) {
    super(`Project ${id} does not exist`);
  }
}

export class IllegalTransition extends ConflictError {
  constructor(from: WorkStatus, to: WorkStatus, allowed: readonly WorkStatus[]) {
    const next = allowed.length > 0 ? allowed.join(', ') : 'none (it is final)';
    super(`Cannot move a work item from ${from} to ${to}; allowed next statuses from ${from}: ${next}`, {
      current_status: from,
      allowed_statuses: [...allowed],
    });
  }
}

export class DuplicateProjectName extends ConflictError {
  constructor(name: string) {
    super(`A project named "${name}" already exists (names are unique ignoring case)`);
  }
}

export class UnknownProjectReference extends ValidationError {
  constructor() {
    super([{ field: 'project_id', message: 'is not the id of an existing project' }]);
  }
}

/** Someone other than the agent that holds the item tried to act on it as that agent. */
export class NotHolder extends ConflictError {
  constructor(agent: string, holder: string | null, status: WorkStatus) {
    super(
      holder === null
        ? `The work item is ${status} and held by no agent, so ${agent} cannot act on it as its holder`
        : `The work item is dispatched to ${holder}, not ${agent}`,
      { holder, current_status: status },
    );
  }
}

export class ItemChanged extends PreconditionFailedError {
  constructor(version: number, status: WorkStatus, malformedTag = false) {
    super(
      malformedTag
        ? `If-Match must list entity tags in double quotes, as the ETag header gives them (If-Match: "${version}"); an unquoted or weak (W/) tag never matches. The item is at version ${version} and ${status}`
        : `The work item changed since you loaded it: it is now at version ${version} and ${status}`,
      { current_version: version, current_status: status },
    );
  }
}

export class FinalItemNotEditable extends ConflictError {
  constructor(status: WorkStatus) {
    super(`The work item is ${status}, which is final: its fields can no longer be edited`, { current_status: status });
  }
}

/** The requester's own cancel reaches only work nobody has taken yet. */
export class NotCancelableByCreator extends ConflictError {
  constructor(status: WorkStatus) {
    super(`The work item is ${status}: its requester may cancel it only while it is queued or dispatched`, {
      current_status: status,
    });
  }
}

export class LeaseNotHeld extends ConflictError {
  constructor(status: WorkStatus) {
    super(`The work item is ${status}: there is no lease to extend`, { current_status: status });
  }
}

export class IdempotencyKeyInFlight extends ConflictError {
  constructor() {
    super('A request with this Idempotency-Key is still being processed; retry when it has answered');
  }
}

export class IdempotencyKeyReused extends ValidationError {
  constructor() {
    super([{ field: 'Idempotency-Key', message: 'was already used with a different body within the last 24 hours' }]);
  }
}

/** A dispatch (by PATCH or at submit) of an item whose dependencies have not all completed. */
export class WaitingOnDependencies extends ConflictError {
  constructor(
    readonly itemId: string,
    /** The unfinished dependencies; null until the service has read them. */
    readonly unfinished: readonly { id: string; status: WorkStatus; description: string }[] | null,
  ) {
    super(
      unfinished === null
        ? `The work item waits on dependencies that have not completed; it cannot be dispatched until they do`
        : `The work item waits on ${unfinished.length} dependenc${unfinished.length === 1 ? 'y' : 'ies'} not yet completed (${unfinished
            .map((d) => `${d.id}: ${d.status}`)
            .join(', ')}); it cannot be dispatched until they complete`,
      { blocked_by: unfinished ?? [] },
    );
  }
}

/** Deleting an item that other items depend on, or that has children. */
export class ItemStillLinked extends ConflictError {
  constructor(id: string, dependents: readonly string[], children: number) {
    super(
      dependents.length > 0
        ? `Work item ${id} cannot be deleted: ${dependents.length} item${dependents.length === 1 ? '' : 's'} depend on it (${dependents.join(', ')}); remove those dependencies first`
        : `Work item ${id} cannot be deleted: it has ${children} child item${children === 1 ? '' : 's'}; delete or move them first`,
      { dependents: [...dependents], children },
    );
  }
}
