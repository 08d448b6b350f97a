// The A2A tables (migrations/*/028_a2a_contexts.sql). Times are ISO text on both databases.

export interface A2aContextRow {
  item_id: string;
  context_id: string;
  created_by: string;
  created_at: string;
}

export interface A2aTables {
  a2a_contexts: A2aContextRow;
}

declare module '../../shared/db/schema.js' {
  interface DatabaseSchema extends A2aTables {}
}
