import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.js';

export class MailboxNotFound extends NotFoundError {
  constructor(id: string) {
    super(`Mailbox ${id} does not exist`);
  }
}

/** A secret was sent, but this server has nowhere safe to keep it. */
export class NoSecretKey extends ValidationError {
  constructor(field: string) {
    super([
      {
        field,
        message:
          'cannot be stored: this server has no AGENTDESK_SECRET_KEY to encrypt it with. Set AGENTDESK_SECRET_KEY (32 random bytes, e.g. `openssl rand -hex 32`) and restart.',
      },
    ]);
  }
}

export class UnreadableUpload extends ValidationError {
  constructor(message: string) {
    super([{ field: 'body', message }]);
  }
}

/** The mailbox's instance lost it to another (its lease ran out): stop, the other carries on. */
export class LeaseLost extends ConflictError {
  constructor(id: string) {
    super(`Mailbox ${id} is now watched by another instance`);
  }
}
