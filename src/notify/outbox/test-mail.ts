import type { Principal } from '../../auth/index.js';
import type { MailConfig } from '../../shared/config/mail.js';
import { randomId } from '../../shared/db/ids.js';
import { ConflictError } from '../../shared/errors.js';
import type { PeopleService } from '../people/service.js';
import { escapeHtml } from './compose.js';
import type { Notification } from './schemas.js';
import { toNotification } from './service.js';
import type { OutboxStatements } from './store/port.js';

// "Send me a test email": one mail to a person's address through the outbox and the sender, as a
// question's mail goes, so its row shows whether the address and the SMTP settings work.

export class MailOff extends ConflictError {
  constructor() {
    super('The desk sends no mail: SMTP_URL and MAIL_FROM are not set (see docs/notifications.md)');
  }
}

export interface TestMailDeps {
  people: Pick<PeopleService, 'get'>;
  outbox: Pick<OutboxStatements, 'insert'>;
  mail: Pick<MailConfig, 'smtp' | 'fromDomain' | 'publicUrl'>;
  now: () => Date;
  /** Called once the row is written: the sender takes it within moments. */
  nudge: () => void;
}

export type TestMail = ReturnType<typeof createTestMail>;

export function createTestMail({ people, outbox, mail, now, nudge }: TestMailDeps) {
  /** Queues the test mail to `name` (its own profile, or any for an admin). */
  async function send(name: string, principal: Principal | null): Promise<Notification> {
    const person = await people.get(name, principal);
    if (mail.smtp === null || mail.fromDomain === null) throw new MailOff();
    const id = randomId();
    const at = now().toISOString();
    const desk = mail.publicUrl ?? 'the desk';
    const text = `This is a test from agentdesk (${desk}), sent because ${person.name} asked for one.\n\nQuestions and reviews for ${person.name} will come to this address (${person.notify === 'digest' ? 'in a daily digest' : person.notify === 'off' ? 'once notify is no longer off' : 'as they are asked'}).\n`;
    const row = {
      id,
      kind: 'test' as const,
      person: person.name,
      address: person.email,
      work_item_id: null,
      question_id: null,
      message_id: `<t.${id}@${mail.fromDomain}>`,
      subject: '[agentdesk] Test email',
      text_body: text,
      html_body: `<!doctype html><html><body><p>${escapeHtml(text).replace(/\n\n/g, '</p><p>').replace(/\n/g, '')}</p></body></html>`,
      headers: JSON.stringify({}),
      status: 'pending' as const,
      attempts: 0,
      next_attempt_at: at,
      claimed_until: null,
      last_error: null,
      created_at: at,
      sent_at: null,
    };
    await outbox.insert(row);
    nudge();
    return toNotification(row);
  }

  return { send };
}
