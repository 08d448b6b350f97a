import { useEffect, useState } from 'preact/hooks';
import { DispatchTimeline } from '../components/dispatch-timeline.tsx';
import { ItemActions } from '../components/item-actions.tsx';
import { Modal } from '../components/modal.tsx';
import { ProblemMessage } from '../components/problem-message.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { UserText, visibleBidi } from '../components/user-text.tsx';
import { api, ApiProblem, toProblem } from '../lib/api.ts';
import { formatDateTime } from '../lib/format.ts';
import type { PatchBody } from '../lib/lifecycle.ts';
import { useLive } from '../lib/live.ts';
import { projectName, useProjects } from '../lib/projects.ts';
import { href, navigate } from '../lib/router.ts';
import { can, mayChangeItem, useSession } from '../lib/session.ts';
import { useLoad } from '../lib/use-load.ts';
import type { WorkItem } from '../../../src/work/schemas.ts';

export function ItemPage({ id }: { id: string }) {
  const session = useSession();
  const path = `/work/${encodeURIComponent(id)}`;
  const item = useLoad<WorkItem>(path, async (signal) => (await api<WorkItem>('GET', path, undefined, signal)).data);
  const projects = useProjects();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<{ at: 'actions' | 'notes'; problem: ApiProblem } | null>(null);
  const [done, setDone] = useState<{ at: 'actions' | 'notes'; message: string } | null>(null);
  const [deleted, setDeleted] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);

  useEffect(() => {
    setProblem(null);
    setDone(null);
    setDeleted(false);
  }, [id]);

  useLive((e) => {
    if ((e.type === 'work.updated' && e.data.id === id) || e.type === 'resync') {
      // the event carries no dispatch log, so read the item again
      item.reload();
    } else if (e.type === 'work.deleted' && e.data.id === id) {
      setDeleted(true);
    }
  });

  const patch = async (body: PatchBody, message: string, at: 'actions' | 'notes' = 'actions') => {
    setBusy(true);
    setProblem(null);
    setDone(null);
    try {
      const r = await api<WorkItem>('PATCH', path, body);
      item.setData(() => r.data);
      setDone({ at, message });
      return true;
    } catch (err) {
      setProblem({ at, problem: toProblem(err) });
      // a refusal usually means the item moved on; show where it is now
      if (err instanceof ApiProblem && err.status === 409) item.reload();
      return false;
    } finally {
      setBusy(false);
    }
  };

  const remove = async () => {
    setBusy(true);
    try {
      await api('DELETE', path);
      navigate(href('/'));
    } catch (err) {
      setProblem({ at: 'actions', problem: toProblem(err) });
      setConfirmDelete(false);
    } finally {
      setBusy(false);
    }
  };

  const w = item.data;
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
          <section aria-labelledby="fields-title" class="card">
            <h2 id="fields-title">Fields</h2>
            <dl class="fields">
              <dt>ID</dt>
              <dd>
                <code>{w.id}</code>
              </dd>
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
            </dl>
          </section>
          <NotesEditor
            key={w.id}
            editable={mayChangeItem(session, w.assigned_agent)}
            notes={w.notes}
            busy={busy}
            problem={problem?.at === 'notes' ? problem.problem : null}
            done={done?.at === 'notes' ? done.message : null}
            onSave={(notes) => patch({ notes }, 'Notes saved.', 'notes')}
          />
          <section aria-labelledby="payload-title" class="card">
            <h2 id="payload-title">Payload</h2>
            {w.payload === null ? <p class="muted">No payload.</p> : <pre class="payload">{visibleBidi(JSON.stringify(w.payload, null, 2))}</pre>}
          </section>
        </div>
        <div class="stack">
          <section aria-labelledby="actions-title" class="card card-actions">
            <h2 id="actions-title">Actions</h2>
            {!deleted && !mayChangeItem(session, w.assigned_agent) && (
              <p class="muted">
                {session.principal?.agent
                  ? `Only items assigned to ${session.principal.agent} can be moved with this sign-in.`
                  : 'Your role can read this item but not change it.'}
              </p>
            )}
            {!deleted && mayChangeItem(session, w.assigned_agent) && (
              <ItemActions
                key={`${w.id}:${w.status}`}
                item={w}
                busy={busy}
                mayDispatch={can(session, 'admin')}
                onPatch={(body, label) => void patch(body, `${label}: done.`)}
              />
            )}
            <ProblemMessage problem={problem?.at === 'actions' ? problem.problem : null} />
            {done?.at === 'actions' && (
              <p class="ok" role="status">
                {done.message}
              </p>
            )}
            {!deleted && can(session, 'admin') && (
              <div class="row end">
                <button type="button" class="danger subtle" disabled={busy} onClick={() => setConfirmDelete(true)}>
                  Delete…
                </button>
              </div>
            )}
          </section>
          <section aria-labelledby="log-title" class="card">
            <h2 id="log-title">Dispatch log</h2>
            <DispatchTimeline entries={w.dispatch_log} />
          </section>
        </div>
      </div>
      <Modal open={confirmDelete} labelledBy="delete-title" onCancel={() => setConfirmDelete(false)}>
        <div class="stack">
          <h2 id="delete-title">Delete this work item?</h2>
          <p>
            “<span class="clip">{w.description}</span>” and its dispatch log will be gone for good.
          </p>
          <div class="row end">
            <button type="button" autoFocus onClick={() => setConfirmDelete(false)}>
              Keep it
            </button>
            <button type="button" class="danger solid" disabled={busy} onClick={remove}>
              Delete
            </button>
          </div>
        </div>
      </Modal>
    </article>
  );
}

function NotesEditor(props: {
  editable: boolean;
  notes: string | null;
  busy: boolean;
  problem: ApiProblem | null;
  done: string | null;
  onSave: (notes: string) => Promise<boolean>;
}) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(props.notes ?? '');
  useEffect(() => {
    if (!editing) setDraft(props.notes ?? '');
  }, [props.notes, editing]);
  return (
    <section aria-labelledby="notes-title" class="card">
      <div class="row between">
        <h2 id="notes-title">Notes</h2>
        {!editing && props.editable && (
          <button type="button" onClick={() => setEditing(true)}>
            Edit notes
          </button>
        )}
      </div>
      <ProblemMessage problem={props.problem} />
      {props.done && !editing && (
        <p class="ok" role="status">
          {props.done}
        </p>
      )}
      {editing ? (
        <form
          class="stack"
          onSubmit={async (e) => {
            e.preventDefault();
            if (await props.onSave(draft)) setEditing(false);
          }}
        >
          <label>
            Notes
            <textarea name="notes" rows={5} value={draft} autoFocus onInput={(e) => setDraft(e.currentTarget.value)} />
          </label>
          <div class="row">
            <button type="submit" class="primary" disabled={props.busy}>
              Save notes
            </button>
            <button type="button" onClick={() => setEditing(false)}>
              Discard
            </button>
          </div>
        </form>
      ) : props.notes ? (
        <p class="notes">{props.notes}</p>
      ) : (
        <p class="muted">No notes.</p>
      )}
    </section>
  );
}
