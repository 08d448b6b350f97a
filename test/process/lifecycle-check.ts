// Judges work items seen over HTTP against the lifecycle (docs/work-api.md). The table is written out
// here rather than imported from src/work/items/lifecycle.ts, so the checks do not repeat the code.

export type Status = 'queued' | 'dispatched' | 'in_progress' | 'blocked' | 'completed' | 'failed' | 'cancelled';

export interface DispatchView {
  id: string;
  agent: string;
  dispatched_at: string;
  completed_at: string | null;
  outcome: string | null;
}

export interface ItemView {
  id: string;
  status: Status;
  assigned_agent: string | null;
  outcome: string | null;
  notes: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  dispatch_log: DispatchView[];
}

export const NEXT_STATUSES: Readonly<Record<Status, readonly Status[]>> = {
  queued: ['dispatched', 'cancelled'],
  dispatched: ['dispatched', 'in_progress', 'queued', 'cancelled'],
  in_progress: ['dispatched', 'blocked', 'completed', 'failed'],
  blocked: ['dispatched', 'in_progress', 'failed'],
  completed: [],
  failed: [],
  cancelled: [],
};

const FINAL_OUTCOME: Partial<Record<Status, string>> = {
  completed: 'success',
  failed: 'failed',
  cancelled: 'cancelled',
};
const HELD_BY_AN_AGENT: readonly Status[] = ['dispatched', 'in_progress', 'blocked'];

/**
 * The log in the order things happened. The API sorts by dispatched_at (milliseconds), so two
 * moves within one millisecond tie; an entry closed at that instant came before one opened then.
 */
function chronological(log: DispatchView[]): DispatchView[] {
  const rank = (entry: DispatchView) =>
    [entry.dispatched_at, entry.completed_at ?? '~', entry.outcome === 'cancelled' ? 0 : 1] as const;
  return [...log].sort((a, b) => {
    const [x, y] = [rank(a), rank(b)];
    for (let index = 0; index < x.length; index += 1) {
      if (x[index]! < y[index]!) return -1;
      if (x[index]! > y[index]!) return 1;
    }
    return 0;
  });
}

/** Everything that is wrong with one snapshot of an item; empty when it is consistent. */
export function itemViolations(item: ItemView): string[] {
  const problems: string[] = [];
  const fail = (message: string) => problems.push(`${item.id} (${item.status}): ${message}`);
  const log = chronological(item.dispatch_log);
  const open = log.filter((entry) => entry.completed_at === null);
  const last = log.at(-1);

  if (open.length > 1) fail(`${open.length} open dispatch entries`);
  if (open.length === 1 && open[0] !== last) fail('the open dispatch entry is not the latest');
  if (HELD_BY_AN_AGENT.includes(item.status) !== (open.length === 1)) {
    fail(`status ${item.status} with ${open.length} open dispatch entries`);
  }
  if (open[0] && item.assigned_agent !== open[0].agent) {
    fail(`assigned_agent ${item.assigned_agent} but the open entry is for ${open[0].agent}`);
  }
  if (item.status === 'queued' && item.assigned_agent !== null) fail('queued with an assigned agent');

  log.forEach((entry, index) => {
    if ((entry.completed_at === null) !== (entry.outcome === null)) fail(`entry ${index} half closed`);
    if (entry.completed_at !== null && entry.completed_at < entry.dispatched_at)
      fail(`entry ${index} closed before it opened`);
    const next = log[index + 1];
    if (next && (entry.completed_at === null || entry.completed_at > next.dispatched_at)) {
      fail(`entry ${index} still open when entry ${index + 1} began`);
    }
    if (next && entry.outcome !== 'cancelled') fail(`entry ${index} was superseded but closed as ${entry.outcome}`);
  });

  const finalOutcome = FINAL_OUTCOME[item.status];
  if (finalOutcome === undefined) {
    if (item.outcome !== null || item.completed_at !== null) fail('outcome or completed_at set before the end');
  } else {
    if (item.outcome !== finalOutcome) fail(`outcome ${item.outcome}`);
    if (item.completed_at === null) fail('final without completed_at');
  }
  if (item.status === 'completed' || item.status === 'failed') {
    // Both are reached only from in_progress or blocked, where an entry is always open.
    if (!last || last.outcome !== item.outcome || last.completed_at !== item.completed_at) {
      fail(`the last dispatch entry was not closed with the item (${JSON.stringify(last)})`);
    } else if (last.agent !== item.assigned_agent) {
      fail(`finished by ${last.agent} but assigned to ${item.assigned_agent}`);
    }
  }
  if (item.status === 'cancelled' && log.some((entry) => entry.outcome !== 'cancelled')) {
    fail('cancelled with an entry that did not end cancelled');
  }
  if (item.updated_at < item.created_at) fail('updated before it was created');
  return problems;
}

function stateKey(item: ItemView): string {
  return JSON.stringify([item.status, item.assigned_agent, item.outcome, item.notes, item.dispatch_log.length]);
}

/**
 * Checks the acknowledged answers (201 and 200 bodies) for one item against its final state:
 * each is consistent, every dispatch entry it showed is in the final log as it was shown, the latest write is the
 * final state, and successive writes are moves the lifecycle allows.
 */
export function historyViolations(final: ItemView, acknowledged: ItemView[]): string[] {
  const problems = itemViolations(final);
  const fail = (message: string) => problems.push(`${final.id}: ${message}`);

  for (const answer of acknowledged) {
    problems.push(...itemViolations(answer).map((problem) => `acknowledged ${problem}`));
    for (const entry of answer.dispatch_log) {
      const kept = final.dispatch_log.find((candidate) => candidate.id === entry.id);
      const sameEntry = kept && kept.agent === entry.agent && kept.dispatched_at === entry.dispatched_at;
      const sameClose =
        entry.completed_at === null || (kept?.completed_at === entry.completed_at && kept.outcome === entry.outcome);
      if (!sameEntry || !sameClose)
        fail(`acknowledged dispatch entry ${JSON.stringify(entry)} is not in the final log`);
    }
  }

  const latest = acknowledged.reduce((max, answer) => (answer.updated_at > max ? answer.updated_at : max), '');
  if (latest !== final.updated_at) fail(`final updated_at ${final.updated_at}, latest acknowledged ${latest}`);
  const latestStates = acknowledged.filter((answer) => answer.updated_at === latest).map(stateKey);
  if (!latestStates.includes(stateKey(final))) fail(`the final state ${stateKey(final)} was never acknowledged`);

  // Writes within one millisecond cannot be ordered from outside; check the unambiguous steps.
  const byTime = new Map<string, Map<string, ItemView>>();
  for (const answer of acknowledged) {
    const states = byTime.get(answer.updated_at) ?? new Map<string, ItemView>();
    states.set(stateKey(answer), answer);
    byTime.set(answer.updated_at, states);
  }
  const steps = [...byTime.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, states]) => [...states.values()]);
  for (let index = 1; index < steps.length; index += 1) {
    const [before] = steps[index - 1] ?? [];
    const [after] = steps[index] ?? [];
    if (steps[index - 1]?.length !== 1 || steps[index]?.length !== 1 || !before || !after) continue;
    if (after.dispatch_log.length < before.dispatch_log.length) fail('the dispatch log shrank');
    if (before.status !== after.status && !NEXT_STATUSES[before.status].includes(after.status)) {
      fail(`acknowledged ${before.status} then ${after.status}, which the lifecycle does not allow`);
    }
  }
  return problems;
}
