import { statusLabel } from '../lib/format.ts';

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${status}`}>{statusLabel(status)}</span>;
}
