import { statusLabel } from '../../lib/format.ts';
import type { WorkStatus, StatusCounts as Counts } from '../../../../src/work/api-contract.ts';
import { STATUSES } from '../../lib/statuses.ts';

const number = new Intl.NumberFormat();

/** Counts per status for the view's other filters; each count is also a status filter. */
export function StatusCounts(props: {
  counts: Counts | null;
  active: WorkStatus | null;
  onPick: (status: WorkStatus | null) => void;
}) {
  const total = props.counts ? STATUSES.reduce((n, s) => n + (props.counts?.[s] ?? 0), 0) : null;
  const chip = (status: WorkStatus | null, label: string, n: number | null) => (
    <li key={status ?? 'all'}>
      <button
        type="button"
        class={`count count-${status ?? 'all'}`}
        aria-pressed={props.active === status}
        onClick={() => props.onPick(status)}
      >
        <span class="count-label">{label}</span>
        <span class="count-n" data-status={status ?? 'all'}>
          {n === null ? '…' : number.format(n)}
        </span>
      </button>
    </li>
  );
  return (
    <ul class="counts" aria-label="Work items per status">
      {chip(null, 'all', total)}
      {STATUSES.map((s) => chip(s, statusLabel(s), props.counts ? (props.counts[s] ?? 0) : null))}
    </ul>
  );
}
