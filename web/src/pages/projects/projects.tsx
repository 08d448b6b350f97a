import { useEffect, useState } from 'preact/hooks';
import { ExternalRef } from './external-ref.tsx';
import { ItemTable } from '../../components/item-table.tsx';
import { ProblemMessage } from '../../components/problem-message.tsx';
import { UserText, visibleBidi } from '../../components/user-text.tsx';
import { api, type ApiProblem, toProblem, withQuery } from '../../lib/api.ts';
import { useSubmit } from '../../lib/use-submit.ts';
import { formatDateTime } from '../../lib/format.ts';
import { useLive } from '../../lib/live.ts';
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

function EditProject(props: { project: Project; onDone: () => void }) {
  const p = props.project;
  const [name, setName] = useState(p.name);
  const [ref, setRef] = useState(p.external_ref ?? '');
  const { busy, problem, run } = useSubmit();
  return (
    <form
      class="inline-form wrap edit-project"
      aria-label={`Edit project ${p.name}`}
      onSubmit={async (e) => {
        e.preventDefault();
        const body: { name?: string; external_ref?: string | null } = {};
        if (name.trim() !== p.name) body.name = name.trim();
        const nextRef = ref.trim() === '' ? null : ref.trim();
        if (nextRef !== p.external_ref) body.external_ref = nextRef;
        if (Object.keys(body).length === 0) return props.onDone();
        await run(async () => {
          const r = await api<Project>('PATCH', `/projects/${encodeURIComponent(p.id)}`, body);
          upsertProject(r.data);
          props.onDone();
        });
      }}
    >
      <label>
        Name
        <input name="name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label class="grow">
        External reference (empty clears it)
        <input name="external_ref" maxLength={2000} value={ref} onInput={(e) => setRef(e.currentTarget.value)} />
      </label>
      <button type="submit" class="primary" disabled={busy}>
        Save
      </button>
      <ProblemMessage problem={problem} />
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
