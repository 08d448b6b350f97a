import type { AppSecretRow } from '../tables.js';

// What the answer links ask of the database: one named secret, written once by whichever instance
// comes first. SQL only: the secret is made by the caller.

export interface SecretStatements {
  /** Writes the row unless one of that name exists; never overwrites. */
  insertIfAbsent(row: AppSecretRow): Promise<void>;
  /** The value of the named secret; undefined when there is none. */
  read(name: string): Promise<string | undefined>;
  /** Sets the named secret's value to `next` only while it is still `current`. */
  replace(name: string, current: string, next: string): Promise<void>;
}
