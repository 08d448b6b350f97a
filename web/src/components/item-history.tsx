import type { HistoryEntry } from '../../../src/work/schemas.ts';
import { formatDateTime, formatSeconds, statusLabel } from '../lib/format.ts';
import { projectName } from '../lib/projects.ts';
import type { Project } from '../../../src/work/schemas.ts';
import { UserText } from './user-text.tsx';

// The audit trail in the words and local times the rest of the item page uses: "Picked up by
// codex-1 (agent): Status: dispatched → in progress; Lease: until 26 Nov 2026, 03:24:57", not
// the stored column names and ISO instants. The item's timeline (item-timeline.tsx) shows these
// lines between the comments.

/** What happened, by the action the service recorded; an action this UI does not know shows as written. */
const ACTIONS: Record<string, string> = {
  created: 'Created',
  claimed: 'Claimed',
  heartbeat: 'Lease renewed',
  lease_expired: 'Lease ran out',
  edited: 'Edited',
  dispatch: 'Dispatched',
  reassign: 'Reassigned',
  release: 'Released',
  pick_up: 'Picked up',
  block: 'Blocked',
  unblock: 'Unblocked',
  complete: 'Completed',
  fail: 'Failed',
  cancel: 'Cancelled',
  ask: 'Asked a person',
  answer: 'Answered',
  send_for_review: 'Sent for review',
  approve: 'Approved',
  return: 'Returned for more work',
  comment_deleted: 'Comment deleted',
};

type Value = unknown;
const CLIP = 80;
const dash = '—';
const clip = (text: string) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > CLIP ? `${flat.slice(0, CLIP - 1)}…` : flat;
};
const plain = (v: Value) => (v === null || v === undefined || v === '' ? dash : typeof v === 'string' ? v : JSON.stringify(v));
const when = (v: Value) => (typeof v === 'string' ? formatDateTime(v) : plain(v));

/** Per field: its label and how one of its values reads. */
function fields(projects: Project[] | null): Record<string, { label: string; value: (v: Value) => string; text?: boolean }> {
  return {
    status: { label: 'Status', value: (v) => (typeof v === 'string' ? statusLabel(v) : plain(v)) },
    assigned_agent: { label: 'Assigned agent', value: plain },
    outcome: { label: 'Outcome', value: plain },
    priority: { label: 'Priority', value: plain },
    type: { label: 'Type', value: plain },
    project_id: { label: 'Project', value: (v) => (typeof v === 'string' ? (projectName(projects, v) ?? v) : plain(v)) },
    description: { label: 'Description', value: plain, text: true },
    notes: { label: 'Notes', value: plain, text: true },
    attempts: { label: 'Attempts', value: plain },
    max_attempts: { label: 'Attempts allowed', value: plain },
    retry_delay_s: { label: 'Retry delay', value: (v) => (typeof v === 'number' ? formatSeconds(v) : plain(v)) },
    lease_expires_at: { label: 'Lease until', value: when },
    run_after: { label: 'Run after', value: when },
    completed_at: { label: 'Completed', value: when },
  };
}

const humanize = (field: string) => {
  const words = field.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** One change's fields as "Label: from → to", text fields as "Notes: now “…”", payload edits as "Payload edited". */
function describeEntry(changes: HistoryEntry['changes'], projects: Project[] | null): string {
  const known = fields(projects);
  const parts = Object.entries(changes).flatMap(([field, change]) => {
    const { from, to, edited, option } = (change ?? {}) as { from?: Value; to?: Value; edited?: boolean; option?: Value };
    // Not a field but what the change was about (the question answered, the comment deleted):
    // the timeline shows the question and the comment themselves; only a chosen option is news.
    if (typeof change === 'object' && change !== null && !('from' in change) && !('to' in change) && !edited) {
      return typeof option === 'string' ? [`Option: ${option}`] : [];
    }
    const f = known[field];
    const label = f?.label ?? humanize(field);
    if (edited) return `${label} edited`;
    if (f?.text) return to === null || to === undefined || to === '' ? `${label} cleared` : `${label}: now “${clip(String(to))}”`;
    const value = f?.value ?? plain;
    return `${label}: ${value(from)} → ${value(to)}`;
  });
  return parts.length > 0 ? parts.join('; ') : 'no field changed';
}

/** One change of the audit trail: "03:24:57 Claimed by bot-1 (agent): Status: queued → in progress". */
export function HistoryLine({ entry, projects }: { entry: HistoryEntry; projects: Project[] | null }) {
  return (
    <>
      <time dateTime={entry.at}>{formatDateTime(entry.at)}</time>{' '}
      <strong>{ACTIONS[entry.action] ?? humanize(entry.action)}</strong> by <UserText text={entry.actor} /> ({entry.role}):{' '}
      <UserText text={describeEntry(entry.changes, projects)} />
    </>
  );
}
