import type { Notification } from '../../../../src/notify/outbox/schemas.ts';
import { ProblemMessage } from '../../components/problem-message.tsx';
import { UserText } from '../../components/user-text.tsx';
import { api } from '../../lib/api.ts';
import type { Question } from '../../lib/conversation.ts';
import { formatDateTime } from '../../lib/format.ts';
import { useLoad } from '../../lib/use-load.ts';
import { useEffect } from 'preact/hooks';

const WAITING_REREAD_MS = 3_000;

// Who the desk emailed of the item's questions and reviews, and how sending went. Sending happens
// after the commit and sends no event, so the list is read again when the questions change, and
// every few seconds while a mail still waits to go.

const KIND_WORDS: Record<Notification['kind'], string> = {
  question: 'question',
  review: 'review',
  digest: 'digest',
  escalation: 'overdue',
  test: 'test',
  notice: 'notice',
};

export function ItemNotifications(props: { itemId: string; version: number; questions: readonly Question[] }) {
  const path = `/work/${encodeURIComponent(props.itemId)}/notifications`;
  // A question asked or answered changes whom the desk writes to.
  const asked = props.questions.map((q) => `${q.id}:${q.status}`).join(',');
  const list = useLoad<Notification[]>(
    `${path}#${props.version}#${asked}`,
    async (signal) => (await api<Notification[]>('GET', path, undefined, signal)).data,
  );
  const waiting = (list.data ?? []).some(
    (n) => n.status === 'pending' || (n.status === 'failed' && n.next_attempt_at !== null),
  );
  const { reload } = list;
  useEffect(() => {
    if (!waiting || list.loading) return undefined;
    const timer = setTimeout(reload, WAITING_REREAD_MS);
    return () => clearTimeout(timer);
  }, [waiting, list.loading, list.data, reload]);
  if (list.data !== null && list.data.length === 0 && props.questions.length === 0) return null;
  return (
    <section aria-labelledby="told-title" class="card stack">
      <h2 id="told-title">Told by email</h2>
      <ProblemMessage problem={list.error} />
      {list.data === null ? (
        !list.error && <p class="muted">Loading…</p>
      ) : list.data.length === 0 ? (
        <p class="muted">Nobody was emailed: no one watching has a profile that asks for email.</p>
      ) : (
        <ul class="told" aria-label="Emails about this item, oldest first">
          {list.data.map((n) => (
            <li key={n.id} class={`told-${n.status}`} data-status={n.status}>
              <div class="row between wrap">
                <span>
                  <strong>
                    <UserText text={n.person} />
                  </strong>{' '}
                  <span class="muted small break">
                    <UserText text={n.address} />
                  </span>
                </span>
                <span class="pill">{KIND_WORDS[n.kind]}</span>
              </div>
              <Delivery n={n} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Delivery({ n }: { n: Notification }) {
  if (n.status === 'sent' && n.sent_at !== null) {
    return (
      <div class="small">
        sent <time dateTime={n.sent_at}>{formatDateTime(n.sent_at)}</time>
      </div>
    );
  }
  if (n.status === 'pending') {
    return (
      <div class="small muted">
        waiting to be sent (queued <time dateTime={n.created_at}>{formatDateTime(n.created_at)}</time>)
      </div>
    );
  }
  const tries = n.attempts === 1 ? '1 attempt' : `${n.attempts} attempts`;
  return (
    <div class="small told-failure">
      <span class="field-error">not sent</span> after {tries}
      {n.next_attempt_at !== null ? (
        <>
          ; next try <time dateTime={n.next_attempt_at}>{formatDateTime(n.next_attempt_at)}</time>
        </>
      ) : (
        '; given up'
      )}
      {n.last_error !== null && (
        <div class="muted break">
          <UserText text={n.last_error} />
        </div>
      )}
    </div>
  );
}
