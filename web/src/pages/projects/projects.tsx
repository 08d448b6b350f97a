import { useEffect, useState } from 'preact/hooks';
import { ExternalRef } from './external-ref.tsx';
import { ItemTable } from '../../components/item-table.tsx';
import { namesText, PeopleField } from '../../components/people-field.tsx';
import { ProblemMessage } from '../../components/problem-message.tsx';
import { UserText, visibleBidi } from '../../components/user-text.tsx';
import { api, type ApiProblem, toProblem, withQuery } from '../../lib/api.ts';
import { useSubmit } from '../../lib/use-submit.ts';
import { formatDateTime } from '../../lib/format.ts';
import { useLive } from '../../lib/live.ts';
import { parseNames } from '../../lib/people.ts';
import { loadProjects, upsertProject, useProjects } from '../../lib/projects.ts';
import { href } from '../../lib/router.ts';
import { can, useSession } from '../../lib/session.ts';
import { useLoad } from '../../lib/use-load.ts';
import type { Project, WorkItemSummary } from '../../../../src/work/api-contract.ts';
import { WORK_EVENTS } from '../../lib/event-names.ts';

const ITEMS_SHOWN = 20;

export function ProjectsPage() {
  const session = useSession();
  const projects = useProjects();
  const [openId, setOpenId] = useState<string | null>(null);
  const [loadProblem, setLoadProblem] = useState<ApiProblem | null>(null);
  useEffect(() => {
    // the shared list may be older than this visit; a fresh read also surfaces a failure
    loadProjects(true).then(
      () => setLoadProblem(null),
      (err: unknown) => setLoadProblem(toProblem(err)),
    );
  }, []);
  return (
    <section aria-labelledby="projects-title">
      <h1 id="projects-title">Projects</h1>
      {can(session, 'admin') && <CreateProject />}
      <ProblemMessage problem={loadProblem} />
      {projects === null ? (
        !loadProblem && <p class="muted">Loading…</p>
      ) : projects.length === 0 ? (
        <p class="empty">No projects yet.</p>
      ) : (
        <ul class="project-list">
          {projects.map((p) => (
            <li key={p.id} class="card">
              <ProjectRow
                project={p}
                open={openId === p.id}
                onToggle={() => setOpenId(openId === p.id ? null : p.id)}
              />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function CreateProject() {
  const [name, setName] = useState('');
  const [ref, setRef] = useState('');
  const [review, setReview] = useState(false);
  const { busy, problem, run } = useSubmit();
  return (
    <form
      class="card inline-form wrap"
      aria-label="New project"
      onSubmit={async (e) => {
        e.preventDefault();
        await run(async () => {
          const body: Record<string, string | boolean> = { name: name.trim() };
          if (ref.trim()) body.external_ref = ref.trim();
          if (review) body.review_required = true;
          const r = await api<Project>('POST', '/projects', body);
          upsertProject(r.data);
          setName('');
          setRef('');
          setReview(false);
        });
      }}
    >
      <label>
        New project name
        <input
          name="name"
          required
          maxLength={200}
          value={name}
          autoComplete="off"
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </label>
      <label class="grow">
        External reference (optional)
        <input
          name="external_ref"
          maxLength={2000}
          value={ref}
          placeholder="https://github.com/org/repo"
          autoComplete="off"
          onInput={(e) => setRef(e.currentTarget.value)}
        />
      </label>
      <label class="inline-check">
        <input
          type="checkbox"
          name="review_required"
          checked={review}
          onChange={(e) => setReview(e.currentTarget.checked)}
        />
        Review before done
      </label>
      <button type="submit" class="primary" disabled={busy}>
        Create project
      </button>
      <ProblemMessage problem={problem} />
    </form>
  );
}

function ProjectRow(props: { project: Project; open: boolean; onToggle: () => void }) {
  const session = useSession();
  const p = props.project;
  const [editing, setEditing] = useState(false);
  return (
    <article aria-label={`Project ${visibleBidi(p.name)}`}>
      <div class="row between wrap">
        <div class="stack tight">
          <h2 class="project-name">
            <UserText text={p.name} />
          </h2>
          <div class="muted small">
            <ExternalRef value={p.external_ref} /> · created {formatDateTime(p.created_at)}
          </div>
          <ProjectPeople project={p} />
        </div>
        <div class="row wrap">
          {can(session, 'admin') ? (
            <ReviewToggle project={p} />
          ) : (
            p.review_required && <span class="pill">review before done</span>
          )}
          {can(session, 'admin') && (
            <button type="button" onClick={() => setEditing(!editing)} aria-expanded={editing}>
              {editing ? 'Close editor' : 'Edit'}
            </button>
          )}
          <button type="button" onClick={props.onToggle} aria-expanded={props.open}>
            {props.open ? 'Hide items' : 'Items'}
          </button>
          <a class="button" href={href('/', { project_id: p.id })}>
            On the board
          </a>
          {can(session, 'submit') && (
            <a class="button" href={href('/new', { project_id: p.id })}>
              Add work
            </a>
          )}
        </div>
      </div>
      {editing && <EditProject project={p} onDone={() => setEditing(false)} />}
      {props.open && <ProjectItems project={p} />}
    </article>
  );
}

/** Whether the project's items wait for a person's review before done; each item may override it. */
function ReviewToggle({ project }: { project: Project }) {
  const { busy, problem, run } = useSubmit();
  // The box shows the choice at once, while the change is on its way (a controlled box would
  // spring back until the answer came); a refused change puts the project's value back.
  const [pending, setPending] = useState<boolean | null>(null);
  const on = pending ?? project.review_required;
  return (
    <>
      <label class="inline-check">
        <input
          type="checkbox"
          name="review_required"
          checked={on}
          disabled={busy}
          onChange={async (e) => {
            const next = e.currentTarget.checked;
            setPending(next);
            await run(async () => {
              try {
                const r = await api<Project>('PATCH', `/projects/${encodeURIComponent(project.id)}`, {
                  review_required: next,
                });
                upsertProject(r.data);
              } finally {
                setPending(null);
              }
            });
          }}
        />
        Review before done
      </label>
      <ProblemMessage problem={problem} />
    </>
  );
}

/** Who is told of the project's questions and reviews, and whom an overdue one goes to. */
function ProjectPeople({ project: p }: { project: Project }) {
  if (p.watchers.length === 0 && p.answer_within_s === null && p.escalate_to.length === 0) return null;
  return (
    <div class="muted small" data-testid="project-people">
      Watchers: {namesText(p.watchers, 'none')}
      {p.answer_within_s !== null && (
        <>
          {' '}
          · answer within {formatMinutes(p.answer_within_s)}, then tell {namesText(p.escalate_to, 'nobody')}
        </>
      )}
    </div>
  );
}

function formatMinutes(seconds: number): string {
  const minutes = Math.round(seconds / 60);
  return minutes % 60 === 0 ? `${minutes / 60} h` : `${minutes} min`;
}

/** The answer time is typed in minutes; the API keeps seconds (at least 60). */
const minutesOf = (seconds: number | null) => (seconds === null ? '' : String(Math.round(seconds / 60)));
const sameNames = (a: readonly string[], b: readonly string[]) => a.join(',') === b.join(',');

function EditProject(props: { project: Project; onDone: () => void }) {
  const p = props.project;
  const [name, setName] = useState(p.name);
  const [ref, setRef] = useState(p.external_ref ?? '');
  const [watchers, setWatchers] = useState(p.watchers.join(', '));
  const [within, setWithin] = useState(minutesOf(p.answer_within_s));
  const [escalate, setEscalate] = useState(p.escalate_to.join(', '));
  const { busy, problem, run } = useSubmit();
  const idBase = `project-${p.id}`;
  return (
    <form
      class="stack edit-project"
      aria-label={`Edit project ${p.name}`}
      onSubmit={async (e) => {
        e.preventDefault();
        const body: {
          name?: string;
          external_ref?: string | null;
          watchers?: string[];
          answer_within_s?: number | null;
          escalate_to?: string[];
        } = {};
        if (name.trim() !== p.name) body.name = name.trim();
        const nextRef = ref.trim() === '' ? null : ref.trim();
        if (nextRef !== p.external_ref) body.external_ref = nextRef;
        const nextWatchers = parseNames(watchers);
        if (!sameNames(nextWatchers, p.watchers)) body.watchers = nextWatchers;
        const nextWithin = within.trim() === '' ? null : Math.round(Number(within) * 60);
        if (nextWithin !== p.answer_within_s) body.answer_within_s = nextWithin;
        const nextEscalate = parseNames(escalate);
        if (!sameNames(nextEscalate, p.escalate_to)) body.escalate_to = nextEscalate;
        if (Object.keys(body).length === 0) return props.onDone();
        await run(async () => {
          const r = await api<Project>('PATCH', `/projects/${encodeURIComponent(p.id)}`, body);
          upsertProject(r.data);
          props.onDone();
        });
      }}
    >
      <div class="inline-form wrap">
        <label>
          Name
          <input name="name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label class="grow">
          External reference (empty clears it)
          <input name="external_ref" maxLength={2000} value={ref} onInput={(e) => setRef(e.currentTarget.value)} />
        </label>
      </div>
      <div class="row wrap">
        <PeopleField
          id={`${idBase}-watchers`}
          label="Watchers"
          hint="Told of every question and review of its items"
          value={watchers}
          onChange={setWatchers}
        />
      </div>
      <div class="row wrap">
        <div class="field">
          <label for={`${idBase}-within`}>Answer within (minutes)</label>
          <input
            id={`${idBase}-within`}
            name="answer_within"
            type="number"
            min={1}
            step={1}
            inputMode="numeric"
            value={within}
            aria-describedby={`${idBase}-within-hint`}
            onInput={(e) => setWithin(e.currentTarget.value)}
          />
          <span id={`${idBase}-within-hint`} class="muted small">
            Empty: never overdue
          </span>
        </div>
        <PeopleField
          id={`${idBase}-escalate`}
          label="Escalate to"
          hint="Told once a question or review is overdue"
          value={escalate}
          onChange={setEscalate}
        />
      </div>
      <ProblemMessage problem={problem} />
      <div class="row end">
        <button type="submit" class="primary" disabled={busy}>
          Save
        </button>
      </div>
    </form>
  );
}

function ProjectItems({ project }: { project: Project }) {
  const key = withQuery('/work', { project_id: project.id, limit: ITEMS_SHOWN });
  const items = useLoad(key, async (signal) => {
    const r = await api<WorkItemSummary[]>('GET', key, undefined, signal);
    return { items: r.data, more: r.nextCursor !== null };
  });
  useLive((e) => {
    if (e.type === 'resync') items.reload();
    else if ((e.type === WORK_EVENTS.created || e.type === WORK_EVENTS.updated) && e.data.project_id === project.id)
      items.reload();
    // A deletion names only the item: reload if it is one shown here.
    else if (e.type === WORK_EVENTS.deleted && items.data?.items.some((item) => item.id === e.data.id)) items.reload();
  });
  return (
    <div class="project-items">
      <ProblemMessage problem={items.error} />
      {items.data && (
        <ItemTable items={items.data.items} caption={`Work items of ${project.name}`} showProject={false} />
      )}
      {items.data?.more && (
        <p>
          <a href={href('/', { project_id: project.id })}>All of this project's items on the board →</a>
        </p>
      )}
    </div>
  );
}
