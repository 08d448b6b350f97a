import type { MailConfig } from '../../shared/config/mail.js';
import { randomId } from '../../shared/db/ids.js';
import type { QuestionOpened } from '../../conversation/index.js';
import { composeQuestionMail } from './compose.js';
import type { MailTokens, RecipientsPort } from './ports.js';
import type { OutboxStatementsOn } from './store/index.js';

// The conversation's QuestionOpened, filled by the outbox: one row per person told at once
// (`notify: immediate`), written in the transaction that opens the question or the review, so
// a kill after the commit loses no mail. The sender is nudged once that has committed.

export interface OutboxHookDeps {
  mail: MailConfig;
  recipients: RecipientsPort;
  tokens: MailTokens | null;
  statementsOn: OutboxStatementsOn;
  now: () => Date;
  /** Called after the commit: the sender takes the rows within moments. */
  nudge: () => void;
}

export function createOutboxHook({
  mail,
  recipients,
  tokens,
  statementsOn,
  now,
  nudge,
}: OutboxHookDeps): QuestionOpened {
  return async ({ db, store, question, item }) => {
    if (mail.smtp === null) return;
    const projectRow = item.project_id === null ? null : ((await store.findProject(item.project_id)) ?? null);
    const people = await recipients(db, item, projectRow, question);
    // The asker is never told of its own question, and one person gets one mail.
    const told = new Map(
      people
        .filter((person) => person.notify === 'immediate' && person.name !== question.asked_by)
        .map((person) => [person.name, person]),
    );
    if (told.size === 0) return;
    const project = projectRow?.name ?? null;
    const outbox = statementsOn(db);
    const at = now().toISOString();
    for (const person of told.values()) {
      const id = randomId();
      const composed = composeQuestionMail({
        notificationId: id,
        question,
        item,
        project,
        person: person.name,
        mail,
        tokens,
      });
      await outbox.insert({
        id,
        kind: question.kind,
        person: person.name,
        address: person.email,
        work_item_id: item.id,
        question_id: question.id,
        message_id: composed.message_id,
        subject: composed.subject,
        text_body: composed.text_body,
        html_body: composed.html_body,
        headers: JSON.stringify(composed.headers),
        status: 'pending',
        attempts: 0,
        next_attempt_at: at,
        claimed_until: null,
        last_error: null,
        created_at: at,
        sent_at: null,
      });
    }
    return nudge;
  };
}
