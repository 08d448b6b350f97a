import { formatDateTime } from '../lib/format.ts';
import type { DispatchEntry } from '../../../src/work/schemas.ts';

export function DispatchTimeline({ entries }: { entries: DispatchEntry[] }) {
  if (entries.length === 0) return <p class="muted">Never dispatched.</p>;
  return (
    <ol class="timeline" aria-label="Dispatch log, oldest first">
      {entries.map((d) => (
        <li key={d.id} class={d.completed_at ? 'closed' : 'open'}>
          <div class="timeline-head">
            <strong>{d.agent}</strong>
            {d.outcome ? (
              <span class={`badge badge-outcome-${d.outcome}`}>{d.outcome}</span>
            ) : (
              <span class="badge badge-open">open</span>
            )}
          </div>
          <div class="muted small">
            dispatched <time dateTime={d.dispatched_at}>{formatDateTime(d.dispatched_at)}</time>
            {d.completed_at && (
              <>
                {' · closed '}
                <time dateTime={d.completed_at}>{formatDateTime(d.completed_at)}</time>
              </>
            )}
          </div>
        </li>
      ))}
    </ol>
  );
}
