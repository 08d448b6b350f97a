import { useState } from 'preact/hooks';
import type { WorkItemSummary } from '../../../../src/work/api-contract.ts';
import { MOVES } from '../../../../src/work/items/lifecycle.ts';
import {
  ACTION_LABELS,
  type Action,
  allowedActions,
  needsAgent,
  patchFor,
  type PatchBody,
} from '../../lib/lifecycle.ts';
import { USER_PATTERN } from '../../lib/user.ts';

const AGENT_HINT = 'Letters, digits and _ . @ -, up to 64 characters';

const PRIMARY = new Set<string>([MOVES.pick_up, MOVES.complete, MOVES.unblock]);
const DANGER = new Set<string>([MOVES.cancel]);

/** The lifecycle moves the item's current state allows, and only those. */
export function ItemActions(props: {
  item: WorkItemSummary;
  busy: boolean;
  /** False for an agent's sign-in: it cannot hand work to another agent, so Dispatch and Reassign are not offered. */
  mayDispatch: boolean;
  /** Sends the move; true when it was made. */
  onPatch: (body: PatchBody, label: string) => Promise<boolean>;
}) {
  const { item, busy } = props;
  const actions = allowedActions(item.status).filter((a) => props.mayDispatch || !needsAgent(a.move));
  const [agent, setAgent] = useState('');
  const [failing, setFailing] = useState(false);
  const [failNotes, setFailNotes] = useState('');
  // What the user typed stays until the move is made: a refused one (the item changed) is retried.
  const run = async (a: Action, input = '') => {
    if (await props.onPatch(patchFor(a, input), ACTION_LABELS[a.move])) {
      setAgent('');
      setFailing(false);
    }
  };

  if (actions.length === 0)
    return <p class="muted">This item is {item.status.replace('_', ' ')}; only its notes can change.</p>;

  const agentAction = actions.find((a) => needsAgent(a.move));
  const failAction = actions.find((a) => a.move === MOVES.fail);
  const simple = actions.filter((a) => !needsAgent(a.move) && a.move !== MOVES.fail);

  return (
    <div class="actions stack">
      {agentAction && (
        <form
          class="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            if (agent.trim() !== '') void run(agentAction, agent.trim());
          }}
        >
          <label class="grow">
            {agentAction.move === MOVES.dispatch ? 'Dispatch to agent' : 'Reassign to agent'}
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
          <button type="submit" class={agentAction.move === MOVES.dispatch ? 'primary' : undefined} disabled={busy}>
            {ACTION_LABELS[agentAction.move]}
          </button>
        </form>
      )}
      {(simple.length > 0 || failAction) && (
        <div class="row wrap">
          {simple.map((a) => (
            <button
              key={a.move}
              type="button"
              class={PRIMARY.has(a.move) ? 'primary' : DANGER.has(a.move) ? 'danger' : undefined}
              disabled={busy}
              onClick={() => void run(a)}
            >
              {ACTION_LABELS[a.move]}
            </button>
          ))}
          {failAction && !failing && (
            <button
              type="button"
              class="danger"
              disabled={busy}
              onClick={() => {
                setFailNotes(item.notes ?? '');
                setFailing(true);
              }}
            >
              Fail…
            </button>
          )}
        </div>
      )}
      {failAction && failing && (
        <form
          class="stack fail-form"
          onSubmit={(e) => {
            e.preventDefault();
            void run(failAction, failNotes);
          }}
        >
          <label>
            Why did it fail? (saved as the item's notes)
            <textarea
              name="fail-notes"
              rows={3}
              value={failNotes}
              autoFocus
              onInput={(e) => setFailNotes(e.currentTarget.value)}
            />
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
