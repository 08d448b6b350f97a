import type { Kysely, Transaction } from 'kysely';

// The one typed schema of the database. Shared knows no feature, so the interface starts empty
// and each feature adds its own tables beside their row types, by module augmentation:
//
//   declare module '../shared/db/schema.js' {
//     interface DatabaseSchema extends WorkTables {}
//   }
//
// Every store then builds its statements on the same handle and the same unit of work, with no
// cast to its own tables. A store imports its tables file (a type import is enough), so the
// augmentation is part of every program that compiles the store.

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the features' augmentations
export interface DatabaseSchema {}

/** The database, typed with every feature's tables. */
export type DatabaseHandle = Kysely<DatabaseSchema>;

/** One transaction of the database's runner: what a feature writes on it commits with the rest. */
export type UnitOfWork = Transaction<DatabaseSchema>;
