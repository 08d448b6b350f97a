import { useState } from 'preact/hooks';
import { ACTIONS, type ActionName, allowedActions, patchFor, type PatchBody } from '../lib/lifecycle.ts';
import { USER_PATTERN } from '../lib/user.ts';
import type { WorkItemSummary } from '../../../src/work/schemas.ts';

const AGENT_HINT = 'Letters, digits and _ . @ -, up to 64 characters';

/** The lifecycle moves the item's current state allows, and only those. */
export function ItemActions(props: {
  item: WorkItemSummary;
  busy: boolean;
  onPatch: (body: PatchBody, label: string) => void;
}) {
  const { item, busy } = props;
  const actions = allowedActions(item.status);
  const [agent, setAgent] = useState('');
  const [failing, setFailing] = useState(false);
  const [failNotes, setFailNotes] = useState(item.notes ?? '');
  const run = (a: ActionName, input = '') => props.onPatch(patchFor(a, input), ACTIONS[a].label);

  if (actions.length === 0) return <p class="muted">This item is {item.status}; only its notes can change.</p>;

  const agentAction = actions.find((a) => a === 'dispatch' || a === 'reassign');
  const simple = actions.filter((a) => ACTIONS[a].needs === null);

  return (
    <div class="actions stack">
      {agentAction && (
        <form
          class="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            if (agent.trim() !== '') run(agentAction, agent.trim());
          }}
        >
          <label>
            {agentAction === 'dispatch' ? 'Dispatch to agent' : 'Reassign to agent'}
            <input
              name="agent"
              value={agent}
              required
              pattern={USER_PATTERN}
              title={AGENT_HINT}
              maxLength={64}
              autoComplete="off"
              onInput={(e) => setAgent(e.currentTarget.value)}
            />
          </label>
          <button type="submit" class="primary" disabled={busy}>
            {ACTIONS[agentAction].label}
          </button>
        </form>
      )}
      {simple.length > 0 && (
        <div class="row wrap">
          {simple.map((a) => (
            <button
              key={a}
              type="button"
              class={a === 'cancel' ? 'danger' : a === 'complete' || a === 'pick_up' ? 'primary' : undefined}
              disabled={busy}
              onClick={() => run(a)}
            >
              {a === 'cancel' ? 'Cancel item' : ACTIONS[a].label}
            </button>
          ))}
          {actions.includes('fail') && !failing && (
            <button type="button" class="danger" disabled={busy} onClick={() => setFailing(true)}>
              Fail…
            </button>
          )}
        </div>
      )}
      {actions.includes('fail') && failing && (
        <form
          class="stack fail-form"
          onSubmit={(e) => {
            e.preventDefault();
            run('fail', failNotes);
          }}
        >
          <label>
            Why did it fail? (saved as the item's notes)
            <textarea name="fail-notes" rows={3} value={failNotes} onInput={(e) => setFailNotes(e.currentTarget.value)} />
          </label>
          <div class="row">
            <button type="submit" class="danger" disabled={busy}>
              Mark failed
            </button>
            <button type="button" onClick={() => setFailing(false)}>
              Back
            </button>
          </div>
        </form>
      )}
    </div>
  );
}
