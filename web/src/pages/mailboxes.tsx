import { useEffect, useState } from 'preact/hooks';
import { ProblemMessage } from '../components/problem-message.tsx';
import { api } from '../lib/api.ts';
import { useSubmit } from '../lib/use-submit.ts';
import { formatAgo, formatDateTime } from '../lib/format.ts';
import { useProjects } from '../lib/projects.ts';
import { href, navigate } from '../lib/router.ts';
import { can, useSession } from '../lib/session.ts';
import { useLoad } from '../lib/use-load.ts';
import type { ConnectionTest, Mailbox } from '../../../src/intake/schemas.ts';

/** How often the page asks for the mailboxes' state: watchers change it on their own. */
export const MAILBOX_REFRESH_MS = 3_000;

const STATE_LABELS: Record<Mailbox['state'], string> = {
  stopped: 'Stopped',
  connecting: 'Connecting…',
  syncing: 'Syncing…',
  idle: 'Watching',
  error: 'Error',
};

export function MailboxState({ mailbox }: { mailbox: Mailbox }) {
  return (
    <span
      class={`pill mailbox-state state-${mailbox.state}`}
      title={`since ${formatDateTime(mailbox.state_changed_at)}`}
    >
      {STATE_LABELS[mailbox.state]}
    </span>
  );
}

export function Backfill({ mailbox }: { mailbox: Mailbox }) {
  const { done, total } = mailbox.backfill;
  if (total === 0) return null;
  return (
    <label class="small backfill">
      Backfill {done} / {total}
      <progress value={done} max={total} aria-label={`Backfill ${done} of ${total}`} />
    </label>
  );
}

/** Which account a mailbox reads, in one line. */
export function accountOf(m: Mailbox): string {
  return m.kind === 'graph'
    ? `${m.address} (Microsoft 365) · ${m.folder}`
    : `${m.username}@${m.host}:${m.port} · ${m.folder}`;
}

export function TestResult({ result }: { result: ConnectionTest | null }) {
  if (result === null) return null;
  return (
    <p class={result.ok ? 'ok' : 'problem'} role="status" data-testid="connection-test">
      {result.ok ? 'Connection works: ' : `Failed at ${result.stage}: `}
      {result.message}
    </p>
  );
}

/** The reload of a page that shows live state: every few seconds while it is open. */
export function useRefresh(reload: () => void): void {
  useEffect(() => {
    const timer = setInterval(reload, MAILBOX_REFRESH_MS);
    return () => clearInterval(timer);
  }, [reload]);
}

/** Every mailbox with its state and counters; admins connect new ones here. */
export function MailboxesPage() {
  const session = useSession();
  const admin = can(session, 'admin');
  const mailboxes = useLoad<Mailbox[]>(
    'mailboxes',
    async (signal) => (await api<Mailbox[]>('GET', '/mailboxes', undefined, signal)).data,
  );
  useRefresh(mailboxes.reload);
  return (
    <section aria-labelledby="mailboxes-title" class="stack">
      <h1 id="mailboxes-title">Mailboxes</h1>
      <p class="muted">
        Mail that arrives in a connected mailbox is classified once; what needs action becomes a work item.
      </p>
      {admin && <AddMailbox onAdded={(id) => navigate(href(`/mailboxes/${id}`))} />}
      <ProblemMessage problem={mailboxes.error} />
      {mailboxes.data === null ? (
        !mailboxes.error && <p class="muted">Loading…</p>
      ) : mailboxes.data.length === 0 ? (
        <p class="empty">No mailbox is connected yet.</p>
      ) : (
        <div class="table-wrap">
          <table class="mailboxes">
            <caption class="visually-hidden">Connected mailboxes</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Account</th>
                <th scope="col">State</th>
                <th scope="col">Seen</th>
                <th scope="col">Classified</th>
                <th scope="col">Items</th>
                <th scope="col">Failed</th>
                <th scope="col">Last sync</th>
              </tr>
            </thead>
            <tbody>
              {mailboxes.data.map((m) => (
                <tr key={m.id}>
                  <td>
                    <a href={href(`/mailboxes/${m.id}`)}>{m.name}</a>
                    {!m.enabled && <span class="muted small"> (disabled)</span>}
                  </td>
                  <td class="break small">{accountOf(m)}</td>
                  <td>
                    <MailboxState mailbox={m} />
                    {m.state === 'error' && m.last_error && <div class="small field-error">{m.last_error}</div>}
                    <Backfill mailbox={m} />
                  </td>
                  <td>{m.counts.seen}</td>
                  <td>{m.counts.classified}</td>
                  <td>{m.counts.items_created}</td>
                  <td>{m.counts.failed}</td>
                  <td>
                    {m.last_sync_at ? <time dateTime={m.last_sync_at}>{formatAgo(m.last_sync_at)}</time> : 'never'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

type Secret = 'password' | 'access_token';

/** Connects a mailbox, then tests the connection with what was saved. */
function AddMailbox(props: { onAdded: (id: string) => void }) {
  const projects = useProjects();
  const [kind, setKind] = useState<'imap' | 'graph'>('imap');
  const [form, setForm] = useState({
    name: '',
    host: '',
    port: '',
    tls: 'tls',
    username: '',
    secret: '',
    folder: '',
    since: '',
    project_id: '',
    tenant_id: '',
    client_id: '',
    address: '',
  });
  const [secretKind, setSecretKind] = useState<Secret>('password');
  const [enabled, setEnabled] = useState(true);
  const { busy, problem, run } = useSubmit();
  const [tested, setTested] = useState<{ id: string; result: ConnectionTest } | null>(null);
  const set = (field: keyof typeof form) => (e: { currentTarget: { value: string } }) =>
    setForm({ ...form, [field]: e.currentTarget.value });

  const submit = async (e: Event) => {
    e.preventDefault();
    setTested(null);
    await run(async () => {
      const body: Record<string, unknown> =
        kind === 'imap'
          ? {
              name: form.name.trim(),
              kind,
              host: form.host.trim(),
              tls: form.tls,
              username: form.username.trim(),
              [secretKind]: form.secret,
              enabled,
            }
          : {
              name: form.name.trim(),
              kind,
              tenant_id: form.tenant_id.trim(),
              client_id: form.client_id.trim(),
              client_secret: form.secret,
              address: form.address.trim(),
              enabled,
            };
      if (form.folder.trim() !== '') body.folder = form.folder.trim();
      if (kind === 'imap' && form.port !== '') body.port = Number(form.port);
      if (form.since !== '') body.since = new Date(form.since).toISOString();
      if (form.project_id !== '') body.project_id = form.project_id;
      const created = await api<Mailbox>('POST', '/mailboxes', body);
      const result = await api<ConnectionTest>('POST', `/mailboxes/${created.data.id}/test`);
      setForm({ ...form, secret: '' });
      if (result.data.ok) props.onAdded(created.data.id);
      else setTested({ id: created.data.id, result: result.data });
    });
  };

  return (
    <form class="card stack" aria-label="Connect a mailbox" onSubmit={(e) => void submit(e)}>
      <h2>Connect a mailbox</h2>
      <div class="row wrap">
        <label class="grow">
          Name
          <input name="name" value={form.name} required maxLength={200} onInput={set('name')} />
        </label>
        <label>
          Kind
          <select name="kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as 'imap' | 'graph')}>
            <option value="imap">IMAP</option>
            <option value="graph">Microsoft 365 (Graph)</option>
          </select>
        </label>
      </div>
      {kind === 'imap' ? (
        <>
          <div class="row wrap">
            <label class="grow">
              Server
              <input name="host" value={form.host} required placeholder="imap.example.com" onInput={set('host')} />
            </label>
            <label>
              Port
              <input
                name="port"
                type="number"
                min={1}
                max={65535}
                value={form.port}
                placeholder={form.tls === 'tls' ? '993' : '143'}
                onInput={set('port')}
              />
            </label>
            <label>
              Security
              <select name="tls" value={form.tls} onChange={set('tls')}>
                <option value="tls">TLS</option>
                <option value="starttls">STARTTLS</option>
                <option value="none">None (clear text)</option>
              </select>
            </label>
          </div>
          <div class="row wrap">
            <label class="grow">
              Username
              <input name="username" value={form.username} required autoComplete="off" onInput={set('username')} />
            </label>
            <label>
              Sign in with
              <select
                name="secret_kind"
                value={secretKind}
                onChange={(e) => setSecretKind(e.currentTarget.value as Secret)}
              >
                <option value="password">Password</option>
                <option value="access_token">OAuth access token (XOAUTH2)</option>
              </select>
            </label>
            <label class="grow">
              {secretKind === 'password' ? 'Password' : 'Access token'}
              <input
                name="secret"
                type="password"
                value={form.secret}
                required
                autoComplete="new-password"
                onInput={set('secret')}
              />
            </label>
          </div>
        </>
      ) : (
        <div class="row wrap">
          <label class="grow">
            Tenant id
            <input name="tenant_id" value={form.tenant_id} required onInput={set('tenant_id')} />
          </label>
          <label class="grow">
            App (client) id
            <input name="client_id" value={form.client_id} required onInput={set('client_id')} />
          </label>
          <label class="grow">
            Client secret
            <input
              name="client_secret"
              type="password"
              value={form.secret}
              required
              autoComplete="new-password"
              onInput={set('secret')}
            />
          </label>
          <label class="grow">
            Mailbox address
            <input
              name="address"
              value={form.address}
              required
              placeholder="support@contoso.com"
              onInput={set('address')}
            />
          </label>
        </div>
      )}
      <div class="row wrap">
        <label>
          Folder
          <input
            name="folder"
            value={form.folder}
            placeholder={kind === 'imap' ? 'INBOX' : 'inbox'}
            onInput={set('folder')}
          />
        </label>
        <label>
          Also take mail since (optional)
          <input name="since" type="datetime-local" value={form.since} onInput={set('since')} />
        </label>
        <label>
          Project (optional)
          <select name="project_id" value={form.project_id} onChange={set('project_id')}>
            <option value="">None</option>
            {(projects ?? []).map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
        <label class="inline-check">
          <input
            name="enabled"
            type="checkbox"
            checked={enabled}
            onChange={(e) => setEnabled(e.currentTarget.checked)}
          />
          Watch it now
        </label>
      </div>
      <p class="muted small">
        The secret is encrypted on the server and never shown again. Without a date, only mail that arrives from now on
        is taken in.
      </p>
      <ProblemMessage problem={problem} />
      {tested && (
        <div class="stack">
          <TestResult result={tested.result} />
          <p class="small">
            The mailbox was saved; fix it on <a href={href(`/mailboxes/${tested.id}`)}>its page</a>.
          </p>
        </div>
      )}
      <div class="row end">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Connecting…' : 'Connect and test'}
        </button>
      </div>
    </form>
  );
}
