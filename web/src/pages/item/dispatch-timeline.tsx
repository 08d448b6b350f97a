import { formatDateTime } from '../../lib/format.ts';
import type { DispatchEntry, DispatchReason, Outcome } from '../../../../src/work/api-contract.ts';

const REASON_LABELS = {
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
  released: 'released',
  reassigned: 'reassigned',
  lease_expired: 'lease expired',
} as const satisfies Record<DispatchReason, string>;

/** The reason each outcome implies by itself: shown only when the reason says more. */
const PLAIN_REASON = { success: 'completed', failed: 'failed', cancelled: 'cancelled' } as const satisfies Record<
  Outcome,
  DispatchReason
>;

export function DispatchTimeline({ entries }: { entries: DispatchEntry[] }) {
  if (entries.length === 0) return <p class="muted">Never dispatched.</p>;
  return (
    <ol class="timeline" aria-label="Dispatch log, oldest first">
      {entries.map((d) => {
        const expired = d.reason === 'lease_expired';
        const telling = d.reason !== null && (d.outcome === null || PLAIN_REASON[d.outcome] !== d.reason);
        return (
          <li key={d.id} class={`${d.completed_at ? 'closed' : 'open'}${expired ? ' lease-expired' : ''}`}>
            <div class="timeline-head">
              <strong>{d.agent}</strong>
              {d.outcome ? (
                <span class={`badge badge-outcome-${d.outcome}`}>{d.outcome}</span>
              ) : (
                <span class="badge badge-open">open</span>
              )}
              {d.reason && telling && (
                <span class={expired ? 'badge badge-lease-expired' : 'reason muted small'}>
                  {REASON_LABELS[d.reason]}
                </span>
              )}
            </div>
            <div class="muted small">
              dispatched <time dateTime={d.dispatched_at}>{formatDateTime(d.dispatched_at)}</time>
              {d.completed_at && (
                <>
                  {expired ? ' · lease ran out ' : ' · closed '}
                  <time dateTime={d.completed_at}>{formatDateTime(d.completed_at)}</time>
                </>
              )}
            </div>
          </li>
        );
      })}
    </ol>
  );
}
