// The A2A tables (migrations/*/028_a2a_contexts.sql, 030_a2a_push.sql). Times are ISO text on both databases.

export interface A2aContextRow {
  item_id: string;
  context_id: string;
  created_by: string;
  created_at: string;
}

/** A push notification config as the client gave it; its endpoint does the sending. */
export interface A2aPushRow {
  task_id: string;
  id: string;
  endpoint_id: string;
  url: string;
  token: string;
  auth_scheme: string | null;
  context_id: string;
  /** The item's creator: who a question to `@creator` asks. */
  requester: string;
  created_by: string;
  created_at: string;
}

export interface A2aTables {
  a2a_contexts: A2aContextRow;
  a2a_push_configs: A2aPushRow;
}

declare module '../../shared/db/schema.js' {
  interface DatabaseSchema extends A2aTables {}
}
