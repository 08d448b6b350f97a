import { useState } from 'preact/hooks';
import type { WorkItem } from '../../../../src/work/api-contract.ts';
import type { ChangeResult } from '../../lib/use-item-change.ts';
import { useEditBase } from '../../lib/use-edit-base.ts';
import { ChangeFeedback, type Feedback } from '../../components/change-feedback.tsx';

const notesOf = (w: WorkItem) => w.notes ?? '';

export function NotesEditor(props: {
  item: WorkItem;
  editable: boolean;
  busy: boolean;
  feedback: Feedback | null;
  /** Saves the notes as a change to `basis`, the item they were edited from. */
  onSave: (basis: WorkItem, notes: string) => Promise<ChangeResult>;
}) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState('');
  const [base, setBase] = useEditBase(props.item, editing, notesOf);
  const notes = props.item.notes;
  return (
    <section aria-labelledby="notes-title" class="card">
      <div class="row between">
        <h2 id="notes-title">Notes</h2>
        {!editing && props.editable && (
          <button
            type="button"
            onClick={() => {
              setDraft(notesOf(props.item));
              setEditing(true);
            }}
          >
            Edit notes
          </button>
        )}
      </div>
      {!(editing && props.feedback?.kind === 'done') && <ChangeFeedback feedback={props.feedback} />}
      {editing ? (
        <form
          class="stack"
          onSubmit={async (e) => {
            e.preventDefault();
            const result = await props.onSave(base, draft);
            if (result.ok) setEditing(false);
            // Someone else changed the notes: the draft stays, and the next save is made over theirs.
            else if (result.fresh) setBase(result.fresh);
          }}
        >
          {props.feedback?.kind === 'stale' && notes && <p class="prewrap muted small">Saved now: {notes}</p>}
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
      ) : notes ? (
        <p class="notes">{notes}</p>
      ) : (
        <p class="muted">No notes.</p>
      )}
    </section>
  );
}
