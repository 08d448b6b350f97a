import type { MailTokens, OutboxSender } from '../../src/notify/index.js';
import { type TestApp, startWorkApp } from '../support/apps.js';
import { ADMIN_SECRET, AUTH_ENV, bearer, mintToken } from '../support/auth.js';
import type { TestClock } from '../support/clock.js';
import type { StoreKind } from '../support/databases.js';
import { call } from '../support/http.js';
import type { SmtpTimeouts } from '../../src/notify/index.js';

// What the outbox tests share: a work app whose mail goes to a test SMTP server, with three
// people's profiles, all watching every item the tests make. Links are signed by a readable test
// signer, so a test can tell which token a mail carries.

export const SMTP_PASSWORD = 'pw-Zq81-never-in-a-log';

/** mia is told at once, otto reads digests, ada (the asking agent) is never told of her own question. */
export const PEOPLE = [
  { name: 'mia', email: 'mia@example.org', notify: 'immediate' },
  { name: 'otto', email: 'otto@example.org', notify: 'digest' },
  { name: 'ada', email: 'ada@example.org', notify: 'immediate' },
] as const;

/** Every person above, for the items the tests make. */
export const WATCHERS = PEOPLE.map((person) => person.name);

export const TEST_TOKENS: MailTokens = {
  answerToken: (questionId, person) => `ans.${questionId}.${person}`,
  replyToken: (notificationId) => `r.${notificationId}`,
};

export const NO_TIMER_MS = 60 * 60 * 1000;

export interface MailApp {
  t: TestApp;
  sender: () => OutboxSender;
  as: Record<'admin' | 'ada' | 'mia', Record<string, string>>;
}

export async function startMailApp(
  kind: StoreKind,
  smtpPort: number,
  clock: TestClock,
  smtpTimeouts?: SmtpTimeouts,
): Promise<MailApp> {
  let sender: OutboxSender | undefined;
  const t = await startWorkApp(
    kind,
    {
      ...AUTH_ENV,
      SMTP_URL: `smtp://desk:${SMTP_PASSWORD}@127.0.0.1:${smtpPort}`,
      MAIL_FROM: 'Agent Desk <desk@example.org>',
      PUBLIC_URL: 'http://desk.example.org/',
      INTAKE_REPLY_ADDRESS: 'desk+{token}@example.org',
    },
    {
      now: clock.now,
      sweepEveryMs: NO_TIMER_MS,
      notify: {
        tokens: TEST_TOKENS,
        ...(smtpTimeouts && { smtpTimeouts }),
        sender: { pollMs: NO_TIMER_MS },
      },
      onNotifySender: (started) => (sender = started),
    },
  );
  for (const { name, email, notify } of PEOPLE) {
    const put = await call(t.app, 'PUT', `/people/${name}`, { email, notify }, bearer(ADMIN_SECRET));
    if (put.status !== 201) throw new Error(put.text);
  }
  const as = {
    admin: bearer(ADMIN_SECRET),
    ada: bearer((await mintToken(t.app, { role: 'agent', name: 'ada-token', agent: 'ada' })).token),
    mia: bearer((await mintToken(t.app, { role: 'member', name: 'mia' })).token),
  };
  return {
    t,
    as,
    sender: () => {
      if (!sender) throw new Error('the outbox sender did not start');
      return sender;
    },
  };
}

/** A fresh item of its own type claimed by ada; `extra` goes into the submission. */
export async function claimedItem(app: MailApp, extra: Record<string, unknown> = {}): Promise<{ id: string }> {
  const type = `mail-${Math.random().toString(36).slice(2, 8)}`;
  const submitted = await call(
    app.t.app,
    'POST',
    '/work',
    { type, description: 'write the release notes', watchers: WATCHERS, ...extra },
    app.as.admin,
  );
  if (submitted.status !== 201) throw new Error(submitted.text);
  const claim = await call(app.t.app, 'POST', '/work/claim', { types: [type], lease_s: 300 }, app.as.ada);
  if (claim.status !== 200) throw new Error(claim.text);
  return { id: submitted.body.id as string };
}
