import { randomId } from '../../shared/db/ids.js';
import type { MailConfig } from '../../shared/config/mail.js';
import type { DatabaseHandle } from '../../shared/db/schema.js';
import type { WorkStore } from '../../work/index.js';
import { isOverdue } from '../../conversation/index.js';
import { namesToTell } from '../people/recipients.js';
import type { MailTokens } from '../outbox/ports.js';
import type { OutboxStatementsOn } from '../outbox/store/index.js';
import { composeDigestMail, type DigestEntry } from './digest-mail.js';
import { DEFAULT_DIGEST_AT, DEFAULT_TZ, localMoment, minuteOf } from './local-time.js';
import type { WaitingQuestionsOn } from './ports.js';
import { dayKey } from './store/port.js';
import type { ScheduleStatementsOn } from './store/index.js';

// The daily digest: due once a person's local time (tz, UTC unset) reaches digest_at (08:00 unset)
// and their day has no run yet. The run's row and the outbox row commit together, so a second
// instance's claim of the day writes nothing; a day with nothing waiting records a run, sends none.

export interface DigestDeps {
  mail: MailConfig;
  store: WorkStore;
  /** The top-level database, for the reads before each transaction. */
  top: DatabaseHandle;
  questionsOn: WaitingQuestionsOn;
  scheduleOn: ScheduleStatementsOn;
  outboxOn: OutboxStatementsOn;
  tokens: MailTokens | null;
}

/** Writes the digests due at `at`; resolves with how many mails it wrote. */
export async function writeDueDigests(deps: DigestDeps, at: Date): Promise<number> {
  const { mail, store, top, questionsOn, scheduleOn, outboxOn, tokens } = deps;
  const schedule = scheduleOn(top);
  const readers = (await schedule.digestReaders()).map((person) => ({
    person,
    local: localMoment(at, person.tz ?? DEFAULT_TZ),
  }));
  const reached = readers.filter(
    ({ person, local }) => local.minute >= minuteOf(person.digest_at ?? DEFAULT_DIGEST_AT),
  );
  if (reached.length === 0) return 0;
  const ran = await schedule.ranOn([...new Set(reached.map(({ local }) => local.date))]);
  const due = reached.filter(({ person, local }) => !ran.has(dayKey(person.name, local.date)));
  if (due.length === 0) return 0;

  const iso = at.toISOString();
  const waiting = new Map<string, DigestEntry[]>();
  for (const row of await questionsOn(top).listWaiting()) {
    const told = namesToTell(
      { watchers: row.item_watchers, created_by: row.item_created_by },
      { watchers: row.project_watchers },
      { to_people: row.to_people, asked_by: row.asked_by, kind: row.kind },
    );
    const entry: DigestEntry = {
      question_id: row.id,
      kind: row.kind,
      asked_by: row.asked_by,
      question: row.question,
      asked_at: row.asked_at,
      overdue: isOverdue(row, iso),
      item_id: row.work_item_id,
      item_description: row.item_description,
      project: row.project_name,
    };
    for (const name of told) waiting.set(name, [...(waiting.get(name) ?? []), entry]);
  }

  let written = 0;
  for (const { person, local } of due) {
    const entries = waiting.get(person.name) ?? [];
    const wrote = await store.transaction(async (_tx, trx) => {
      const id = entries.length === 0 ? null : randomId();
      const claimed = await scheduleOn(trx).claimDay({
        person: person.name,
        local_date: local.date,
        notification_id: id,
        created_at: iso,
      });
      if (!claimed || id === null) return false;
      const composed = composeDigestMail({
        notificationId: id,
        person: person.name,
        localDate: local.date,
        entries,
        mail,
        tokens,
      });
      await outboxOn(trx).insert({
        id,
        kind: 'digest',
        person: person.name,
        address: person.email,
        work_item_id: null,
        question_id: null,
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
      return true;
    });
    if (wrote) written += 1;
  }
  return written;
}
