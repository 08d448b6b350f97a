import type { MailConfig } from '../../shared/config/mail.js';
import { randomId } from '../../shared/db/ids.js';
import type { PeopleStore } from '../people/store/port.js';
import { escapeHtml } from './compose.js';
import type { OutboxStatements } from './store/port.js';

// A notice to one person about the desk itself (a webhook turned off), through the outbox like
// any mail; nothing when mail is off, the person has no profile, or its notify is off.

export interface NoticeMailDeps {
  people: Pick<PeopleStore, 'find'>;
  outbox: Pick<OutboxStatements, 'insert'>;
  mail: Pick<MailConfig, 'smtp' | 'fromDomain'>;
  now: () => Date;
  nudge: () => void;
}

/** Queues `text` to `name`; resolves with whether a mail was written. */
export type SendNotice = (name: string, subject: string, text: string) => Promise<boolean>;

export function createNoticeMail({ people, outbox, mail, now, nudge }: NoticeMailDeps): SendNotice {
  return async (name, subject, text) => {
    if (mail.smtp === null || mail.fromDomain === null) return false;
    const person = await people.find(name);
    if (!person || person.notify === 'off') return false;
    const id = randomId();
    const at = now().toISOString();
    await outbox.insert({
      id,
      kind: 'notice',
      person: person.name,
      address: person.email,
      work_item_id: null,
      question_id: null,
      message_id: `<n.${id}@${mail.fromDomain}>`,
      subject: `[agentdesk] ${subject}`,
      text_body: text,
      html_body: `<!doctype html><html><body><p>${escapeHtml(text).replace(/\n\n/g, '</p><p>').replace(/\n/g, '<br>')}</p></body></html>`,
      headers: JSON.stringify({}),
      status: 'pending',
      attempts: 0,
      next_attempt_at: at,
      claimed_until: null,
      last_error: null,
      created_at: at,
      sent_at: null,
    });
    nudge();
    return true;
  };
}
