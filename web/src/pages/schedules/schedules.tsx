import { useState } from 'preact/hooks';
import type { Schedule, ScheduleDetail } from '../../../../src/schedules/schemas.ts';
import { Modal } from '../../components/modal.tsx';
import { ProblemMessage } from '../../components/problem-message.tsx';
import { UserText, visibleBidi } from '../../components/user-text.tsx';
import { api } from '../../lib/api.ts';
import { href, navigate } from '../../lib/router.ts';
import { rhythmInWords, schedulePath, whenText } from '../../lib/schedules.ts';
import { can, useSession } from '../../lib/session.ts';
import { useLoad } from '../../lib/use-load.ts';
import { useSubmit } from '../../lib/use-submit.ts';
import { Occurrences } from './occurrences.tsx';
import { NextRuns } from './next-runs.tsx';
import { ScheduleForm } from './schedule-form.tsx';

// Recurring work: each schedule makes one item per occurrence of its rhythm in its zone. Members
// and admins manage schedules here; viewers and agents read them. `?id=` opens one schedule's
// next runs and occurrences (the item page links there).

export function SchedulesPage(props: { params: URLSearchParams }) {
  const session = useSession();
  const manages = can(session, 'schedule');
  const selected = props.params.get('id');
  const list = useLoad<Schedule[]>(
    'schedules',
    async (signal) => (await api<Schedule[]>('GET', '/schedules', undefined, signal)).data,
  );
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Schedule | null>(null);
  const [tick, setTick] = useState(0);
  const { busy, problem, run } = useSubmit();
  const changed = () => {
    list.reload();
    setTick((t) => t + 1);
  };

  const act = (work: () => Promise<void>) => run(async () => (await work(), changed()));
  const remove = (s: Schedule) =>
    run(async () => {
      try {
        await api('DELETE', schedulePath(s));
        if (selected === s.id) navigate(href('/schedules'), true);
        changed();
      } finally {
        setDeleting(null);
      }
    });

  const empty = list.data !== null && list.data.length === 0;
  return (
    <section aria-labelledby="schedules-title" class="stack">
      <div class="page-head">
        <h1 id="schedules-title">Schedules</h1>
        {manages && !creating && (
          <button type="button" class="primary" onClick={() => setCreating(true)}>
            New schedule
          </button>
        )}
      </div>
      <p class="muted">
        Recurring work: a schedule makes one work item each time its rhythm comes round, in its own time zone. Times
        below are in your zone; the schedule's follows when it is another.
      </p>
      {manages && creating && (
        <ScheduleForm
          schedule={null}
          onDone={(saved) => {
            setCreating(false);
            if (saved) {
              changed();
              navigate(href('/schedules', { id: saved.id }), true);
            }
          }}
        />
      )}
      <ProblemMessage problem={problem ?? list.error} />
      {selected !== null && <SelectedSchedule key={`${selected} ${tick}`} id={selected} />}
      {list.data === null ? (
        !list.error && <p class="muted">Loading…</p>
      ) : empty ? (
        <p class="empty">
          No schedules yet.{manages ? ' “New schedule” sets one up: “every weekday at 08:30” is one click.' : ''}
        </p>
      ) : (
        <div class="table-wrap">
          <table class="schedules cards-on-phone">
            <caption class="visually-hidden">Schedules</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Rhythm</th>
                <th scope="col">Next run</th>
                <th scope="col">State</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((s) =>
                editing === s.id ? (
                  <tr key={s.id} class="editing">
                    <td colSpan={5}>
                      <ScheduleForm
                        schedule={s}
                        onDone={(saved) => {
                          setEditing(null);
                          if (saved) changed();
                        }}
                      />
                    </td>
                  </tr>
                ) : (
                  <ScheduleRow
                    key={s.id}
                    schedule={s}
                    selected={selected === s.id}
                    manages={manages}
                    busy={busy}
                    onEdit={() => setEditing(s.id)}
                    onToggle={() =>
                      act(async () => void (await api('PATCH', schedulePath(s), { enabled: !s.enabled })))
                    }
                    onRun={() =>
                      act(async () => {
                        await api('POST', schedulePath(s, '/run'));
                        navigate(href('/schedules', { id: s.id }), true);
                      })
                    }
                    onDelete={() => setDeleting(s)}
                  />
                ),
              )}
            </tbody>
          </table>
        </div>
      )}
      <Modal open={deleting !== null} labelledBy="delete-schedule-title" onCancel={() => setDeleting(null)}>
        <div class="stack">
          <h2 id="delete-schedule-title">Delete the schedule “{deleting?.name}”?</h2>
          <p>It makes no more items. The items it made stay; its list of occurrences goes.</p>
          <div class="row end">
            <button type="button" autoFocus onClick={() => setDeleting(null)}>
              Keep it
            </button>
            <button
              type="button"
              class="danger solid"
              disabled={busy}
              onClick={() => deleting && void remove(deleting)}
            >
              Delete
            </button>
          </div>
        </div>
      </Modal>
    </section>
  );
}

function ScheduleRow(props: {
  schedule: Schedule;
  selected: boolean;
  manages: boolean;
  busy: boolean;
  onEdit: () => void;
  onToggle: () => void;
  onRun: () => void;
  onDelete: () => void;
}) {
  const s = props.schedule;
  const words = rhythmInWords(s.cron);
  const next = s.next_run_at ? whenText(s.next_run_at, s.tz) : null;
  const label = visibleBidi(s.name);
  return (
    <tr data-schedule={s.name} class={props.selected ? 'selected' : undefined}>
      <td class="break">
        <a href={href('/schedules', { id: s.id })} aria-current={props.selected ? 'true' : undefined}>
          <UserText text={s.name} />
        </a>
        <div class="muted small">
          <UserText text={s.item.type} />
        </div>
      </td>
      <td data-label="Rhythm">
        {words ?? <code>{s.cron}</code>}
        <div class="muted small break">
          {words && <code>{s.cron}</code>} <UserText text={s.tz} />
        </div>
      </td>
      <td data-label="Next run">
        {next ? (
          <>
            <time dateTime={s.next_run_at ?? ''}>{next.viewer}</time>
            {next.schedule && <div class="muted small">{next.schedule}</div>}
          </>
        ) : (
          '—'
        )}
      </td>
      <td data-label="State">
        <span class={`pill ${s.enabled ? 'on' : 'off'}`}>{s.enabled ? 'Enabled' : 'Disabled'}</span>
        {s.disabled_reason && (
          <div class="muted small break">
            <UserText text={s.disabled_reason} />
          </div>
        )}
      </td>
      <td class="actions">
        {props.manages && (
          <div class="row end wrap">
            <button type="button" disabled={props.busy} onClick={props.onRun} aria-label={`Run ${label} now`}>
              Run now
            </button>
            <button
              type="button"
              disabled={props.busy}
              onClick={props.onToggle}
              aria-label={`${s.enabled ? 'Disable' : 'Enable'} ${label}`}
            >
              {s.enabled ? 'Disable' : 'Enable'}
            </button>
            <button type="button" onClick={props.onEdit} aria-label={`Edit ${label}`}>
              Edit
            </button>
            <button type="button" class="danger subtle" onClick={props.onDelete} aria-label={`Delete ${label}`}>
              Delete…
            </button>
          </div>
        )}
      </td>
    </tr>
  );
}

function SelectedSchedule(props: { id: string }) {
  const detail = useLoad<ScheduleDetail>(
    `schedule ${props.id}`,
    async (signal) => (await api<ScheduleDetail>('GET', schedulePath(props), undefined, signal)).data,
  );
  if (detail.error) return <ProblemMessage problem={detail.error} />;
  const s = detail.data;
  if (s === null) return <p class="muted">Loading…</p>;
  return (
    <section class="card stack schedule-detail" aria-labelledby="schedule-detail-title" data-testid="schedule-detail">
      <div class="row between wrap">
        <h2 id="schedule-detail-title" class="break">
          <UserText text={s.name} />
        </h2>
        <a href={href('/schedules')}>Close</a>
      </div>
      <p class="muted small break">
        {rhythmInWords(s.cron) ?? <code>{s.cron}</code>}, <UserText text={s.tz} />. Makes a{' '}
        <UserText text={s.item.type} /> item: <UserText text={s.item.description} />
      </p>
      <div class="detail-columns">
        <NextRuns runs={s.next_runs} tz={s.tz} />
        <Occurrences schedule={s} />
      </div>
    </section>
  );
}
