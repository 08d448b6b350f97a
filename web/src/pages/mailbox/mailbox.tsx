import { useState } from 'preact/hooks';
import { ProblemMessage } from '../../components/problem-message.tsx';
import { RulesEditor } from './rules-editor.tsx';
import { ApiProblem, api, withQuery } from '../../lib/api.ts';
import { useSubmit } from '../../lib/use-submit.ts';
import { formatDateTime } from '../../lib/format.ts';
import { href } from '../../lib/router.ts';
import { can, sessionHeaders, useSession } from '../../lib/session.ts';
import { useLoad } from '../../lib/use-load.ts';
import { useTitle } from '../../lib/title.ts';
import type { ConnectionTest, IntakeMessage, Mailbox, RoutingRule } from '../../../../src/intake/schemas.ts';
import { Backfill, MailboxState, TestResult, accountOf, useRefresh } from '../mailboxes.tsx';

const PAGE = 50;

/** One mailbox: its state, the connection test, enable/disable, routing rules, imports and its intake log. */
export function MailboxPage({ id }: { id: string }) {
  const session = useSession();
  const admin = can(session, 'admin');
  const mailbox = useLoad<Mailbox>(
    `mailbox ${id}`,
    async (signal) => (await api<Mailbox>('GET', `/mailboxes/${id}`, undefined, signal)).data,
  );
  useRefresh(mailbox.reload);
  const { busy, problem, run } = useSubmit();
  const [tested, setTested] = useState<ConnectionTest | null>(null);

  const patch = (body: Record<string, unknown>) =>
    run(async () => {
      const updated = await api<Mailbox>('PATCH', `/mailboxes/${id}`, body);
      mailbox.setData(() => updated.data);
    });

  const m = mailbox.data;
  useTitle(m ? `Mailbox ${m.name}` : mailbox.error ? 'Mailbox not found' : 'Mailbox');
  if (m === null) {
    return (
      <section class="stack">
        <p>
          <a href={href('/mailboxes')}>← Mailboxes</a>
        </p>
        <ProblemMessage problem={mailbox.error} />
        {!mailbox.error && <p class="muted">Loading…</p>}
      </section>
    );
  }
  return (
    <section aria-labelledby="mailbox-title" class="stack">
      <p>
        <a href={href('/mailboxes')}>← Mailboxes</a>
      </p>
      <div class="page-head">
        <h1 id="mailbox-title">{m.name}</h1>
        <MailboxState mailbox={m} />
      </div>
      <div class="card stack">
        <p class="break">
          {accountOf(m)}
          {m.kind === 'imap' && ` (${m.tls ?? ''})`} ·{' '}
          {m.auth === 'xoauth2' ? 'OAuth token' : m.auth === 'client_secret' ? 'client secret' : 'password'} stored
          encrypted
        </p>
        <dl class="mailbox-facts small">
          <dt>Last sync</dt>
          <dd>{m.last_sync_at ? formatDateTime(m.last_sync_at) : 'never'}</dd>
          <dt>Last error</dt>
          <dd data-testid="last-error">
            {m.last_error ? `${m.last_error} (${formatDateTime(m.last_error_at)})` : 'none'}
          </dd>
          <dt>Counts</dt>
          <dd>
            {m.counts.seen} seen · {m.counts.classified} classified · {m.counts.items_created} work items ·{' '}
            {m.counts.notes_added} notes · {m.counts.failed} failed
          </dd>
        </dl>
        <Backfill mailbox={m} />
        {admin && (
          <div class="row wrap">
            <button
              type="button"
              disabled={busy}
              onClick={() =>
                void run(async () => setTested((await api<ConnectionTest>('POST', `/mailboxes/${id}/test`)).data))
              }
            >
              Test connection
            </button>
            <button type="button" disabled={busy} onClick={() => void patch({ enabled: !m.enabled })}>
              {m.enabled ? 'Disable' : 'Enable'}
            </button>
          </div>
        )}
        <TestResult result={tested} />
        <ProblemMessage problem={problem} />
      </div>
      <RulesEditor rules={m.rules} readOnly={!admin} onSave={(rules: RoutingRule[]) => patch({ rules })} />
      <ProblemMessage problem={problem} />
      {admin && <ImportForm id={id} onQueued={mailbox.reload} />}
      <IntakeLog id={id} seen={m.counts.seen} />
    </section>
  );
}

const UPLOAD_TYPES: Record<string, string> = { eml: 'message/rfc822', mbox: 'application/mbox' };

function ImportForm(props: { id: string; onQueued: () => void }) {
  const [file, setFile] = useState<File | null>(null);
  const { busy, problem, run } = useSubmit();
  const [queued, setQueued] = useState<number | null>(null);
  return (
    <form
      class="card stack"
      aria-label="Import messages"
      onSubmit={async (e) => {
        e.preventDefault();
        if (!file) return;
        setQueued(null);
        await run(async () => {
          const extension = file.name.split('.').pop()?.toLowerCase() ?? '';
          const res = await fetch(`mailboxes/${props.id}/import`, {
            method: 'POST',
            headers: { ...sessionHeaders(), 'content-type': UPLOAD_TYPES[extension] ?? 'application/octet-stream' },
            body: file,
          });
          const body = (await res.json()) as Record<string, unknown>;
          if (!res.ok) throw new ApiProblem(body, res.status);
          setQueued(Number(body.queued));
          props.onQueued();
        });
      }}
    >
      <h2>Import an export</h2>
      <div class="row wrap">
        <label class="grow">
          An .eml file or an mbox
          <input
            name="file"
            type="file"
            accept=".eml,.mbox,message/rfc822,application/mbox"
            onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
          />
        </label>
        <button type="submit" class="primary" disabled={busy || file === null}>
          Import
        </button>
      </div>
      {queued !== null && (
        <p class="ok">
          {queued} message{queued === 1 ? '' : 's'} queued; progress shows as the backfill above.
        </p>
      )}
      <ProblemMessage problem={problem} />
    </form>
  );
}

const ACTION_LABELS: Record<IntakeMessage['action'], string> = {
  created: 'Work item created',
  noted: 'Note on the thread’s item',
  answered: 'Answered a question (reply)',
  recorded: 'Recorded',
  duplicate: 'Duplicate',
  failed: 'Failed',
};

/** The intake log, newest first; `seen` (the mailbox's count) reloads it when mail arrives. */
function IntakeLog(props: { id: string; seen: number }) {
  const [cursor, setCursor] = useState<string | null>(null);
  const [failedOnly, setFailedOnly] = useState(false);
  const log = useLoad<{ items: IntakeMessage[]; next: string | null }>(
    `log ${props.id} ${props.seen} ${cursor} ${failedOnly}`,
    async (signal) => {
      const page = await api<IntakeMessage[]>(
        'GET',
        withQuery(`/mailboxes/${props.id}/messages`, { limit: PAGE, cursor, status: failedOnly ? 'failed' : null }),
        undefined,
        signal,
      );
      return { items: page.data, next: page.nextCursor };
    },
  );
  return (
    <section aria-labelledby="log-title" class="stack">
      <div class="page-head">
        <h2 id="log-title">Intake log</h2>
        <label class="inline-check small">
          <input
            type="checkbox"
            checked={failedOnly}
            onChange={(e) => (setCursor(null), setFailedOnly(e.currentTarget.checked))}
          />
          Failed only
        </label>
      </div>
      <ProblemMessage problem={log.error} />
      {log.data && log.data.items.length === 0 && <p class="empty">No message yet.</p>}
      {log.data && log.data.items.length > 0 && (
        <div class="table-wrap">
          <table class="intake-log">
            <caption class="visually-hidden">Messages taken in</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">From</th>
                <th scope="col">Subject</th>
                <th scope="col">Category</th>
                <th scope="col">Outcome</th>
              </tr>
            </thead>
            <tbody>
              {log.data.items.map((entry) => (
                <tr key={entry.id} class={entry.status === 'failed' ? 'failed' : undefined}>
                  <td class="nowrap small">
                    <time dateTime={entry.created_at}>{formatDateTime(entry.created_at)}</time>
                  </td>
                  <td class="break small">{entry.sender ?? '—'}</td>
                  <td class="break">{entry.subject ?? '(no subject)'}</td>
                  <td>
                    {entry.category ?? '—'}
                    {entry.needs_action && <span class="badge badge-needs-action"> needs action</span>}
                  </td>
                  <td>
                    {entry.work_item_id ? (
                      <a href={href(`/items/${entry.work_item_id}`)}>{ACTION_LABELS[entry.action]}</a>
                    ) : (
                      ACTION_LABELS[entry.action]
                    )}
                    {entry.rule_index !== null && <span class="muted small"> (rule {entry.rule_index + 1})</span>}
                    {entry.error && <div class="small field-error">{entry.error}</div>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div class="pager">
        {cursor !== null && (
          <button type="button" onClick={() => setCursor(null)}>
            Newest
          </button>
        )}
        {log.data?.next && (
          <button type="button" onClick={() => setCursor(log.data?.next ?? null)}>
            Older
          </button>
        )}
      </div>
    </section>
  );
}
