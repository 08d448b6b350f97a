import { useRef, useState } from 'preact/hooks';
import { ChangeFeedback } from '../components/change-feedback.tsx';
import { DispatchTimeline } from '../components/dispatch-timeline.tsx';
import { ItemHistory } from '../components/item-history.tsx';
import { ItemActions } from '../components/item-actions.tsx';
import { ItemEditor } from '../components/item-editor.tsx';
import { ItemRelations } from '../components/item-relations.tsx';
import { LoopFields } from '../components/loop-fields.tsx';
import { Modal } from '../components/modal.tsx';
import { NotesEditor } from '../components/notes-editor.tsx';
import { ProblemMessage } from '../components/problem-message.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { UserText, visibleBidi } from '../components/user-text.tsx';
import { api } from '../lib/api.ts';
import { formatDateTime } from '../lib/format.ts';
import { useLive } from '../lib/live.ts';
import { projectName, useProjects } from '../lib/projects.ts';
import { href, navigate } from '../lib/router.ts';
import { can, mayChangeItem, useSession } from '../lib/session.ts';
import { useItemChange } from '../lib/use-item-change.ts';
import { useLoad } from '../lib/use-load.ts';
import { useTitle } from '../lib/title.ts';
import { isFinal } from '../../../src/work/lifecycle.ts';
import type { WorkItem } from '../../../src/work/schemas.ts';

export function ItemPage({ id }: { id: string }) {
  const session = useSession();
  const path = `/work/${encodeURIComponent(id)}`;
  const shown = useRef<WorkItem | null>(null);
  const item = useLoad<WorkItem>(path, async (signal) => {
    const fresh = (await api<WorkItem>('GET', path, undefined, signal)).data;
    // A read that started before one of our own changes answered must not take the page back:
    // the page would then send an If-Match it has already moved past.
    const held = shown.current;
    return held !== null && held.id === fresh.id && held.version > fresh.version ? held : fresh;
  });
  shown.current = item.data;
  const projects = useProjects();
  const [deleted, setDeleted] = useState(false);
  // The item the confirmation was opened for: it can only ever delete that one.
  const [confirmDelete, setConfirmDelete] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const change = useItemChange({
    path,
    item,
    projectLabel: (projectId) => (projectId === null ? '—' : (projectName(projects, projectId) ?? projectId)),
    onGone: () => setDeleted(true),
  });
  const { busy } = change;

  useLive((e) => {
    if ((e.type === 'work.updated' && e.data.id === id) || e.type === 'resync') {
      // the event carries no dispatch log, so read the item again
      item.reload();
    } else if (e.type === 'work.deleted' && e.data.id === id) {
      setDeleted(true);
    }
  });

  const remove = async (basis: WorkItem) => {
    const result = await change.remove(basis);
    if (result.ok) navigate(href('/'));
    else setConfirmDelete(null);
  };

  const w = item.data;
  useTitle(w ? w.description : item.error ? 'Item not found' : 'Item');
  if (!w) {
    return (
      <section>
        <p>
          <a href={href('/')}>← Board</a>
        </p>
        {item.error ? <ProblemMessage problem={item.error} /> : <p class="muted">Loading…</p>}
      </section>
    );
  }

  const mayChange = mayChangeItem(session, w.assigned_agent);
  const mayEdit = !deleted && mayChange && !isFinal(w.status);

  return (
    <article class="item" aria-labelledby="item-title">
      <p>
        <a href={href('/')}>← Board</a>
      </p>
      {deleted && (
        <p class="notice" role="status">
          This item has been deleted.
        </p>
      )}
      <header class="item-head">
        <h1 id="item-title" class="item-title">
          <UserText text={w.description} />
        </h1>
        <div class="row wrap">
          <StatusBadge status={w.status} />
          <span class="pill">priority {w.priority}</span>
          <code class="pill">{w.type}</code>
        </div>
      </header>
      <div class="item-grid">
        <div class="stack">
          <ItemRelations item={w} mayAdd={can(session, 'submit')} />
          <section aria-labelledby="fields-title" class="card stack">
            <div class="row between">
              <h2 id="fields-title">Fields</h2>
              {mayEdit && !editing && (
                <button type="button" onClick={() => setEditing(true)}>
                  Edit item
                </button>
              )}
            </div>
            {mayEdit && editing ? (
              <ItemEditor
                item={w}
                projects={projects}
                busy={busy}
                feedback={change.feedbackAt('edit')}
                onSave={(basis, body) => change.patch(basis, body, 'Changes saved.', 'edit')}
                onClose={() => setEditing(false)}
              />
            ) : (
              <ChangeFeedback feedback={change.feedbackAt('edit')} />
            )}
            <dl class="fields">
              <dt>ID</dt>
              <dd>
                <code>{w.id}</code>
              </dd>
              <dt>Version</dt>
              <dd>{w.version}</dd>
              <dt>Type</dt>
              <dd>
                <code>{w.type}</code>
              </dd>
              <dt>Priority</dt>
              <dd>{w.priority}</dd>
              <dt>Status</dt>
              <dd>
                <StatusBadge status={w.status} />
              </dd>
              <dt>Assigned agent</dt>
              <dd>{w.assigned_agent ?? '—'}</dd>
              <dt>Outcome</dt>
              <dd>{w.outcome ?? '—'}</dd>
              <dt>Project</dt>
              <dd>
                {w.project_id ? (
                  <a href={href('/', { project_id: w.project_id })}>
                    <UserText text={projectName(projects, w.project_id) ?? w.project_id} />
                  </a>
                ) : (
                  '—'
                )}
              </dd>
              <dt>Created by</dt>
              <dd>{w.created_by}</dd>
              <dt>Created</dt>
              <dd>
                <time dateTime={w.created_at}>{formatDateTime(w.created_at)}</time>
              </dd>
              <dt>Updated</dt>
              <dd>
                <time dateTime={w.updated_at}>{formatDateTime(w.updated_at)}</time>
              </dd>
              <dt>Completed</dt>
              <dd>{w.completed_at ? <time dateTime={w.completed_at}>{formatDateTime(w.completed_at)}</time> : '—'}</dd>
              <LoopFields item={w} />
            </dl>
          </section>
          <NotesEditor
            key={w.id}
            item={w}
            editable={!deleted && mayChange}
            busy={busy}
            feedback={change.feedbackAt('notes')}
            onSave={(basis, notes) => change.patch(basis, { notes }, 'Notes saved.', 'notes')}
          />
          <section aria-labelledby="payload-title" class="card">
            <h2 id="payload-title">Payload</h2>
            {w.payload === null ? <p class="muted">No payload.</p> : <pre class="payload">{visibleBidi(JSON.stringify(w.payload, null, 2))}</pre>}
          </section>
        </div>
        <div class="stack">
          <section aria-labelledby="actions-title" class="card card-actions">
            <h2 id="actions-title">Actions</h2>
            {!deleted && !mayChange && (
              <p class="muted">
                {session.principal?.agent
                  ? `Only items assigned to ${session.principal.agent} can be moved with this sign-in.`
                  : 'Your role can read this item but not change it.'}
              </p>
            )}
            {!deleted && mayChange && (
              <ItemActions
                key={w.id}
                item={w}
                busy={busy}
                mayDispatch={can(session, 'admin')}
                onPatch={async (body, label) => (await change.patch(w, { ...body }, `${label}: done.`, 'actions')).ok}
              />
            )}
            <ChangeFeedback feedback={change.feedbackAt('actions')} />
            {!deleted && can(session, 'admin') && (
              <div class="row end">
                <button type="button" class="danger subtle" disabled={busy} onClick={() => setConfirmDelete(w.id)}>
                  Delete…
                </button>
              </div>
            )}
          </section>
          <section aria-labelledby="log-title" class="card">
            <h2 id="log-title">Dispatch log</h2>
            <DispatchTimeline entries={w.dispatch_log} />
          </section>
          <section aria-labelledby="history-title" class="card">
            <h2 id="history-title">History</h2>
            <ItemHistory id={w.id} version={w.version} />
          </section>
        </div>
      </div>
      <Modal open={confirmDelete !== null && confirmDelete === w.id && w.id === id} labelledBy="delete-title" onCancel={() => setConfirmDelete(null)}>
        <div class="stack">
          <h2 id="delete-title">Delete this work item?</h2>
          <p>
            “<span class="clip">{w.description}</span>” and its dispatch log will be gone for good.
          </p>
          <div class="row end">
            <button type="button" autoFocus onClick={() => setConfirmDelete(null)}>
              Keep it
            </button>
            <button type="button" class="danger solid" disabled={busy} onClick={() => void remove(w)}>
              Delete
            </button>
          </div>
        </div>
      </Modal>
    </article>
  );
}
