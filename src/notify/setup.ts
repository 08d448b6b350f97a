import type { Logger } from 'pino';
import type { Config } from '../shared/config/config.js';
import { describeMail } from '../shared/config/mail.js';
import type { Database } from '../shared/db/database.js';
import type { QuestionOpened } from '../conversation/index.js';
import type { WorkStore } from '../work/index.js';
import type { LinkTokens } from './links/tokens.js';
import { createOutboxHook } from './outbox/hook.js';
import { type MailTokens, PEOPLE_RECIPIENTS, type QuestionStatusPort, type RecipientsPort } from './outbox/ports.js';
import { type OutboxSender, type SenderOptions, startOutboxSender } from './outbox/sender.js';
import { createNotificationService } from './outbox/service.js';
import { outboxStatementsFor } from './outbox/store/index.js';
import { createSmtpTransport, type SmtpTimeouts } from './outbox/transport.js';
import { createReplyRecognition } from './replies/recognise.js';
import type { WaitingQuestionsOn } from './schedule/ports.js';
import { type NotifyScheduler, type SchedulerOptions, startNotifyScheduler } from './schedule/scheduler.js';
import { scheduleStatementsFor } from './schedule/store/index.js';
import { createTestMail } from './outbox/test-mail.js';
import { createNoticeMail } from './outbox/notice-mail.js';
import { createPeopleService } from './people/service.js';
import { createPeopleStore } from './people/store/index.js';

// notify's parts, built once per process by the composition root (services/work.ts): the hook the
// conversation calls when a question or review opens, the sender loop, and the outbox's reads.
// Without SMTP_URL and MAIL_FROM there is no sender and the hook writes nothing: one log line says so.

export interface NotifyDeps {
  config: Readonly<Config>;
  database: Database;
  store: WorkStore;
  logger: Logger;
  now: () => Date;
  /** Who is told of a question: the people feature's rule unless a test says otherwise. */
  recipients?: RecipientsPort;
  /** What signs the answer links and reply addresses of the mail. */
  links: LinkTokens;
  /** Tests give readable tokens in place of the signed ones. */
  tokens?: MailTokens;
  /** Tests shorten these; SMTP_TIMEOUTS otherwise. */
  smtpTimeouts?: SmtpTimeouts;
  sender?: Pick<SenderOptions, 'pollMs' | 'leaseMs' | 'batch' | 'retry'>;
  /** Tests stop the scheduler's timer and run its passes themselves. */
  scheduler?: Pick<SchedulerOptions, 'everyMs'>;
}

export type Notify = ReturnType<typeof createNotify>;

export function createNotify({
  config,
  database,
  store,
  logger,
  now,
  recipients = PEOPLE_RECIPIENTS,
  links,
  tokens = {
    answerToken: (questionId, person) => links.sign({ question_id: questionId, person }, now()),
    replyToken: (notificationId) => links.signReply(notificationId),
  },
  smtpTimeouts,
  sender: senderOptions = {},
  scheduler: schedulerOptions = {},
}: NotifyDeps) {
  const { mail } = config;
  const statementsOn = outboxStatementsFor(database.dialect);
  const top = statementsOn(database.kysely);
  logger.info({ mail: describeMail(mail) }, mail.smtp === null ? 'mail: off' : 'mail: on');
  let sender: OutboxSender | null = null;
  let scheduler: NotifyScheduler | null = null;
  const opened: QuestionOpened = createOutboxHook({
    mail,
    recipients,
    tokens,
    statementsOn,
    now,
    nudge: () => sender?.nudge(),
  });
  const peopleStore = createPeopleStore(database);
  const people = createPeopleService({ store: peopleStore, now });
  return {
    opened,
    people,
    notifications: createNotificationService({ outbox: top, store }),
    testMail: createTestMail({ people, outbox: top, mail, now, nudge: () => sender?.nudge() }),
    /** A mail to one person about the desk itself (a webhook turned off); nothing without mail. */
    notice: createNoticeMail({ people: peopleStore, outbox: top, mail, now, nudge: () => sender?.nudge() }),
    /** Mail intake asks it whether a message replies to the desk's mail (and to which). */
    recogniseReply: createReplyRecognition({ outbox: top, tokens: links, replyTemplate: mail.replyAddress, now }),
    /**
     * Starts the sender loop (the composition root, once the conversation exists: the sender asks
     * it whether a question is still open before mailing about it); null without mail.
     */
    start(questionStatus: QuestionStatusPort): OutboxSender | null {
      if (mail.smtp === null || mail.from === null || sender !== null) return sender;
      sender = startOutboxSender({
        outbox: top,
        transport: createSmtpTransport(mail.smtp, mail.from, smtpTimeouts),
        questionStatus,
        now,
        logger,
        leaseMs: mail.sendLeaseMs,
        ...senderOptions,
      });
      return sender;
    },
    /**
     * Starts the scheduler of digests and escalations, which reads the conversation's open
     * questions through `questionsOn`; null without mail (nothing to send them with).
     */
    startScheduler(questionsOn: WaitingQuestionsOn): NotifyScheduler | null {
      if (mail.smtp === null || mail.from === null || scheduler !== null) return scheduler;
      scheduler = startNotifyScheduler({
        mail,
        store,
        top: database.kysely,
        questionsOn,
        scheduleOn: scheduleStatementsFor(database.dialect),
        outboxOn: statementsOn,
        tokens,
        now,
        logger,
        nudge: () => sender?.nudge(),
        ...schedulerOptions,
      });
      return scheduler;
    },
    async close(): Promise<void> {
      await scheduler?.stop();
      await sender?.stop();
    },
  };
}
