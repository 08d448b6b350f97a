// The desk's own secrets (migrations/*/020_link_secret.sql): made once, read by every instance on
// the database, so a link signed by one instance is good at another.

export interface AppSecretRow {
  name: string;
  value: string;
  created_at: string;
}

export interface LinkTables {
  app_secrets: AppSecretRow;
}

declare module '../../shared/db/schema.js' {
  interface DatabaseSchema extends LinkTables {}
}
