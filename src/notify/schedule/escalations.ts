import { randomId } from '../../shared/db/ids.js';
import type { MailConfig } from '../../shared/config/mail.js';
import type { DatabaseHandle } from '../../shared/db/schema.js';
import { toQuestion } from '../../conversation/index.js';
import type { WorkStore } from '../../work/index.js';
import { composeQuestionMail } from '../outbox/compose.js';
import type { MailTokens } from '../outbox/ports.js';
import type { OutboxStatementsOn } from '../outbox/store/index.js';
import { findPeopleOn } from '../people/store/cross-dialect.js';
import type { WaitingQuestionsOn } from './ports.js';

// Escalation: a question or review still open past its due_at mails its project's escalate_to
// people once (whatever their notify mode, except off; never the asker). The guarded mark of
// escalated_at and the outbox rows commit together, so of two instances only one writes them.

const BATCH = 50;

export interface EscalationDeps {
  mail: MailConfig;
  store: WorkStore;
  /** The top-level database, for the reads before each transaction. */
  top: DatabaseHandle;
  questionsOn: WaitingQuestionsOn;
  outboxOn: OutboxStatementsOn;
  tokens: MailTokens | null;
}

/** Writes the escalations due at `at`; resolves with how many mails it wrote. */
export async function writeDueEscalations(deps: EscalationDeps, at: Date): Promise<number> {
  const { mail, store, top, questionsOn, outboxOn, tokens } = deps;
  const iso = at.toISOString();
  let written = 0;
  for (;;) {
    const due = await questionsOn(top).listToEscalate(iso, BATCH);
    for (const row of due) {
      written += await store.transaction(async (tx, trx) => {
        if (!(await questionsOn(trx).markEscalated(row.id, iso))) return 0;
        const item = await tx.findWorkItem(row.work_item_id);
        if (!item) return 0;
        const project = item.project_id === null ? undefined : await tx.findProject(item.project_id);
        const named = new Set(project?.escalate_to ? (JSON.parse(project.escalate_to) as string[]) : []);
        named.delete(row.asked_by);
        const people = (await findPeopleOn(trx, [...named])).filter((person) => person.notify !== 'off');
        const question = toQuestion(row, iso);
        const outbox = outboxOn(trx);
        for (const person of people) {
          const id = randomId();
          const composed = composeQuestionMail({
            notificationId: id,
            question,
            item,
            project: project?.name ?? null,
            person: person.name,
            mail,
            tokens,
            overdue: true,
          });
          await outbox.insert({
            id,
            kind: 'escalation',
            person: person.name,
            address: person.email,
            work_item_id: item.id,
            question_id: row.id,
            message_id: composed.message_id,
            subject: composed.subject,
            text_body: composed.text_body,
            html_body: composed.html_body,
            headers: JSON.stringify(composed.headers),
            status: 'pending',
            attempts: 0,
            next_attempt_at: iso,
            claimed_until: null,
            last_error: null,
            created_at: iso,
            sent_at: null,
          });
        }
        return people.length;
      });
    }
    if (due.length < BATCH) return written;
  }
}
