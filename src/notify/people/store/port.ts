// The port of people's profiles: SQL only; who may read or change one is the service's rule.

import type { NotifyMode } from '../schemas.js';

export interface PersonRow {
  name: string;
  email: string;
  notify: NotifyMode;
  digest_at: string | null;
  tz: string | null;
  created_at: string;
  updated_at: string;
}

export interface PeopleTables {
  people: PersonRow;
}

declare module '../../../shared/db/schema.js' {
  interface DatabaseSchema extends PeopleTables {}
}

export interface PeopleStore {
  /** Writes the profile whole; `created` when there was none. An update keeps its created_at. */
  put(row: PersonRow): Promise<{ person: PersonRow; created: boolean }>;
  find(name: string): Promise<PersonRow | undefined>;
  /** Every profile, by name. */
  list(): Promise<PersonRow[]>;
  /** False when there was no such profile. */
  remove(name: string): Promise<boolean>;
}
