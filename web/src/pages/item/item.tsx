import { useRef, useState } from 'preact/hooks';
import { ChangeFeedback } from '../../components/change-feedback.tsx';
import { DispatchTimeline } from './dispatch-timeline.tsx';
import { ItemActions } from './item-actions.tsx';
import { ItemFields } from './item-fields.tsx';
import { ItemQuestion, openQuestionOf } from './item-question.tsx';
import { ItemNotifications } from './item-notifications.tsx';
import { ItemTimeline } from './item-timeline.tsx';
import { ItemRelations } from '../../components/item-relations.tsx';
import { Modal } from '../../components/modal.tsx';
import { NotesEditor } from './notes-editor.tsx';
import { ProblemMessage } from '../../components/problem-message.tsx';
import { StatusBadge } from '../../components/status-badge.tsx';
import { UserText, visibleBidi } from '../../components/user-text.tsx';
import { api } from '../../lib/api.ts';
import { useItemQuestions } from '../../lib/item-questions.ts';
import { useLive } from '../../lib/live.ts';
import { projectName, useProjects } from '../../lib/projects.ts';
import { href, navigate } from '../../lib/router.ts';
import { can, mayChangeItem, useSession } from '../../lib/session.ts';
import { useItemChange } from '../../lib/use-item-change.ts';
import { useLoad } from '../../lib/use-load.ts';
import { useTitle } from '../../lib/title.ts';
import { isFinal } from '../../../../src/work/items/lifecycle.ts';
import type { WorkItem } from '../../../../src/work/api-contract.ts';
import { WORK_EVENTS } from '../../lib/event-names.ts';

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
  // Read beside the item, not after it: the open question's card is in the page's first paint.
  const questions = useItemQuestions(id, item.data?.version);
  const projects = useProjects();
  const [deleted, setDeleted] = useState(false);
  // The item the confirmation was opened for: it can only ever delete that one.
  const [confirmDelete, setConfirmDelete] = useState<string | null>(null);
  const change = useItemChange({
    path,
    item,
    projectLabel: (projectId) => (projectId === null ? '—' : (projectName(projects, projectId) ?? projectId)),
    onGone: () => setDeleted(true),
  });
  const { busy } = change;

  useLive((e) => {
    if ((e.type === WORK_EVENTS.updated && e.data.id === id) || e.type === 'resync') {
      // the event carries no dispatch log, so read the item again
      item.reload();
    } else if (e.type === WORK_EVENTS.deleted && e.data.id === id) {
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
  // The page waits for both reads (a failed read of the questions shows the item without them).
  const questionsRead = questions.data !== null || questions.error !== null;
  if (!w || !questionsRead) {
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
  const itemQuestions = questions.data ?? [];
  // The open question or review, if any: Unblock would resume the work and leave it unanswered.
  const waitingOn = openQuestionOf(itemQuestions)?.kind ?? null;
  const answered = () => {
    questions.reload();
    item.reload();
  };

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
      {!deleted && <ItemQuestion item={w} questions={itemQuestions} onAnswered={answered} />}
      <div class="item-grid">
        <div class="stack">
          <ItemRelations item={w} mayAdd={can(session, 'submit')} />
          <ItemFields
            item={w}
            projects={projects}
            mayEdit={mayEdit}
            busy={busy}
            feedback={change.feedbackAt('edit')}
            onSave={(basis, body) => change.patch(basis, body, 'Changes saved.', 'edit')}
          />
          <ItemTimeline item={w} questions={itemQuestions} deleted={deleted} />
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
            {w.payload === null ? (
              <p class="muted">No payload.</p>
            ) : (
              <pre class="payload">{visibleBidi(JSON.stringify(w.payload, null, 2))}</pre>
            )}
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
            {!deleted && mayChange && waitingOn !== null && w.status === 'blocked' && (
              <p class="muted small" data-testid="waiting-hint">
                {waitingOn === 'review'
                  ? 'The work waits for the review above: Approve or Return moves it on; Unblock would resume the work with the review still open.'
                  : 'The agent waits for the answer above, which moves the item on; Unblock would resume it with the question unanswered.'}
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
          {/* Last: it appears once a question is asked, so nothing below it moves. */}
          <ItemNotifications itemId={w.id} version={w.version} questions={itemQuestions} />
        </div>
      </div>
      <Modal
        open={confirmDelete !== null && confirmDelete === w.id && w.id === id}
        labelledBy="delete-title"
        onCancel={() => setConfirmDelete(null)}
      >
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
