import type { ComponentChildren } from 'preact';
import type { HistoryEntry } from '../../../../src/work/api-contract.ts';
import { formatDateTime, formatSeconds, statusLabel } from '../../lib/format.ts';
import { projectName } from '../../lib/projects.ts';
import { href } from '../../lib/router.ts';
import type { Project } from '../../../../src/work/api-contract.ts';
import { UserText } from '../../components/user-text.tsx';

// The audit trail in the words and local times the rest of the item page uses ("Picked up by
// codex-1 (agent): Status: dispatched → in progress"), not the stored column names and ISO instants.

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
const plain = (v: Value) =>
  v === null || v === undefined || v === '' ? dash : typeof v === 'string' ? v : JSON.stringify(v);
const when = (v: Value) => (typeof v === 'string' ? formatDateTime(v) : plain(v));

/** Per field: its label and how one of its values reads. */
function fields(
  projects: Project[] | null,
): Record<string, { label: string; value: (v: Value) => string; text?: boolean }> {
  return {
    status: { label: 'Status', value: (v) => (typeof v === 'string' ? statusLabel(v) : plain(v)) },
    assigned_agent: { label: 'Assigned agent', value: plain },
    outcome: { label: 'Outcome', value: plain },
    priority: { label: 'Priority', value: plain },
    type: { label: 'Type', value: plain },
    project_id: {
      label: 'Project',
      value: (v) => (typeof v === 'string' ? (projectName(projects, v) ?? v) : plain(v)),
    },
    description: { label: 'Description', value: plain, text: true },
    notes: { label: 'Notes', value: plain, text: true },
    attempts: { label: 'Attempts', value: plain },
    max_attempts: { label: 'Attempts allowed', value: plain },
    retry_delay_s: { label: 'Retry delay', value: (v) => (typeof v === 'number' ? formatSeconds(v) : plain(v)) },
    lease_expires_at: { label: 'Lease until', value: when },
    run_after: { label: 'Run after', value: when },
    completed_at: { label: 'Completed', value: when },
    waiting_on: { label: 'Unfinished dependencies', value: plain },
  };
}

/** Another item, named as the board's parent filter names it: its id's first 8 characters, linked. */
function ItemLink({ id }: { id: string }) {
  return (
    <a href={href(`/items/${id}`)} title={id}>
      <code>{id.slice(0, 8)}</code>
    </a>
  );
}

const ids = (v: Value): string[] => (Array.isArray(v) ? v.filter((id): id is string => typeof id === 'string') : []);

function joined(parts: ComponentChildren[], separator: string): ComponentChildren[] {
  return parts.flatMap((part, i) => (i === 0 ? [part] : [separator, part]));
}

/**
 * The links of a plan, which name other items: the parent as "Part of: — → 1a2b3c4d",
 * a new list of dependencies as what it added and removed (a PATCH replaces the whole list, so
 * the difference is the news).
 */
function describeLink(field: string, from: Value, to: Value): ComponentChildren | null {
  if (field === 'parent_id') {
    const end = (v: Value) => (typeof v === 'string' ? <ItemLink id={v} /> : dash);
    return (
      <>
        Part of: {end(from)} → {end(to)}
      </>
    );
  }
  if (field !== 'depends_on') return null;
  const before = ids(from);
  const after = ids(to);
  const added = after.filter((id) => !before.includes(id));
  const removed = before.filter((id) => !after.includes(id));
  const list = (some: string[]) =>
    joined(
      some.map((id) => <ItemLink key={id} id={id} />),
      ', ',
    );
  const parts = [
    ...(added.length > 0 ? [<>added {list(added)}</>] : []),
    ...(removed.length > 0 ? [<>removed {list(removed)}</>] : []),
  ];
  return <>Waits on: {parts.length > 0 ? joined(parts, ', ') : 'unchanged'}</>;
}

/** A list of names (stored as a JSON list, or already parsed): what a change added and removed. */
const names = (v: Value): string[] => {
  if (typeof v === 'string' && v.startsWith('[')) {
    try {
      return ids(JSON.parse(v));
    } catch {
      return [v];
    }
  }
  return ids(v);
};

/** The people told of an item, as what the change added and removed ("Watchers: added mia; removed eve"). */
function describeNames(field: string, from: Value, to: Value): string | null {
  if (field !== 'watchers') return null;
  const before = names(from);
  const after = names(to);
  const added = after.filter((name) => !before.includes(name));
  const removed = before.filter((name) => !after.includes(name));
  const parts = [
    ...(added.length > 0 ? [`added ${added.join(', ')}`] : []),
    ...(removed.length > 0 ? [`removed ${removed.join(', ')}`] : []),
  ];
  return `Watchers: ${parts.length > 0 ? parts.join(', ') : 'unchanged'}`;
}

const humanize = (field: string) => {
  const words = field.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/**
 * One change's fields as "Label: from → to", text fields as "Notes: now “…”", payload edits as
 * "Payload edited", other items as links. Text is user text (UserText); the links are ids.
 */
function describeEntry(changes: HistoryEntry['changes'], projects: Project[] | null): ComponentChildren[] {
  const known = fields(projects);
  const parts = Object.entries(changes).flatMap((entry): ComponentChildren[] => {
    const [field, change] = entry;
    const { from, to, edited, option } = (change ?? {}) as {
      from?: Value;
      to?: Value;
      edited?: boolean;
      option?: Value;
    };
    // Not a field but what the change was about (the question answered, the comment deleted):
    // the timeline shows the question and the comment themselves; only a chosen option is news.
    if (typeof change === 'object' && change !== null && !('from' in change) && !('to' in change) && !edited) {
      return typeof option === 'string' ? [text(`Option: ${option}`)] : [];
    }
    const link = describeLink(field, from, to);
    if (link !== null) return [link];
    const people = describeNames(field, from, to);
    if (people !== null) return [text(people)];
    const f = known[field];
    const label = f?.label ?? humanize(field);
    if (edited) return [text(`${label} edited`)];
    if (f?.text)
      return [
        text(to === null || to === undefined || to === '' ? `${label} cleared` : `${label}: now “${clip(String(to))}”`),
      ];
    const value = f?.value ?? plain;
    return [text(`${label}: ${value(from)} → ${value(to)}`)];
  });
  return parts.length > 0 ? joined(parts, '; ') : ['no field changed'];
}

const text = (t: string) => <UserText text={t} />;

/**
 * One change of the audit trail: "03:24:57 Claimed by bot-1 (agent): Status: queued → in progress".
 * The item's timeline (item-timeline.tsx) shows these lines between the comments.
 */
export function HistoryLine({ entry, projects }: { entry: HistoryEntry; projects: Project[] | null }) {
  return (
    <>
      <time dateTime={entry.at}>{formatDateTime(entry.at)}</time>{' '}
      <strong>{ACTIONS[entry.action] ?? humanize(entry.action)}</strong> by <UserText text={entry.actor} /> (
      {entry.role}): {describeEntry(entry.changes, projects)}
    </>
  );
}
