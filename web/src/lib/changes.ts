import type { WorkItem } from '../../../src/work/api-contract.ts';
import { formatDateTime, statusLabel } from './format.ts';

// When a change is refused because the item moved on (412), the page shows the item as it is now
// and, so that the user need not compare two screens from memory, says which fields moved.

const CLIP = 80;

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > CLIP ? `${flat.slice(0, CLIP - 1)}…` : flat;
}

const dash = (v: string | number | null) => (v === null || v === '' ? '—' : String(v));

/**
 * One line per field that differs between the item the change was based on and the fresh one:
 * "Priority: 3 → 1" for short values, "Notes: now “…”" for text.
 */
export function describeChanges(
  before: WorkItem,
  after: WorkItem,
  projectLabel: (id: string | null) => string,
): string[] {
  const lines: string[] = [];
  const short = (label: string, a: string | number | null, b: string | number | null) => {
    if (a !== b) lines.push(`${label}: ${dash(a)} → ${dash(b)}`);
  };
  const text = (label: string, a: string | null, b: string | null) => {
    if (a !== b) lines.push(b === null || b === '' ? `${label}: cleared` : `${label}: now “${clip(b)}”`);
  };
  short('Status', statusLabel(before.status), statusLabel(after.status));
  short('Assigned agent', before.assigned_agent, after.assigned_agent);
  short('Outcome', before.outcome, after.outcome);
  short('Priority', before.priority, after.priority);
  short('Type', before.type, after.type);
  if (before.project_id !== after.project_id)
    short('Project', projectLabel(before.project_id), projectLabel(after.project_id));
  text('Description', before.description, after.description);
  text('Notes', before.notes, after.notes);
  if (JSON.stringify(before.payload) !== JSON.stringify(after.payload)) lines.push('Payload: changed');
  short('Attempts', before.attempts, after.attempts);
  if (before.lease_expires_at !== after.lease_expires_at) {
    lines.push(
      after.lease_expires_at === null ? 'Lease: ended' : `Lease: now until ${formatDateTime(after.lease_expires_at)}`,
    );
  }
  if (before.run_after !== after.run_after)
    short('Run after', formatDateTime(before.run_after), formatDateTime(after.run_after));
  const added = after.dispatch_log.length - before.dispatch_log.length;
  if (added > 0) lines.push(`Dispatch log: ${added} new ${added === 1 ? 'entry' : 'entries'}`);
  if (lines.length === 0) lines.push(`Version: ${before.version} → ${after.version}`);
  return lines;
}
