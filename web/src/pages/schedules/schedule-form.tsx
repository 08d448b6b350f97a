import { useEffect, useMemo, useState } from 'preact/hooks';
import type {
  CreateSchedule,
  MissedPolicy,
  OverlapPolicy,
  Preview,
  Schedule,
  UpdateSchedule,
} from '../../../../src/schedules/schemas.ts';
import { ProblemMessage } from '../../components/problem-message.tsx';
import { type ApiProblem, api, toProblem, withQuery } from '../../lib/api.ts';
import { fromLocalInput, toLocalInput } from '../../lib/format.ts';
import { timeZones } from '../../lib/people.ts';
import { useProjects } from '../../lib/projects.ts';
import {
  EXAMPLES,
  MAX_CATCHUP,
  MISSED_HINTS,
  OVERLAP_HINTS,
  rhythmInWords,
  schedulePath,
  viewerZone,
} from '../../lib/schedules.ts';
import { useSubmit } from '../../lib/use-submit.ts';
import { NextRuns } from './next-runs.tsx';

// The create and edit form of a schedule. The next five runs show as the expression is typed
// (the service's own preview, debounced), so a person sees what "30 8 * * 1-5" means before saving.

const PREVIEW_DELAY_MS = 300;

interface Draft {
  name: string;
  cron: string;
  tz: string;
  type: string;
  description: string;
  priority: number;
  project_id: string;
  missed: MissedPolicy;
  max_catchup: number;
  overlap: OverlapPolicy;
  starts_at: string;
  ends_at: string;
}

function draftOf(s: Schedule | null): Draft {
  return {
    name: s?.name ?? '',
    cron: s?.cron ?? EXAMPLES[0]!.cron,
    tz: s?.tz ?? viewerZone(),
    type: s?.item.type ?? '',
    description: s?.item.description ?? '',
    priority: s?.item.priority ?? 3,
    project_id: s?.project_id ?? '',
    missed: s?.missed ?? 'skip',
    max_catchup: s?.max_catchup ?? MAX_CATCHUP.default,
    overlap: s?.overlap ?? 'allow',
    starts_at: s?.starts_at ? toLocalInput(s.starts_at) : '',
    ends_at: s?.ends_at ? toLocalInput(s.ends_at) : '',
  };
}

function createBody(d: Draft): CreateSchedule {
  return {
    name: d.name.trim(),
    cron: d.cron.trim(),
    tz: d.tz,
    item: {
      type: d.type.trim(),
      description: d.description,
      priority: d.priority,
      project_id: d.project_id === '' ? null : d.project_id,
    },
    missed: d.missed,
    max_catchup: d.max_catchup,
    overlap: d.overlap,
    starts_at: fromLocalInput(d.starts_at) || null,
    ends_at: fromLocalInput(d.ends_at) || null,
  };
}

/** Only what changed: an unchanged rhythm sent again would restart it at the edit. */
function changes(before: Schedule, d: Draft): UpdateSchedule {
  const was = draftOf(before);
  const next = createBody(d);
  const patch: UpdateSchedule = {};
  if (d.name !== was.name) patch.name = next.name;
  if (d.cron !== was.cron) patch.cron = next.cron;
  if (d.tz !== was.tz) patch.tz = next.tz;
  if (d.missed !== was.missed) patch.missed = d.missed;
  if (d.max_catchup !== was.max_catchup) patch.max_catchup = d.max_catchup;
  if (d.overlap !== was.overlap) patch.overlap = d.overlap;
  if (d.starts_at !== was.starts_at) patch.starts_at = next.starts_at ?? null;
  if (d.ends_at !== was.ends_at) patch.ends_at = next.ends_at ?? null;
  const item = (['type', 'description', 'priority', 'project_id'] as const).some((k) => d[k] !== was[k]);
  // The template is replaced whole: keep what the form does not show (payload, agent, watchers).
  if (item) patch.item = { ...before.item, ...next.item };
  return patch;
}

/** The service's preview of the draft's rhythm, asked again a moment after each keystroke. */
function usePreview(cron: string, tz: string, startsAt: string) {
  const [runs, setRuns] = useState<Preview['runs'] | null>(null);
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  useEffect(() => {
    const ctl = new AbortController();
    if (cron.trim() === '' || tz === '') {
      setRuns(null);
      setProblem(null);
      return () => ctl.abort();
    }
    const timer = setTimeout(() => {
      const path = withQuery('/schedules/preview', { cron: cron.trim(), tz, starts_at: fromLocalInput(startsAt) });
      api<Preview>('GET', path, undefined, ctl.signal).then(
        (r) => {
          setRuns(r.data.runs);
          setProblem(null);
        },
        (err: unknown) => {
          if (ctl.signal.aborted) return;
          setRuns(null);
          setProblem(toProblem(err));
        },
      );
    }, PREVIEW_DELAY_MS);
    return () => {
      clearTimeout(timer);
      ctl.abort();
    };
  }, [cron, tz, startsAt]);
  return { runs, problem };
}

/** The message of a refusal about `field`, as the service worded it. */
function fieldMessage(problem: ApiProblem | null, field: string): string | null {
  if (problem === null) return null;
  const found = problem.errors.find((e) => e.field === field || e.field.endsWith(`/${field}`));
  if (found) return found.message;
  return field === 'cron' && problem.errors.length === 0 && problem.status === 422 ? problem.detail : null;
}

export function ScheduleForm(props: { schedule: Schedule | null; onDone: (saved: Schedule | null) => void }) {
  const editing = props.schedule;
  const [d, setDraft] = useState<Draft>(() => draftOf(editing));
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((prev) => ({ ...prev, [key]: value }));
  const zones = useMemo(timeZones, []);
  const projects = useProjects();
  const preview = usePreview(d.cron, d.tz, d.starts_at);
  const { busy, problem, run } = useSubmit();
  const words = rhythmInWords(d.cron);
  const cronError = fieldMessage(preview.problem, 'cron') ?? fieldMessage(problem, 'cron');
  const tzError = fieldMessage(preview.problem, 'tz') ?? fieldMessage(problem, 'tz');
  const id = editing ? `edit-${editing.id}` : 'new-schedule';

  return (
    <form
      class="card stack schedule-form"
      aria-label={editing ? `Edit schedule ${editing.name}` : 'New schedule'}
      onSubmit={async (e) => {
        e.preventDefault();
        await run(async () => {
          const saved = editing
            ? (await api<Schedule>('PATCH', schedulePath(editing), changes(editing, d))).data
            : (await api<Schedule>('POST', '/schedules', createBody(d))).data;
          props.onDone(saved);
        });
      }}
    >
      <h2>{editing ? 'Edit schedule' : 'New schedule'}</h2>
      <label>
        Name
        <input
          name="name"
          required
          maxLength={200}
          autoComplete="off"
          value={d.name}
          onInput={(e) => set('name', e.currentTarget.value)}
        />
      </label>
      <fieldset class="stack tight rhythm">
        <legend>When</legend>
        <div class="row wrap examples" role="group" aria-label="Example rhythms">
          {EXAMPLES.map((x) => (
            <button
              key={x.cron}
              type="button"
              class="chip"
              aria-pressed={d.cron.trim() === x.cron}
              onClick={() => set('cron', x.cron)}
            >
              {x.label}
            </button>
          ))}
        </div>
        <div class="row wrap">
          <div class="field grow">
            <label for={`${id}-cron`}>Cron expression</label>
            <input
              id={`${id}-cron`}
              name="cron"
              required
              maxLength={200}
              spellcheck={false}
              autoComplete="off"
              class="mono"
              aria-invalid={cronError !== null}
              aria-describedby={`${id}-cron-hint ${id}-cron-error`}
              value={d.cron}
              onInput={(e) => set('cron', e.currentTarget.value)}
            />
          </div>
          <div class="field grow">
            <label for={`${id}-tz`}>Time zone</label>
            <select id={`${id}-tz`} name="tz" value={d.tz} onChange={(e) => set('tz', e.currentTarget.value)}>
              {/* a zone the service knows but this browser does not stays choosable */}
              {!zones.includes(d.tz) && <option value={d.tz}>{d.tz}</option>}
              {zones.map((z) => (
                <option key={z} value={z}>
                  {z}
                </option>
              ))}
            </select>
            <span class="field-error" role="alert">
              {tzError ?? ''}
            </span>
          </div>
        </div>
        <p id={`${id}-cron-hint`} class="muted small">
          {words
            ? `${words}, ${d.tz}.`
            : 'minute hour day-of-month month day-of-week, or @hourly, @daily, @weekly, @monthly.'}
        </p>
        <p id={`${id}-cron-error`} class="field-error" role="alert" data-testid="cron-error">
          {cronError ?? ''}
        </p>
        <NextRuns runs={preview.runs} tz={d.tz} />
      </fieldset>
      <div class="row wrap">
        <label class="grow">
          Item type
          <input
            name="type"
            required
            maxLength={100}
            autoComplete="off"
            value={d.type}
            onInput={(e) => set('type', e.currentTarget.value)}
          />
        </label>
        <label>
          Priority
          <select
            name="priority"
            value={String(d.priority)}
            onChange={(e) => set('priority', Number(e.currentTarget.value))}
          >
            {[1, 2, 3, 4, 5].map((p) => (
              <option key={p} value={String(p)}>
                {p}
                {p === 1 ? ' (highest)' : p === 3 ? ' (default)' : ''}
              </option>
            ))}
          </select>
        </label>
        <label class="grow">
          Project
          <select name="project_id" value={d.project_id} onChange={(e) => set('project_id', e.currentTarget.value)}>
            <option value="">No project</option>
            {d.project_id !== '' && !projects?.some((p) => p.id === d.project_id) && (
              <option value={d.project_id}>{d.project_id}</option>
            )}
            {projects?.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
      </div>
      <label>
        Description of each item
        <textarea
          name="description"
          required
          rows={3}
          value={d.description}
          onInput={(e) => set('description', e.currentTarget.value)}
        />
      </label>
      <details class="advanced" open={editing !== null}>
        <summary>Missed runs, overlap, start and end</summary>
        <div class="stack">
          <div class="row wrap">
            <label class="grow">
              Runs missed (desk down, schedule off)
              <select
                name="missed"
                value={d.missed}
                onChange={(e) => set('missed', e.currentTarget.value as MissedPolicy)}
              >
                {Object.entries(MISSED_HINTS).map(([m, hint]) => (
                  <option key={m} value={m}>
                    {hint}
                  </option>
                ))}
              </select>
            </label>
            {d.missed === 'all' && (
              <label>
                At most
                <input
                  name="max_catchup"
                  type="number"
                  min={MAX_CATCHUP.min}
                  max={MAX_CATCHUP.max}
                  value={d.max_catchup}
                  onInput={(e) => set('max_catchup', Number(e.currentTarget.value))}
                />
              </label>
            )}
            <label class="grow">
              While the last item is open
              <select
                name="overlap"
                value={d.overlap}
                onChange={(e) => set('overlap', e.currentTarget.value as OverlapPolicy)}
              >
                {Object.entries(OVERLAP_HINTS).map(([o, hint]) => (
                  <option key={o} value={o}>
                    {hint}
                  </option>
                ))}
              </select>
            </label>
          </div>
          <div class="row wrap">
            <label class="grow">
              Starts (your time)
              <input
                name="starts_at"
                type="datetime-local"
                value={d.starts_at}
                onInput={(e) => set('starts_at', e.currentTarget.value)}
              />
            </label>
            <label class="grow">
              Ends (your time)
              <input
                name="ends_at"
                type="datetime-local"
                value={d.ends_at}
                onInput={(e) => set('ends_at', e.currentTarget.value)}
              />
            </label>
          </div>
        </div>
      </details>
      <ProblemMessage problem={problem} />
      <div class="row end">
        <button type="button" onClick={() => props.onDone(null)}>
          Cancel
        </button>
        <button type="submit" class="primary" disabled={busy}>
          {editing ? 'Save' : 'Create schedule'}
        </button>
      </div>
    </form>
  );
}
