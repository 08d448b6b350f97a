import { useEffect, useState } from 'preact/hooks';
import { ProblemMessage } from '../../components/problem-message.tsx';
import { api } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/format.ts';
import { useLoad } from '../../lib/use-load.ts';
import { useSubmit } from '../../lib/use-submit.ts';
import {
  type Attempt,
  BODY_SHOWN,
  DELIVERY_STATUSES,
  type Delivery,
  type DeliveryPage,
  type DeliveryStatus,
  loadDeliveries,
  webhookPath,
} from '../../lib/webhooks.ts';

// One endpoint's delivery log: each delivery with every attempt (when, the answer's status and
// first KiB, how long it took, the error), a status filter, and Redeliver. Read again every few
// seconds while a delivery waits, so a test event's outcome shows without a reload.

const POLL_MS = 2000;

export function DeliveryLog(props: { webhookId: string; refresh: number }) {
  const [status, setStatus] = useState<DeliveryStatus | ''>('');
  const [tick, setTick] = useState(0);
  const [more, setMore] = useState<DeliveryPage[]>([]);
  const first = useLoad<DeliveryPage>(`${props.webhookId} ${status} ${props.refresh} ${tick}`, (signal) =>
    loadDeliveries(props.webhookId, status, null, signal),
  );
  const pages = first.data ? [first.data, ...more] : [];
  const deliveries = pages.flatMap((p) => p.deliveries);
  const next = pages.at(-1)?.next ?? null;
  const waiting = deliveries.some((d) => d.status === 'pending');
  const { busy, problem, run } = useSubmit();

  // A new first page starts the list again.
  useEffect(() => setMore([]), [props.webhookId, status, props.refresh, tick]);
  useEffect(() => {
    if (!waiting || more.length > 0) return undefined;
    const timer = setTimeout(() => setTick((t) => t + 1), POLL_MS);
    return () => clearTimeout(timer);
  }, [waiting, more.length, first.data]);

  const redeliver = (d: Delivery) =>
    run(async () => {
      await api('POST', webhookPath(props.webhookId, `/deliveries/${encodeURIComponent(d.id)}/redeliver`));
      setTick((t) => t + 1);
    });

  return (
    <section class="stack delivery-log" aria-label="Delivery log">
      <div class="row wrap between">
        <h3>Delivery log</h3>
        <div class="row">
          <label class="inline-check">
            Status
            <select value={status} onChange={(e) => setStatus(e.currentTarget.value as DeliveryStatus | '')}>
              <option value="">All</option>
              {DELIVERY_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </label>
          <button type="button" onClick={() => setTick((t) => t + 1)}>
            Refresh
          </button>
        </div>
      </div>
      <ProblemMessage problem={problem ?? first.error} />
      {first.data === null ? (
        !first.error && <p class="muted small">Loading…</p>
      ) : deliveries.length === 0 ? (
        <p class="muted small">{status === '' ? 'No deliveries yet.' : `No ${status} deliveries.`}</p>
      ) : (
        <ul class="deliveries">
          {deliveries.map((d) => (
            <DeliveryEntry key={d.id} delivery={d} busy={busy} onRedeliver={() => void redeliver(d)} />
          ))}
        </ul>
      )}
      {next !== null && (
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            void run(async () => {
              const page = await loadDeliveries(props.webhookId, status, next);
              setMore((now) => [...now, page]);
            })
          }
        >
          Show older deliveries
        </button>
      )}
    </section>
  );
}

function DeliveryEntry(props: { delivery: Delivery; busy: boolean; onRedeliver: () => void }) {
  const d = props.delivery;
  return (
    <li class="delivery" data-delivery={d.id}>
      <div class="row wrap between">
        <div class="row wrap">
          <code class="break">{d.type}</code>
          <span class={`badge delivery-${d.status}`}>{d.status}</span>
          <time class="muted small" dateTime={d.created_at}>
            {formatDateTime(d.created_at)}
          </time>
        </div>
        <button type="button" disabled={props.busy} onClick={props.onRedeliver} aria-label={`Redeliver ${d.id}`}>
          Redeliver
        </button>
      </div>
      <p class="muted small break">
        <code>{d.id}</code> · {d.attempt_count} attempt{d.attempt_count === 1 ? '' : 's'}
        {d.delivered_at && <> · delivered {formatDateTime(d.delivered_at)}</>}
        {d.status === 'pending' && d.next_attempt_at && <> · next attempt {formatDateTime(d.next_attempt_at)}</>}
      </p>
      {d.attempts.length > 0 && (
        <ol class="attempts" aria-label={`Attempts of ${d.id}`}>
          {d.attempts.map((a, i) => (
            <AttemptEntry key={`${a.at} ${i}`} attempt={a} />
          ))}
        </ol>
      )}
    </li>
  );
}

function AttemptEntry({ attempt: a }: { attempt: Attempt }) {
  const good = a.status_code !== null && a.status_code >= 200 && a.status_code < 300;
  return (
    <li class="attempt">
      <div class="row wrap small">
        <time dateTime={a.at}>{formatDateTime(a.at)}</time>
        <span class={good ? 'ok' : 'attempt-bad'} data-testid="attempt-status">
          {a.status_code === null ? 'no answer' : `HTTP ${a.status_code}`}
        </span>
        <span class="muted">{a.latency_ms} ms</span>
      </div>
      {a.error !== null && <p class="attempt-error small break">{a.error}</p>}
      {a.response_body !== null && a.response_body !== '' && (
        <pre class="attempt-body">{a.response_body.slice(0, BODY_SHOWN)}</pre>
      )}
    </li>
  );
}
