import { useState } from 'preact/hooks';
import type { Project, WorkItem } from '../../../../src/work/api-contract.ts';
import { formatDateTime } from '../../lib/format.ts';
import { projectName } from '../../lib/projects.ts';
import { href } from '../../lib/router.ts';
import type { ChangeResult } from '../../lib/use-item-change.ts';
import { ChangeFeedback, type Feedback } from '../../components/change-feedback.tsx';
import { ItemEditor } from './item-editor.tsx';
import { LoopFields } from '../../components/loop-fields.tsx';
import { namesText } from '../../components/people-field.tsx';
import { StatusBadge } from '../../components/status-badge.tsx';
import { UserText } from '../../components/user-text.tsx';

// The item's fields, and the editor that changes those an open item can still change.

/** Whether the item waits for a person's review before done, and where that comes from. */
export function reviewLabel(w: WorkItem, projects: Project[] | null): string {
  const own = w.review_required;
  if (own === true) return 'yes (this item)';
  if (own === false) return 'no (this item)';
  const project = projects?.find((p) => p.id === w.project_id);
  if (w.project_id === null) return 'no (no project)';
  return project?.review_required ? 'yes (project default)' : 'no (project default)';
}

export function ItemFields(props: {
  item: WorkItem;
  projects: Project[] | null;
  mayEdit: boolean;
  busy: boolean;
  feedback: Feedback | null;
  onSave: (basis: WorkItem, body: Record<string, unknown>) => Promise<ChangeResult>;
}) {
  const { item: w, projects, mayEdit } = props;
  const [editing, setEditing] = useState(false);
  return (
    <section aria-labelledby="fields-title" class="card stack">
      <div class="row between">
        <h2 id="fields-title">Fields</h2>
        {mayEdit && !editing && (
          <button type="button" onClick={() => setEditing(true)}>
            Edit item
          </button>
        )}
      </div>
      {mayEdit && editing ? (
        <ItemEditor
          item={w}
          projects={projects}
          busy={props.busy}
          feedback={props.feedback}
          onSave={props.onSave}
          onClose={() => setEditing(false)}
        />
      ) : (
        <ChangeFeedback feedback={props.feedback} />
      )}
      <dl class="fields">
        <dt>ID</dt>
        <dd>
          <code>{w.id}</code>
        </dd>
        <dt>Version</dt>
        <dd>{w.version}</dd>
        <dt>Type</dt>
        <dd>
          <code>{w.type}</code>
        </dd>
        <dt>Priority</dt>
        <dd>{w.priority}</dd>
        <dt>Status</dt>
        <dd>
          <StatusBadge status={w.status} />
        </dd>
        <dt>Assigned agent</dt>
        <dd>{w.assigned_agent ?? '—'}</dd>
        <dt>Outcome</dt>
        <dd>{w.outcome ?? '—'}</dd>
        <dt>Project</dt>
        <dd>
          {w.project_id ? (
            <a href={href('/', { project_id: w.project_id })}>
              <UserText text={projectName(projects, w.project_id) ?? w.project_id} />
            </a>
          ) : (
            '—'
          )}
        </dd>
        <dt>Created by</dt>
        <dd>{w.created_by}</dd>
        <FromSchedule payload={w.payload} />
        <dt>Created</dt>
        <dd>
          <time dateTime={w.created_at}>{formatDateTime(w.created_at)}</time>
        </dd>
        <dt>Updated</dt>
        <dd>
          <time dateTime={w.updated_at}>{formatDateTime(w.updated_at)}</time>
        </dd>
        <dt>Completed</dt>
        <dd>{w.completed_at ? <time dateTime={w.completed_at}>{formatDateTime(w.completed_at)}</time> : '—'}</dd>
        <dt>Watchers</dt>
        <dd data-testid="item-watchers">
          <Watchers item={w} projects={projects} />
        </dd>
        <dt>Review before done</dt>
        <dd>{reviewLabel(w, projects)}</dd>
        <LoopFields item={w} />
      </dl>
    </section>
  );
}

/** The item's own watchers, and its project's, who are told as well. */
function Watchers({ item: w, projects }: { item: WorkItem; projects: Project[] | null }) {
  const project = projects?.find((p) => p.id === w.project_id);
  const inherited = project?.watchers.filter((n) => !w.watchers.includes(n)) ?? [];
  return (
    <>
      <UserText text={namesText(w.watchers, 'none')} />
      {inherited.length > 0 && (
        <span class="muted small">
          {' '}
          (and the project's: <UserText text={inherited.join(', ')} />)
        </span>
      )}
    </>
  );
}

/** "From schedule X" when a schedule made the item (payload.schedule is the desk's own field). */
function FromSchedule(props: { payload: unknown }) {
  const made = (props.payload as { schedule?: unknown } | null)?.schedule as
    { id?: unknown; name?: unknown } | undefined;
  if (typeof made?.id !== 'string' || typeof made.name !== 'string') return null;
  return (
    <>
      <dt>Recurring</dt>
      <dd data-testid="item-schedule">
        From schedule{' '}
        <a href={href('/schedules', { id: made.id })}>
          <UserText text={made.name} />
        </a>
      </dd>
    </>
  );
}
