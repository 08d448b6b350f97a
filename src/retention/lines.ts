import { flagOf, namesColumn, toWorkItem, type WorkItemRow } from '../work/index.js';
import type { WorkItem } from '../work/contract.js';
import type { ItemRows } from './store/port.js';

// One removed item as one line of an archive: the item as GET /work/{id} shows it, the rows it
// owned as stored, and the three columns the view leaves out, so a restore writes back what was there.

export const ARCHIVE_FORMAT = 1;

export interface ArchiveLine {
  format: typeof ARCHIVE_FORMAT;
  archived_at: string;
  item: WorkItem;
  history: ItemRows['history'];
  comments: ItemRows['comments'];
  questions: ItemRows['questions'];
  depends_on: string[];
  stored: Pick<WorkItemRow, 'container' | 'link_version' | 'lease_s'>;
}

export function toArchiveLine(rows: ItemRows, archivedAt: string): string {
  const { item, dispatches, history, comments, questions, dependsOn } = rows;
  const line: ArchiveLine = {
    format: ARCHIVE_FORMAT,
    archived_at: archivedAt,
    item: toWorkItem(item, dispatches),
    history,
    comments,
    questions,
    depends_on: dependsOn,
    stored: { container: item.container, link_version: item.link_version, lease_s: item.lease_s },
  };
  return JSON.stringify(line);
}

export class ArchiveLineError extends Error {
  constructor(
    readonly lineNumber: number,
    message: string,
  ) {
    super(`line ${lineNumber}: ${message}`);
    this.name = 'ArchiveLineError';
  }
}

/** The rows a line keeps, with the item's parent apart (restore links it once the parent is back). */
export function fromArchiveLine(text: string, lineNumber: number): { rows: ItemRows; parentId: string | null } {
  let line: ArchiveLine;
  try {
    line = JSON.parse(text) as ArchiveLine;
  } catch {
    throw new ArchiveLineError(lineNumber, 'not JSON');
  }
  if (line?.format !== ARCHIVE_FORMAT || typeof line.item?.id !== 'string') {
    throw new ArchiveLineError(lineNumber, `not an archived item of format ${ARCHIVE_FORMAT}`);
  }
  const { dispatch_log, comment_count, review_required, watchers, payload, ...summary } = line.item;
  const item: WorkItemRow = {
    ...summary,
    payload: payload === null || payload === undefined ? null : JSON.stringify(payload),
    comment_count,
    review_required: flagOf(review_required),
    watchers: namesColumn(watchers),
    ...line.stored,
  };
  return {
    rows: {
      item,
      dispatches: dispatch_log,
      history: line.history ?? [],
      comments: line.comments ?? [],
      questions: line.questions ?? [],
      dependsOn: line.depends_on ?? [],
    },
    parentId: summary.parent_id,
  };
}
