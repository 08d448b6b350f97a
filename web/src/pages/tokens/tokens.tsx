import { useState } from 'preact/hooks';
import { McpConfig } from './mcp-config.tsx';
import { Modal } from '../../components/modal.tsx';
import { ProblemMessage } from '../../components/problem-message.tsx';
import { api } from '../../lib/api.ts';
import { useSubmit } from '../../lib/use-submit.ts';
import { formatDateTime } from '../../lib/format.ts';
import { useLoad } from '../../lib/use-load.ts';
import { useSession } from '../../lib/session.ts';
import { currentUser, USER_PATTERN } from '../../lib/user.ts';
import { ROLES, type Role } from '../../../../src/auth/roles.ts';
import type { TokenRecord } from '../../../../src/auth/schemas.ts';

const ROLE_HINTS: Record<Role, string> = {
  viewer: 'reads everything, follows live updates',
  agent: 'a viewer that also submits work and moves its own items',
  member: 'a person: submits, comments, answers questions, reviews, moves items dispatched to its name',
  intake: 'submits work and classifies email (automation)',
  admin: 'everything: projects, tokens, deleting, dispatching to anyone',
};

function stateOf(t: TokenRecord): string {
  if (t.revoked_at) return `revoked ${formatDateTime(t.revoked_at)}`;
  if (t.expires_at && Date.parse(t.expires_at) <= Date.now()) return `expired ${formatDateTime(t.expires_at)}`;
  return t.expires_at ? `expires ${formatDateTime(t.expires_at)}` : 'active';
}

/** Admins create tokens (the secret is shown once), see them, and revoke them. */
export function TokensPage() {
  const session = useSession();
  const open = session.auth === 'off';
  const tokens = useLoad<TokenRecord[]>(
    'tokens',
    async (signal) => (await api<TokenRecord[]>('GET', '/tokens', undefined, signal)).data,
  );
  const [secret, setSecret] = useState<{ name: string; token: string } | null>(null);
  const [revoking, setRevoking] = useState<TokenRecord | null>(null);
  const { problem, run } = useSubmit();

  const revoke = async (t: TokenRecord) => {
    await run(async () => {
      try {
        await api('DELETE', `/tokens/${t.id}`);
        tokens.reload();
      } finally {
        setRevoking(null);
      }
    });
  };

  return (
    <section aria-labelledby="tokens-title" class="stack">
      <h1 id="tokens-title">Tokens</h1>
      {open && <OpenDesk />}
      <CreateToken
        onCreated={(created) => {
          setSecret(created);
          tokens.reload();
        }}
      />
      {secret && (
        <>
          <NewSecret name={secret.name} token={secret.token} onDone={() => setSecret(null)} />
          <div class="card stack">
            <h2>Use “{secret.name}” from an agent</h2>
            <McpConfig credential={{ kind: 'token', token: secret.token }} />
          </div>
        </>
      )}
      <ProblemMessage problem={problem ?? tokens.error} />
      {tokens.data === null ? (
        !tokens.error && <p class="muted">Loading…</p>
      ) : tokens.data.length === 0 ? (
        <p class="empty">No tokens yet. Create one above for each agent, script or person that calls this desk.</p>
      ) : (
        <div class="table-wrap">
          <table class="tokens cards-on-phone">
            <caption class="visually-hidden">API tokens</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Role</th>
                <th scope="col">Agent</th>
                <th scope="col">Created</th>
                <th scope="col">State</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {tokens.data.map((t) => (
                <tr key={t.id} class={t.revoked_at ? 'revoked' : undefined}>
                  <td>{t.name}</td>
                  <td data-label="Role">{t.role}</td>
                  <td data-label="Agent">{t.agent ?? '—'}</td>
                  <td data-label="Created">
                    <time dateTime={t.created_at}>{formatDateTime(t.created_at)}</time>
                    <span class="muted small"> by {t.created_by}</span>
                  </td>
                  <td data-label="State">{stateOf(t)}</td>
                  <td data-label="Last used">
                    {t.last_used_at ? <time dateTime={t.last_used_at}>{formatDateTime(t.last_used_at)}</time> : 'never'}
                  </td>
                  <td class="actions">
                    {!t.revoked_at && (
                      <button
                        type="button"
                        class="danger subtle"
                        onClick={() => setRevoking(t)}
                        aria-label={`Revoke ${t.name}`}
                      >
                        Revoke…
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Modal open={revoking !== null} labelledBy="revoke-title" onCancel={() => setRevoking(null)}>
        <div class="stack">
          <h2 id="revoke-title">Revoke “{revoking?.name}”?</h2>
          <p>It stops working at once, everywhere, and the browsers signed in with it are signed out.</p>
          <div class="row end">
            <button type="button" autoFocus onClick={() => setRevoking(null)}>
              Keep it
            </button>
            <button type="button" class="danger solid" onClick={() => revoking && void revoke(revoking)}>
              Revoke
            </button>
          </div>
        </div>
      </Modal>
    </section>
  );
}

function CreateToken(props: { onCreated: (created: { name: string; token: string }) => void }) {
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [agent, setAgent] = useState('');
  const [expires, setExpires] = useState('');
  const { busy, problem, run } = useSubmit();
  return (
    <form
      class="card stack"
      aria-label="New token"
      onSubmit={async (e) => {
        e.preventDefault();
        await run(async () => {
          const body: Record<string, string> = { name: name.trim(), role };
          if (role === 'agent') body.agent = agent.trim();
          // datetime-local is the browser's local time; the API wants an instant
          if (expires !== '') body.expires_at = new Date(expires).toISOString();
          const r = await api<TokenRecord & { token: string }>('POST', '/tokens', body);
          props.onCreated({ name: r.data.name, token: r.data.token });
          setName('');
          setAgent('');
          setExpires('');
        });
      }}
    >
      <h2>New token</h2>
      <div class="row wrap">
        <label class="grow">
          Name
          <input
            name="name"
            value={name}
            required
            pattern={USER_PATTERN}
            maxLength={64}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </label>
        <label>
          Role
          <select name="role" value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        {role === 'agent' && (
          <label class="grow">
            Acts as agent
            <input
              name="agent"
              value={agent}
              required
              pattern={USER_PATTERN}
              maxLength={64}
              onInput={(e) => setAgent(e.currentTarget.value)}
            />
          </label>
        )}
        <label>
          Expires (optional)
          <input
            name="expires_at"
            type="datetime-local"
            value={expires}
            onInput={(e) => setExpires(e.currentTarget.value)}
          />
        </label>
      </div>
      <p class="muted small">{ROLE_HINTS[role]}</p>
      <ProblemMessage problem={problem} />
      <div class="row end">
        <button type="submit" class="primary" disabled={busy}>
          Create token
        </button>
      </div>
    </form>
  );
}

/** The secret, this once: it exists nowhere else, the service keeps only its hash. */
function NewSecret(props: { name: string; token: string; onDone: () => void }) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  return (
    <div class="card stack new-secret" role="status" aria-labelledby="new-secret-title">
      <h2 id="new-secret-title">Token “{props.name}” created</h2>
      <p>Copy it now: it will not be shown again.</p>
      <div class="row wrap">
        <code class="secret" data-testid="new-token">
          {props.token}
        </code>
        <button
          type="button"
          class="primary"
          onClick={() =>
            navigator.clipboard.writeText(props.token).then(
              () => setCopied('yes'),
              () => setCopied('no'),
            )
          }
        >
          Copy
        </button>
        <button type="button" onClick={props.onDone}>
          Done
        </button>
      </div>
      {copied === 'yes' && <p class="ok">Copied to the clipboard.</p>}
      {copied === 'no' && <p class="muted">The browser refused the clipboard; select the token and copy it by hand.</p>}
    </div>
  );
}

/** AUTH=off: tokens are kept but checked by nobody; agents name themselves with X-User. */
function OpenDesk() {
  const [agent, setAgent] = useState(currentUser() ?? 'your-agent');
  const name = new RegExp(`^(?:${USER_PATTERN})$`).test(agent) ? agent : 'your-agent';
  return (
    <div class="card stack" data-testid="auth-off">
      <p class="notice" role="note">
        This desk runs with <code>AUTH=off</code>: tokens do nothing here. Every request names its caller with the{' '}
        <code>X-User</code> header and nothing is checked. Tokens made now are kept, and work once the desk runs with{' '}
        <code>AUTH=tokens</code>.
      </p>
      <h2>Connect an agent over MCP</h2>
      <label>
        Agent name
        <input
          name="mcp-agent"
          value={agent}
          pattern={USER_PATTERN}
          maxLength={64}
          autoComplete="off"
          onInput={(e) => setAgent(e.currentTarget.value)}
        />
      </label>
      <McpConfig credential={{ kind: 'user', user: name }} />
    </div>
  );
}
