import { useState } from 'preact/hooks';
import { Modal } from '../../components/modal.tsx';
import { ProblemMessage } from '../../components/problem-message.tsx';
import { UserText, visibleBidi } from '../../components/user-text.tsx';
import { api } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { projectName, useProjects } from '../../lib/projects.ts';
import { useLoad } from '../../lib/use-load.ts';
import { useSubmit } from '../../lib/use-submit.ts';
import { type Webhook, stateOf, webhookPath } from '../../lib/webhooks.ts';
import { DeliveryLog } from './deliveries.tsx';
import { AddWebhook, NewSecret } from './webhook-form.tsx';

// Admins keep the endpoints that hear the desk's events: add one (its secret shown once), test
// it, switch it off and on, rotate its secret, delete it, and read each one's delivery log.

type Confirm = { kind: 'delete' | 'rotate'; webhook: Webhook };

export function WebhooksPage() {
  const webhooks = useLoad<Webhook[]>(
    'webhooks',
    async (signal) => (await api<Webhook[]>('GET', '/webhooks', undefined, signal)).data,
  );
  const [secret, setSecret] = useState<{ title: string; secret: string; note?: string } | null>(null);
  const [confirm, setConfirm] = useState<Confirm | null>(null);
  const { busy, problem, run } = useSubmit();

  const act = (work: () => Promise<void>) =>
    run(async () => {
      try {
        await work();
      } finally {
        setConfirm(null);
        webhooks.reload();
      }
    });
  const rotate = (w: Webhook) =>
    act(async () => {
      const r = (
        await api<{ secret: string; previous_valid_until: string }>('POST', webhookPath(w.id, '/rotate-secret'))
      ).data;
      setSecret({
        title: `New secret for ${visibleBidi(w.url)}`,
        secret: r.secret,
        note: `The previous secret also signs each delivery until ${formatDateTime(r.previous_valid_until)}, so the receiver can switch over in the meantime.`,
      });
    });

  return (
    <section aria-labelledby="webhooks-title" class="stack">
      <h1 id="webhooks-title">Webhooks</h1>
      <p class="muted">
        Each endpoint hears the desk's events it subscribes to, signed with its secret as Standard Webhooks describes,
        retried for hours when it does not answer 2xx, in order.
      </p>
      <AddWebhook
        onCreated={(w) => {
          setSecret({ title: `Webhook for ${visibleBidi(w.url)} added`, secret: w.secret });
          webhooks.reload();
        }}
      />
      {secret && <NewSecret {...secret} onDone={() => setSecret(null)} />}
      <ProblemMessage problem={problem ?? webhooks.error} />
      {webhooks.data === null ? (
        !webhooks.error && <p class="muted">Loading…</p>
      ) : webhooks.data.length === 0 ? (
        <p class="empty">No webhooks yet: the desk's events go nowhere but the live stream.</p>
      ) : (
        <ul class="webhooks" aria-label="Endpoints">
          {webhooks.data.map((w) => (
            <Endpoint
              key={w.id}
              webhook={w}
              busy={busy}
              onToggle={() =>
                void act(async () => void (await api('PATCH', webhookPath(w.id), { enabled: !w.enabled })))
              }
              onRotate={() => setConfirm({ kind: 'rotate', webhook: w })}
              onDelete={() => setConfirm({ kind: 'delete', webhook: w })}
            />
          ))}
        </ul>
      )}
      <Modal open={confirm !== null} labelledBy="webhook-confirm-title" onCancel={() => setConfirm(null)}>
        {confirm?.kind === 'delete' ? (
          <div class="stack">
            <h2 id="webhook-confirm-title" class="break">
              Delete the webhook for “<UserText text={confirm.webhook.url} />
              ”?
            </h2>
            <p>Nothing more is sent to it, and its delivery log goes with it.</p>
            <div class="row end">
              <button type="button" autoFocus onClick={() => setConfirm(null)}>
                Keep it
              </button>
              <button
                type="button"
                class="danger solid"
                disabled={busy}
                onClick={() => void act(async () => void (await api('DELETE', webhookPath(confirm.webhook.id))))}
              >
                Delete
              </button>
            </div>
          </div>
        ) : confirm?.kind === 'rotate' ? (
          <div class="stack">
            <h2 id="webhook-confirm-title" class="break">
              Rotate the secret of “<UserText text={confirm.webhook.url} />
              ”?
            </h2>
            <p>A new secret signs from now on; the current one also signs for a while, then stops.</p>
            <div class="row end">
              <button type="button" autoFocus onClick={() => setConfirm(null)}>
                Keep it
              </button>
              <button type="button" class="primary" disabled={busy} onClick={() => void rotate(confirm.webhook)}>
                Rotate
              </button>
            </div>
          </div>
        ) : null}
      </Modal>
    </section>
  );
}

function Endpoint(props: {
  webhook: Webhook;
  busy: boolean;
  onToggle: () => void;
  onRotate: () => void;
  onDelete: () => void;
}) {
  const w = props.webhook;
  const projects = useProjects();
  const [open, setOpen] = useState(false);
  const [refresh, setRefresh] = useState(0);
  const test = useSubmit();
  const state = stateOf(w);
  const label = visibleBidi(w.url);
  return (
    <li class="card stack webhook" data-webhook={w.id}>
      <div class="webhook-head">
        <h2 class="webhook-url">
          <UserText text={w.url} />
        </h2>
        <span class={`webhook-state ${state.tone}`} data-testid="webhook-state">
          {state.label}
        </span>
      </div>
      {w.description && (
        <p class="break">
          <UserText text={w.description} />
        </p>
      )}
      <dl class="webhook-facts">
        <div>
          <dt>Events</dt>
          <dd class="break">{w.events.includes('*') ? 'all events' : w.events.join(', ')}</dd>
        </div>
        <div>
          <dt>Project</dt>
          <dd>
            {w.project_id === null ? 'any' : <UserText text={projectName(projects, w.project_id) ?? w.project_id} />}
          </dd>
        </div>
        <div>
          <dt>Types</dt>
          <dd class="break">{w.types === null ? 'any' : w.types.join(', ')}</dd>
        </div>
        <div>
          <dt>Format</dt>
          <dd>{w.format}</dd>
        </div>
        {w.secret_overlap_until && (
          <div>
            <dt>Previous secret</dt>
            <dd>signs until {formatDateTime(w.secret_overlap_until)}</dd>
          </div>
        )}
      </dl>
      <ProblemMessage problem={test.problem} />
      <div class="row wrap webhook-actions">
        <button
          type="button"
          class="primary"
          disabled={test.busy || !w.enabled}
          onClick={() =>
            void test.run(async () => {
              await api('POST', webhookPath(w.id, '/test'));
              setOpen(true);
              setRefresh((n) => n + 1);
            })
          }
          aria-label={`Send a test event to ${label}`}
        >
          Send a test event
        </button>
        <button
          type="button"
          aria-expanded={open}
          onClick={() => setOpen(!open)}
          aria-label={`Delivery log of ${label}`}
        >
          {open ? 'Hide deliveries' : 'Deliveries'}
        </button>
        <button
          type="button"
          disabled={props.busy}
          onClick={props.onToggle}
          aria-label={`${w.enabled ? 'Disable' : 'Enable'} ${label}`}
        >
          {w.enabled ? 'Disable' : 'Enable'}
        </button>
        <button type="button" onClick={props.onRotate} aria-label={`Rotate the secret of ${label}`}>
          Rotate secret…
        </button>
        <button type="button" class="danger subtle" onClick={props.onDelete} aria-label={`Delete ${label}`}>
          Delete…
        </button>
      </div>
      {open && <DeliveryLog webhookId={w.id} refresh={refresh} />}
    </li>
  );
}
