import type { Kysely, Transaction } from 'kysely';

// The one typed schema of the database: every store builds its statements on the same handle and
// the same unit of work, with no cast to its own tables.

/**
 * Starts empty, since shared knows no feature: each feature adds its tables beside their row
 * types, by module augmentation (`declare module '…/shared/db/schema.js' { interface
 * DatabaseSchema extends WorkTables {} }`). A store imports its tables file, so the augmentation
 * is part of every program that compiles the store.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the features' augmentations
export interface DatabaseSchema {}

/** The database, typed with every feature's tables. */
export type DatabaseHandle = Kysely<DatabaseSchema>;

/** One transaction of the database's runner: what a feature writes on it commits with the rest. */
export type UnitOfWork = Transaction<DatabaseSchema>;
