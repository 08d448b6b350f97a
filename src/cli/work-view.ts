import type { WorkItem, WorkItemDetail, WorkItemSummary, WorkStatus } from '../work/contract.js';
import { type Paint, oneLine, relativeTime, table } from './format.js';

// How work items read in a terminal: a list as a table, one item as fields and its history.

export function paintStatus(status: WorkStatus, paint: Paint): string {
  switch (status) {
    case 'completed':
      return paint.green(status);
    case 'failed':
      return paint.red(status);
    case 'blocked':
      return paint.yellow(status);
    case 'in_progress':
    case 'dispatched':
      return paint.cyan(status);
    case 'queued':
    case 'cancelled':
      return paint.dim(status);
    default: {
      const never: never = status;
      return never;
    }
  }
}

export function workTable(items: WorkItemSummary[], paint: Paint, now = Date.now()): string {
  if (items.length === 0) return 'No work items.\n';
  return table(
    ['ID', 'STATUS', 'PRI', 'TYPE', 'AGENT', 'UPDATED', 'DESCRIPTION'],
    items.map((item) => [
      item.id,
      paintStatus(item.status, paint),
      String(item.priority),
      item.type,
      item.assigned_agent ?? '-',
      relativeTime(item.updated_at, now),
      oneLine(item.description, 60),
    ]),
    paint,
  );
}

export function workDetail(item: WorkItem & Partial<WorkItemDetail>, paint: Paint, now = Date.now()): string {
  const when = (iso: string | null) => (iso === null ? '-' : `${relativeTime(iso, now)} ${paint.dim(`(${iso})`)}`);
  const fields: Array<[string, string]> = [
    ['id', item.id],
    ['type', item.type],
    ['status', paintStatus(item.status, paint) + (item.outcome ? ` (${item.outcome})` : '')],
    ['priority', String(item.priority)],
    ['agent', item.assigned_agent ?? '-'],
    ['project', item.project_id ?? '-'],
    ['created', `${when(item.created_at)} by ${item.created_by}`],
    ['updated', when(item.updated_at)],
    ['version', String(item.version)],
    ['attempts', `${item.attempts} of ${item.max_attempts}`],
  ];
  if (item.lease_expires_at) fields.push(['lease ends', when(item.lease_expires_at)]);
  if (item.run_after) fields.push(['run after', when(item.run_after)]);
  if (item.completed_at) fields.push(['completed', when(item.completed_at)]);
  if (item.parent_id) fields.push(['parent', item.parent_id]);
  if (item.children && item.children.total > 0) {
    const { total, completed, failed } = item.children;
    fields.push([
      'sub-items',
      `${completed} of ${total} completed${failed > 0 ? `, ${failed} failed` : ''} (work tree ${item.id})`,
    ]);
  }
  const width = Math.max(...fields.map(([name]) => name.length));
  let text = fields.map(([name, value]) => `${paint.bold(name.padEnd(width))}  ${value}`).join('\n') + '\n';
  text += `\n${paint.bold('description')}\n${indent(item.description)}\n`;
  if (item.notes) text += `\n${paint.bold('notes')}\n${indent(item.notes)}\n`;
  if (item.depends_on && item.depends_on.length > 0) {
    const waiting = new Map((item.blocked_by ?? []).map((blocker) => [blocker.id, blocker]));
    text += `\n${paint.bold(`waits on (${waiting.size} of ${item.depends_on.length} not completed)`)}\n`;
    text += item.depends_on
      .map((id) => {
        const blocker = waiting.get(id);
        return `  ${blocker ? `${paintStatus(blocker.status, paint)}  ${id}  ${oneLine(blocker.description, 60)}` : `${paint.green('completed')}  ${id}`}`;
      })
      .join('\n');
    text += '\n';
  }
  if (item.payload) text += `\n${paint.bold('payload')}\n${indent(JSON.stringify(item.payload, null, 2))}\n`;
  if (item.dispatch_log.length > 0) {
    text += `\n${paint.bold('history')}\n`;
    text += table(
      ['DISPATCHED', 'AGENT', 'ENDED', 'OUTCOME', 'REASON'],
      item.dispatch_log.map((entry) => [
        relativeTime(entry.dispatched_at, now),
        entry.agent,
        relativeTime(entry.completed_at, now),
        entry.outcome ?? '-',
        entry.reason ?? '-',
      ]),
      paint,
    );
  }
  return text;
}

/** One line after a change: what the item is now. */
export function workLine(item: WorkItemSummary, paint: Paint): string {
  const agent = item.assigned_agent ? ` ${paint.dim('agent')} ${item.assigned_agent}` : '';
  const lease = item.lease_expires_at ? ` ${paint.dim('lease ends')} ${relativeTime(item.lease_expires_at)}` : '';
  return `${item.id}  ${paintStatus(item.status, paint)}${agent}${lease}  ${oneLine(item.description, 60)}\n`;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
