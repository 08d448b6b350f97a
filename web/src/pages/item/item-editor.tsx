import { useState } from 'preact/hooks';
import type { Project, WorkItem } from '../../../../src/work/api-contract.ts';
import { checkPayload } from '../../lib/payload.ts';
import type { ChangeResult } from '../../lib/use-item-change.ts';
import { useEditBase } from '../../lib/use-edit-base.ts';
import { relationsOf } from '../../lib/relations.ts';
import { ChangeFeedback, type Feedback } from '../../components/change-feedback.tsx';
import { PeopleField } from '../../components/people-field.tsx';
import { RelationFields } from '../../components/relation-fields.tsx';
import { parseNames } from '../../lib/people.ts';
import { PriorityOptions, TYPE_HINT, TYPE_PATTERN } from '../../components/work-fields.tsx';
import { visibleBidi } from '../../components/user-text.tsx';
import { type ReviewChoice, ReviewField, reviewChoice, reviewValue } from '../../components/review-field.tsx';

interface Draft {
  priority: string;
  type: string;
  description: string;
  project_id: string;
  payload: string;
  review_required: ReviewChoice;
  parent_id: string;
  /** Ids, comma-joined, in the order chosen (compared as a set). */
  depends_on: string;
  /** Names as typed ("ada, bob"); compared as the list they parse to. */
  watchers: string;
}
type Key = keyof Draft;
const KEYS: readonly Key[] = [
  'priority',
  'type',
  'description',
  'project_id',
  'payload',
  'review_required',
  'parent_id',
  'depends_on',
  'watchers',
];
const idsOf = (joined: string) => (joined === '' ? [] : joined.split(','));
const sameSet = (a: string, b: string) => [...idsOf(a)].sort().join(',') === [...idsOf(b)].sort().join(',');

function draftOf(w: WorkItem): Draft {
  return {
    priority: String(w.priority),
    type: w.type,
    description: w.description,
    project_id: w.project_id ?? '',
    payload: w.payload === null ? '' : JSON.stringify(w.payload, null, 2),
    review_required: reviewChoice(w.review_required),
    parent_id: relationsOf(w).parent_id ?? '',
    depends_on: relationsOf(w).depends_on.join(','),
    watchers: w.watchers.join(', '),
  };
}
const fieldsOf = (w: WorkItem) => JSON.stringify(draftOf(w));

/** Edits the fields an open item can still change; sends only those the user changed. */
export function ItemEditor(props: {
  item: WorkItem;
  projects: Project[] | null;
  busy: boolean;
  feedback: Feedback | null;
  onSave: (basis: WorkItem, body: Record<string, unknown>) => Promise<ChangeResult>;
  onClose: () => void;
}) {
  const [base, setBase] = useEditBase(props.item, true, fieldsOf);
  const [draft, setDraft] = useState(() => draftOf(props.item));
  const [payloadError, setPayloadError] = useState<string | null>(null);
  const set = (key: Key) => (e: { currentTarget: { value: string } }) => {
    const value = e.currentTarget.value;
    setDraft((d) => ({ ...d, [key]: value }));
  };

  const save = async (e: Event) => {
    e.preventDefault();
    const checked = checkPayload(draft.payload);
    if (!checked.ok) {
      setPayloadError(checked.message);
      return;
    }
    setPayloadError(null);
    const was = draftOf(base);
    const body: Record<string, unknown> = {};
    if (draft.priority !== was.priority) body.priority = Number(draft.priority);
    if (draft.type.trim() !== was.type) body.type = draft.type.trim();
    if (draft.description !== was.description) body.description = draft.description;
    if (draft.project_id !== was.project_id) body.project_id = draft.project_id || null;
    if (draft.payload !== was.payload) body.payload = checked.value;
    if (draft.review_required !== was.review_required) body.review_required = reviewValue(draft.review_required);
    if (draft.parent_id !== was.parent_id) body.parent_id = draft.parent_id || null;
    // PATCH replaces depends_on as a whole.
    if (!sameSet(draft.depends_on, was.depends_on)) body.depends_on = idsOf(draft.depends_on);
    // PATCH replaces watchers as a whole, too.
    const watchers = parseNames(draft.watchers);
    if (watchers.join(',') !== parseNames(was.watchers).join(',')) body.watchers = watchers;
    if (Object.keys(body).length === 0) return props.onClose();
    const result = await props.onSave(base, body);
    if (result.ok) return props.onClose();
    if (!result.fresh) return;
    // Someone else changed the item: fields the user left alone take the new values, the
    // user's own changes stay, and the next save is made over the fresh version.
    const now = draftOf(result.fresh);
    setDraft((d) => Object.fromEntries(KEYS.map((k) => [k, d[k] === was[k] ? now[k] : d[k]])) as unknown as Draft);
    setBase(result.fresh);
  };

  return (
    <form class="stack edit-item" aria-label="Edit item" onSubmit={save}>
      <div class="row wrap">
        <div class="field">
          <label for="edit-priority">Priority</label>
          <select id="edit-priority" name="priority" value={draft.priority} onChange={set('priority')}>
            <PriorityOptions />
          </select>
        </div>
        <label class="grow">
          Type
          <input
            name="type"
            required
            pattern={TYPE_PATTERN}
            maxLength={64}
            title={TYPE_HINT}
            value={draft.type}
            autoComplete="off"
            onInput={set('type')}
          />
        </label>
        <div class="field">
          <label for="edit-project">Project</label>
          <select id="edit-project" name="project_id" value={draft.project_id} onChange={set('project_id')}>
            <option value="">none</option>
            {props.projects?.map((p) => (
              <option key={p.id} value={p.id}>
                {visibleBidi(p.name)}
              </option>
            ))}
          </select>
        </div>
        <ReviewField
          id="edit-review"
          value={draft.review_required}
          onChange={(v) => setDraft((d) => ({ ...d, review_required: v }))}
        />
      </div>
      <label>
        Description
        <textarea
          name="description"
          required
          rows={3}
          maxLength={10000}
          value={draft.description}
          onInput={set('description')}
        />
      </label>
      <label>
        Payload (JSON object)
        <textarea
          name="payload"
          rows={5}
          class="mono"
          spellcheck={false}
          value={draft.payload}
          onInput={(e) => {
            set('payload')(e);
            if (payloadError) setPayloadError(null);
          }}
          aria-invalid={payloadError ? true : undefined}
          aria-describedby="edit-payload-error"
        />
        <span id="edit-payload-error" class="field-error">
          {payloadError ?? ''}
        </span>
      </label>
      <RelationFields
        idPrefix="edit"
        self={props.item.id}
        parentId={draft.parent_id}
        dependsOn={idsOf(draft.depends_on)}
        onParent={(id) => setDraft((d) => ({ ...d, parent_id: id }))}
        onDependsOn={(ids) => setDraft((d) => ({ ...d, depends_on: ids.join(',') }))}
      />
      <div class="row wrap">
        <PeopleField
          id="edit-watchers"
          label="Watchers"
          hint="Told of this item's questions and reviews, beside the project's watchers"
          value={draft.watchers}
          onChange={(v) => setDraft((d) => ({ ...d, watchers: v }))}
        />
      </div>
      <ChangeFeedback feedback={props.feedback?.kind === 'done' ? null : props.feedback} />
      <div class="row">
        <button type="submit" class="primary" disabled={props.busy}>
          Save changes
        </button>
        <button type="button" onClick={props.onClose}>
          Discard
        </button>
      </div>
    </form>
  );
}
