import type { NotificationKind, NotificationStatus } from './schemas.js';

// The outbox's rows (migrations/*/021_notification_outbox.sql). `headers` is JSON text; times
// are ISO text on both databases (the PostgreSQL pool reads timestamptz as ISO).

export interface NotificationRow {
  id: string;
  kind: NotificationKind;
  person: string;
  address: string;
  work_item_id: string | null;
  question_id: string | null;
  message_id: string;
  subject: string;
  text_body: string;
  html_body: string;
  headers: string;
  status: NotificationStatus;
  attempts: number;
  next_attempt_at: string | null;
  claimed_until: string | null;
  last_error: string | null;
  created_at: string;
  sent_at: string | null;
}

export interface OutboxTables {
  notifications: NotificationRow;
}

declare module '../../shared/db/schema.js' {
  interface DatabaseSchema extends OutboxTables {}
}
