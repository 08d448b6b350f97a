import { useEffect, useState } from 'preact/hooks';
import { useProjects } from '../../lib/projects.ts';
import { CATEGORIES } from '../../../../src/classify/categories.ts';
import type { RoutingRule } from '../../../../src/intake/schemas.ts';

// A mailbox's routing rules as a list of editable rows, saved together: the first rule that
// matches a message decides, so the order is part of what is edited.

interface Draft {
  categories: string[];
  senders: string;
  subject: string;
  needsAction: '' | 'yes' | 'no';
  action: RoutingRule['action'];
  type: string;
  priority: string;
  agent: string;
  project: string;
}

function toDraft(rule: RoutingRule): Draft {
  return {
    categories: rule.match.category ?? [],
    senders: (rule.match.sender ?? []).join(', '),
    subject: rule.match.subject_contains ?? '',
    needsAction: rule.match.needs_action === undefined ? '' : rule.match.needs_action ? 'yes' : 'no',
    action: rule.action,
    type: rule.item?.type ?? '',
    priority: rule.item?.priority === undefined ? '' : String(rule.item.priority),
    agent: rule.item?.agent ?? '',
    project: rule.item?.project_id === undefined ? '' : (rule.item.project_id ?? 'none'),
  };
}

function toRule(draft: Draft): RoutingRule {
  const match: RoutingRule['match'] = {};
  if (draft.categories.length > 0) match.category = draft.categories as NonNullable<RoutingRule['match']['category']>;
  const senders = draft.senders.split(/[,\s]+/).filter(Boolean);
  if (senders.length > 0) match.sender = senders;
  if (draft.subject.trim() !== '') match.subject_contains = draft.subject.trim();
  if (draft.needsAction !== '') match.needs_action = draft.needsAction === 'yes';
  if (draft.action === 'record') return { match, action: 'record' };
  const item: NonNullable<RoutingRule['item']> = {};
  if (draft.type.trim() !== '') item.type = draft.type.trim();
  if (draft.priority !== '') item.priority = Number(draft.priority);
  if (draft.agent.trim() !== '') item.agent = draft.agent.trim();
  if (draft.project !== '') item.project_id = draft.project === 'none' ? null : draft.project;
  return { match, action: 'create_item', ...(Object.keys(item).length > 0 && { item }) };
}

const EMPTY: Draft = {
  categories: [],
  senders: '',
  subject: '',
  needsAction: '',
  action: 'create_item',
  type: '',
  priority: '',
  agent: '',
  project: '',
};

export function RulesEditor(props: {
  rules: RoutingRule[];
  readOnly: boolean;
  onSave: (rules: RoutingRule[]) => Promise<boolean>;
}) {
  const projects = useProjects();
  const [drafts, setDrafts] = useState<Draft[]>(() => props.rules.map(toDraft));
  const [dirty, setDirty] = useState(false);
  const [saved, setSaved] = useState(false);
  const stored = JSON.stringify(props.rules);
  // The page refreshes the mailbox every few seconds: only an untouched editor follows it.
  useEffect(() => {
    if (!dirty) setDrafts(props.rules.map(toDraft));
  }, [stored]);

  const change = (index: number, update: Partial<Draft>) => {
    setDirty(true);
    setSaved(false);
    setDrafts(drafts.map((draft, at) => (at === index ? { ...draft, ...update } : draft)));
  };
  const move = (index: number, by: number) => {
    const next = [...drafts];
    const [rule] = next.splice(index, 1);
    next.splice(index + by, 0, rule!);
    setDirty(true);
    setDrafts(next);
  };

  return (
    <form
      class="card stack"
      aria-label="Routing rules"
      onSubmit={async (e) => {
        e.preventDefault();
        if (!(await props.onSave(drafts.map(toRule)))) return;
        setDirty(false);
        setSaved(true);
      }}
    >
      <h2>Routing rules</h2>
      <p class="muted small">
        Tried in order; the first that matches decides. When none matches, a message that needs action becomes an{' '}
        <code>email_task</code> work item and any other is only recorded. A later message of a thread with a work item
        always becomes a note on it.
      </p>
      {drafts.length === 0 && <p class="muted">No rules: the defaults apply.</p>}
      <ol class="rules">
        {drafts.map((draft, index) => (
          <li key={index} class="rule stack" aria-label={`Rule ${index + 1}`}>
            <fieldset disabled={props.readOnly} class="row wrap">
              <legend>Rule {index + 1}: when</legend>
              <label>
                Category
                <select
                  multiple
                  size={3}
                  onChange={(e) =>
                    change(index, { categories: [...e.currentTarget.selectedOptions].map((o) => o.value) })
                  }
                >
                  {[...CATEGORIES, 'uncategorized'].map((category) => (
                    <option key={category} value={category} selected={draft.categories.includes(category)}>
                      {category}
                    </option>
                  ))}
                </select>
              </label>
              <label class="grow">
                Sender (addresses or domains)
                <input
                  value={draft.senders}
                  placeholder="boss@example.com, vendor.io"
                  onInput={(e) => change(index, { senders: e.currentTarget.value })}
                />
              </label>
              <label class="grow">
                Subject contains
                <input value={draft.subject} onInput={(e) => change(index, { subject: e.currentTarget.value })} />
              </label>
              <label>
                Needs action
                <select
                  value={draft.needsAction}
                  onChange={(e) => change(index, { needsAction: e.currentTarget.value as Draft['needsAction'] })}
                >
                  <option value="">either</option>
                  <option value="yes">yes</option>
                  <option value="no">no</option>
                </select>
              </label>
            </fieldset>
            <fieldset disabled={props.readOnly} class="row wrap">
              <legend>then</legend>
              <label>
                Action
                <select
                  value={draft.action}
                  onChange={(e) => change(index, { action: e.currentTarget.value as Draft['action'] })}
                >
                  <option value="create_item">create a work item</option>
                  <option value="record">only record</option>
                </select>
              </label>
              {draft.action === 'create_item' && (
                <>
                  <label>
                    Type
                    <input
                      value={draft.type}
                      placeholder="email_task"
                      onInput={(e) => change(index, { type: e.currentTarget.value })}
                    />
                  </label>
                  <label>
                    Priority
                    <select value={draft.priority} onChange={(e) => change(index, { priority: e.currentTarget.value })}>
                      <option value="">from the classification</option>
                      {[1, 2, 3, 4, 5].map((p) => (
                        <option key={p} value={String(p)}>
                          {p}
                        </option>
                      ))}
                    </select>
                  </label>
                  <label>
                    Dispatch to agent
                    <input value={draft.agent} onInput={(e) => change(index, { agent: e.currentTarget.value })} />
                  </label>
                  <label>
                    Project
                    <select value={draft.project} onChange={(e) => change(index, { project: e.currentTarget.value })}>
                      <option value="">the mailbox's</option>
                      <option value="none">none</option>
                      {(projects ?? []).map((p) => (
                        <option key={p.id} value={p.id}>
                          {p.name}
                        </option>
                      ))}
                    </select>
                  </label>
                </>
              )}
            </fieldset>
            {!props.readOnly && (
              <div class="row">
                <button
                  type="button"
                  disabled={index === 0}
                  onClick={() => move(index, -1)}
                  aria-label={`Move rule ${index + 1} up`}
                >
                  ↑
                </button>
                <button
                  type="button"
                  disabled={index === drafts.length - 1}
                  onClick={() => move(index, 1)}
                  aria-label={`Move rule ${index + 1} down`}
                >
                  ↓
                </button>
                <button
                  type="button"
                  class="danger subtle"
                  onClick={() => (setDirty(true), setDrafts(drafts.filter((_, at) => at !== index)))}
                >
                  Remove rule {index + 1}
                </button>
              </div>
            )}
          </li>
        ))}
      </ol>
      {!props.readOnly && (
        <div class="row end">
          {saved && !dirty && <span class="ok">Saved.</span>}
          <button type="button" onClick={() => (setDirty(true), setDrafts([...drafts, { ...EMPTY }]))}>
            Add rule
          </button>
          <button type="submit" class="primary" disabled={!dirty}>
            Save rules
          </button>
        </div>
      )}
    </form>
  );
}
