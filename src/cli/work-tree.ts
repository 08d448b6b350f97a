import type { WorkTree } from '../client/work-client.js';
import type { WorkItemSummary } from '../work/contract.js';
import { type Paint, oneLine } from './format.js';
import { paintStatus } from './work-view.js';

// `agentdesk work tree <id>`: an item and its sub-items as an indented tree, each line its
// status, id and description, and for a queued item that waits, what it waits on.

function line(item: WorkItemSummary, paint: Paint, width: number): string {
  const status = paintStatus(item.status, paint) + ' '.repeat(Math.max(0, width - item.status.length));
  const waits = item.status === 'queued' ? item.waiting_on : 0;
  const note = waits > 0 ? `  ${paint.yellow(`waiting on ${waits}`)}` : '';
  const agent = item.assigned_agent ? `  ${paint.dim(item.assigned_agent)}` : '';
  return `${status}  ${paint.dim(item.id)}  ${oneLine(item.description, 60)}${agent}${note}`;
}

/** Every status in the tree, so the column is as wide as its widest. */
function statusWidth(tree: WorkTree): number {
  return Math.max(tree.item.status.length, ...tree.children.map(statusWidth));
}

/** How far the children are: `3 of 5 completed`, and the failed ones, if any. */
function progress(tree: WorkTree, paint: Paint): string {
  const total = tree.children.length;
  if (total === 0) return '';
  const completed = tree.children.filter((child) => child.item.status === 'completed').length;
  const failed = tree.children.filter((child) => child.item.status === 'failed').length;
  return paint.dim(`  (${completed} of ${total} completed${failed > 0 ? `, ${failed} failed` : ''})`);
}

export function workTreeText(tree: WorkTree, paint: Paint): string {
  const width = statusWidth(tree);
  const lines = [line(tree.item, paint, width) + progress(tree, paint)];
  const walk = (node: WorkTree, indent: string) => {
    node.children.forEach((child, index) => {
      const last = index === node.children.length - 1 && !node.truncated;
      lines.push(
        `${indent}${paint.dim(last ? '└─ ' : '├─ ')}${line(child.item, paint, width)}${progress(child, paint)}`,
      );
      walk(child, indent + (last ? '   ' : paint.dim('│  ')));
    });
    if (node.truncated) lines.push(`${indent}${paint.dim('└─ … more (work tree on a sub-item shows them)')}`);
  };
  walk(tree, '');
  return `${lines.join('\n')}\n`;
}
