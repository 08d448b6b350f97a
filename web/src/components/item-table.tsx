import { formatAgo, formatDateTime } from '../lib/format.ts';
import { projectName, useProjects } from '../lib/projects.ts';
import { href } from '../lib/router.ts';
import type { WorkItemSummary } from '../../../src/work/api-contract.ts';
import { waitingOn } from '../lib/relations.ts';
import { WaitMark } from './item-relations.tsx';
import { LoopMarks } from './loop-fields.tsx';
import { StatusBadge } from './status-badge.tsx';
import { UserText } from './user-text.tsx';

export function ItemTable(props: {
  items: WorkItemSummary[];
  caption: string;
  /** ids of rows changed by the live stream so that they no longer match the view */
  stale?: ReadonlySet<string>;
  showProject?: boolean;
}) {
  const projects = useProjects();
  const showProject = props.showProject ?? true;
  if (props.items.length === 0) return <p class="empty">No work items here.</p>;
  return (
    <div class="table-wrap">
      <table class="items">
        <caption class="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            <th scope="col">Description</th>
            <th scope="col">Status</th>
            <th scope="col" class="num">
              <abbr title="Priority (1 highest)">P</abbr>
            </th>
            <th scope="col">Agent</th>
            <th scope="col" class="opt">
              Type
            </th>
            {showProject && (
              <th scope="col" class="opt">
                Project
              </th>
            )}
            <th scope="col" class="opt">
              Created
            </th>
          </tr>
        </thead>
        <tbody>
          {props.items.map((item) => (
            <tr key={item.id} class={props.stale?.has(item.id) ? 'stale' : undefined} data-id={item.id}>
              <td class="desc">
                <a href={href(`/items/${item.id}`)}>
                  <UserText text={item.description} />
                </a>
              </td>
              <td>
                <StatusBadge status={item.status} />
                {waitingOn(item) > 0 && <WaitMark count={waitingOn(item)} />}
                <LoopMarks item={item} />
              </td>
              <td class="num">{item.priority}</td>
              <td class="nowrap">{item.assigned_agent ?? <span class="muted">—</span>}</td>
              <td class="opt">
                <code>{item.type}</code>
              </td>
              {showProject && <td class="opt">{withProjectName(projectName(projects, item.project_id))}</td>}
              <td class="opt nowrap">
                <time dateTime={item.created_at} title={formatDateTime(item.created_at)}>
                  {formatAgo(item.created_at)}
                </time>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function withProjectName(name: string | undefined | null) {
  return name ? <UserText text={name} /> : <span class="muted">—</span>;
}
