import {
  decodeCursorParts,
  encodeCursorParts,
  invalidCursor,
  isListedId,
  isListedTime,
} from '../../shared/http/paging.js';
import { WorkItemNotFound, type WorkStore } from '../../work/index.js';
import { NOTIFICATION_PAGE, type Notification, type NotificationsQuery } from './schemas.js';
import type { NotificationPosition, OutboxStatements } from './store/port.js';
import type { NotificationRow } from './tables.js';

// Reading the outbox: the admins' list of what was sent or failed, and who was told of one item.

const LISTING = 'notifications';

export interface NotificationPage {
  notifications: Notification[];
  next_cursor: string | null;
}

export type NotificationService = ReturnType<typeof createNotificationService>;

export function createNotificationService({ outbox, store }: { outbox: OutboxStatements; store: WorkStore }) {
  async function list(query: NotificationsQuery): Promise<NotificationPage> {
    const limit = query.limit ?? NOTIFICATION_PAGE.default;
    const after = query.cursor === undefined ? null : decodePosition(query.cursor);
    const filter = {
      ...(query.status !== undefined && { status: query.status }),
      ...(query.work_item_id !== undefined && { work_item_id: query.work_item_id }),
      ...(query.person !== undefined && { person: query.person }),
    };
    const rows = await outbox.list(filter, after, limit + 1);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      notifications: page.map(toNotification),
      next_cursor: rows.length > limit && last ? encodeCursorParts([LISTING, last.created_at, last.id]) : null,
    };
  }

  async function listForItem(workItemId: string): Promise<Notification[]> {
    const rows = await outbox.listForItem(workItemId);
    if (rows.length === 0 && !(await store.findWorkItem(workItemId))) throw new WorkItemNotFound(workItemId);
    return rows.map(toNotification);
  }

  return { list, listForItem };
}

function decodePosition(cursor: string): NotificationPosition {
  const [what, at, id] = decodeCursorParts(cursor, 3);
  if (what !== LISTING || !isListedTime(at) || !isListedId(id)) throw invalidCursor();
  return { at, id };
}

export function toNotification(row: NotificationRow): Notification {
  return {
    id: row.id,
    kind: row.kind,
    person: row.person,
    address: row.address,
    work_item_id: row.work_item_id,
    question_id: row.question_id,
    message_id: row.message_id,
    subject: row.subject,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.next_attempt_at,
    last_error: row.last_error,
    created_at: row.created_at,
    sent_at: row.sent_at,
  };
}
