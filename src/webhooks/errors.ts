import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.js';
import { WEBHOOK_EVENT_NAMES } from './event-names.js';

// Webhooks' domain errors: no HTTP here; shared/http/problem.ts maps them by their class.

export class WebhookNotFound extends NotFoundError {
  constructor(readonly id: string) {
    super(`webhook ${id} not found`);
  }
}

export class DeliveryNotFound extends NotFoundError {
  constructor(readonly id: string) {
    super(`delivery ${id} not found`);
  }
}

export class UnknownEventName extends ValidationError {
  constructor(names: readonly string[]) {
    super([
      {
        field: 'events',
        message: `unknown event ${names.map((n) => `"${n}"`).join(', ')}; the names are: * or ${WEBHOOK_EVENT_NAMES.join(', ')}`,
      },
    ]);
  }
}

/** The desk keeps an endpoint's signing secret sealed under AGENTDESK_SECRET_KEY; without it there is none to keep. */
export class NoSecretKey extends ConflictError {
  constructor() {
    super(
      'This server cannot keep a webhook secret: it has no AGENTDESK_SECRET_KEY to encrypt it with. Set AGENTDESK_SECRET_KEY (32 random bytes, e.g. `openssl rand -hex 32`) and restart.',
    );
  }
}
