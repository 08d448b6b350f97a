import { useState } from 'preact/hooks';
import type { WorkItem } from '../../../src/work/api-contract.ts';
import type { Feedback } from '../components/change-feedback.tsx';
import { api, ApiProblem, ifMatch, isStale, toProblem } from './api.ts';
import { describeChanges } from './changes.ts';
import type { Loaded } from './use-load.ts';

/** The parts of the item page that send changes; each shows its own feedback. */
export type Place = 'actions' | 'notes' | 'edit';

export type ChangeResult = { ok: true } | { ok: false; fresh: WorkItem | null };

/**
 * Sends changes to one item, each guarded by the version it was based on (If-Match). A 412
 * means someone else changed the item first: the page reads it again, shows it, and lists what
 * moved, while the part that sent the change keeps what the user typed.
 */
export function useItemChange(options: {
  path: string;
  item: Loaded<WorkItem>;
  projectLabel: (id: string | null) => string;
  onGone: () => void;
}) {
  const { path, item } = options;
  const [busy, setBusy] = useState(false);
  const [feedback, setFeedback] = useState<{ at: Place; feedback: Feedback } | null>(null);

  async function refused(err: unknown, at: Place, basis: WorkItem): Promise<ChangeResult> {
    if (!isStale(err)) {
      setFeedback({ at, feedback: { kind: 'problem', problem: toProblem(err) } });
      // a refusal usually means the item moved on; show where it is now
      if (err instanceof ApiProblem && err.status === 409) item.reload();
      return { ok: false, fresh: null };
    }
    try {
      const fresh = (await api<WorkItem>('GET', path)).data;
      item.setData(() => fresh);
      const changes = describeChanges(basis, fresh, options.projectLabel);
      setFeedback({ at, feedback: { kind: 'stale', changes, version: fresh.version } });
      return { ok: false, fresh };
    } catch (readErr) {
      if (readErr instanceof ApiProblem && readErr.status === 404) options.onGone();
      setFeedback({ at, feedback: { kind: 'problem', problem: toProblem(readErr) } });
      return { ok: false, fresh: null };
    }
  }

  /** PATCH the item as of `basis`, the item the user was looking at (or editing from). */
  async function patch(basis: WorkItem, body: Record<string, unknown>, done: string, at: Place): Promise<ChangeResult> {
    setBusy(true);
    setFeedback(null);
    try {
      const r = await api<WorkItem>('PATCH', path, body, undefined, ifMatch(basis.version));
      item.setData(() => r.data);
      setFeedback({ at, feedback: { kind: 'done', message: done } });
      return { ok: true };
    } catch (err) {
      return await refused(err, at, basis);
    } finally {
      setBusy(false);
    }
  }

  async function remove(basis: WorkItem): Promise<ChangeResult> {
    setBusy(true);
    setFeedback(null);
    try {
      await api('DELETE', path, undefined, undefined, ifMatch(basis.version));
      return { ok: true };
    } catch (err) {
      return await refused(err, 'actions', basis);
    } finally {
      setBusy(false);
    }
  }

  const feedbackAt = (at: Place) => (feedback?.at === at ? feedback.feedback : null);
  return { busy, patch, remove, feedbackAt, clear: () => setFeedback(null) };
}
