import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.js';
import type { WorkStatus } from './schemas.js';

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
