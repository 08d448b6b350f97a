import { ForbiddenError, NotFoundError, ValidationError } from '../../shared/errors.js';

// People's domain errors: no HTTP here; shared/problem.ts maps them by their class.

export class PersonNotFound extends NotFoundError {
  constructor(name: string) {
    super(`No person named ${name} has a profile`);
  }
}

export class NotOwnProfile extends ForbiddenError {
  constructor(caller: string, name: string) {
    super(`You are ${caller}: a member reads and edits only its own profile, not ${name}'s; an admin any`);
  }
}

export class UnknownTimeZone extends ValidationError {
  constructor(tz: string) {
    super([{ field: 'tz', message: `${JSON.stringify(tz)} is not an IANA time zone this server knows` }]);
  }
}
