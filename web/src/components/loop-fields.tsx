import { useEffect, useState } from 'preact/hooks';
import { MAX_RETRY_DELAY_S } from '../../../src/work/items/lifecycle.ts';
import type { WorkItemSummary } from '../../../src/work/api-contract.ts';
import { formatAgo, formatDateTime, formatSeconds } from '../lib/format.ts';

// The agent loop on the page: how many claims an item has had, its backoff, when it becomes
// claimable, and the lease its holder must keep renewing.

/** The current time, ticking every second while `iso` is within the hour, else twice a minute. */
function useNow(iso: string): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const near = Math.abs(Date.parse(iso) - now) < 3_600_000;
    const timer = setTimeout(() => setNow(Date.now()), near ? 1_000 : 30_000);
    return () => clearTimeout(timer);
  }, [iso, now]);
  return now;
}

function At({ iso }: { iso: string }) {
  return <time dateTime={iso}>{formatDateTime(iso)}</time>;
}

function Lease({ iso }: { iso: string }) {
  const now = useNow(iso);
  return Date.parse(iso) > now ? (
    <>
      expires <At iso={iso} /> ({formatAgo(iso, now)})
    </>
  ) : (
    // Between the expiry and the sweep (well under two seconds).
    <>
      ran out <At iso={iso} /> ({formatAgo(iso, now)}); back to the queue shortly
    </>
  );
}

function RunAfter({ iso }: { iso: string }) {
  const now = useNow(iso);
  return Date.parse(iso) > now ? (
    <>
      not claimable before <At iso={iso} /> ({formatAgo(iso, now)})
    </>
  ) : (
    <>
      <At iso={iso} /> (claimable now)
    </>
  );
}

/** Rows of the item page's Fields list. */
export function LoopFields({ item }: { item: WorkItemSummary }) {
  return (
    <>
      <dt>Attempts</dt>
      <dd>
        {item.attempts} of {item.max_attempts}
      </dd>
      <dt>Retry delay</dt>
      <dd>
        {formatSeconds(item.retry_delay_s)}
        {item.retry_delay_s > 0 && (
          <span class="muted small"> · doubled after each lost lease, at most {formatSeconds(MAX_RETRY_DELAY_S)}</span>
        )}
      </dd>
      <dt>Run after</dt>
      <dd>{item.run_after ? <RunAfter iso={item.run_after} /> : '—'}</dd>
      <dt>Lease</dt>
      <dd>{item.lease_expires_at ? <Lease iso={item.lease_expires_at} /> : '—'}</dd>
    </>
  );
}

/** Small marks for a row of a list: held on a lease, waiting for its run_after, attempts made. */
export function LoopMarks({ item }: { item: WorkItemSummary }) {
  const waiting = item.status === 'queued' && item.run_after !== null && Date.parse(item.run_after) > Date.now();
  if (!item.lease_expires_at && !waiting && item.attempts === 0) return null;
  return (
    <span class="loop-marks">
      {item.lease_expires_at && (
        <abbr class="loop-mark" title={`Lease expires ${formatDateTime(item.lease_expires_at)}`}>
          lease
        </abbr>
      )}
      {waiting && (
        <abbr class="loop-mark" title={`Not claimable before ${formatDateTime(item.run_after)}`}>
          later
        </abbr>
      )}
      {item.attempts > 0 && (
        <abbr class="loop-mark" title={`Attempt ${item.attempts} of ${item.max_attempts}`}>
          {item.attempts}/{item.max_attempts}
        </abbr>
      )}
    </span>
  );
}
