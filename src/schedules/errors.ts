import { ConflictError, NotFoundError } from '../shared/errors.js';

// Schedules' domain errors: no HTTP here; shared/problem.ts maps them by their class.

export class ScheduleNotFound extends NotFoundError {
  constructor(id: string) {
    super(`No schedule has the id ${id}`);
  }
}

export class ScheduleNameTaken extends ConflictError {
  constructor(name: string, projectId: string | null) {
    super(
      projectId === null
        ? `A schedule without a project is already named ${JSON.stringify(name)}`
        : `A schedule of project ${projectId} is already named ${JSON.stringify(name)}`,
    );
  }
}

export class OccurrenceTaken extends ConflictError {
  constructor(at: string) {
    super(`The schedule already has an occurrence at ${at}; run it again`);
  }
}
