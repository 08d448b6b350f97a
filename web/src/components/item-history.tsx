import type { HistoryEntry } from '../../../src/work/schemas.ts';
import { api } from '../lib/api.ts';
import { formatDateTime } from '../lib/format.ts';
import { useLoad } from '../lib/use-load.ts';
import { UserText } from './user-text.tsx';

/** One change's fields as "field: from → to", payload edits as "payload edited". */
function describe(changes: HistoryEntry['changes']): string {
  const parts = Object.entries(changes).map(([field, change]) => {
    const { from, to, edited } = (change ?? {}) as { from?: unknown; to?: unknown; edited?: boolean };
    if (edited) return `${field} edited`;
    const text = (value: unknown) => (value === null || value === undefined ? '—' : typeof value === 'string' ? value : JSON.stringify(value));
    return `${field}: ${text(from)} → ${text(to)}`;
  });
  return parts.length > 0 ? parts.join('; ') : 'no field changed';
}

/** The item's audit trail, oldest first; read again whenever the item's version moves. */
export function ItemHistory({ id, version }: { id: string; version: number }) {
  const path = `/work/${encodeURIComponent(id)}/history`;
  const history = useLoad<HistoryEntry[]>(`${path}#${version}`, async (signal) => (await api<HistoryEntry[]>('GET', path, undefined, signal)).data);
  if (history.error) return <p class="muted">The history could not be read: {history.error.detail}</p>;
  if (!history.data) return <p class="muted">Loading…</p>;
  return (
    <ol class="history" aria-label="Changes, oldest first">
      {history.data.map((entry) => (
        <li key={entry.id} data-action={entry.action}>
          <time dateTime={entry.at}>{formatDateTime(entry.at)}</time>{' '}
          <strong>{entry.action}</strong> by <UserText text={entry.actor} /> ({entry.role}): <UserText text={describe(entry.changes)} />
        </li>
      ))}
    </ol>
  );
}
