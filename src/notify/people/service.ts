import type { Principal } from '../../auth/index.js';
import { NotOwnProfile, PersonNotFound, UnknownTimeZone } from './errors.js';
import type { Person, PutPerson } from './schemas.js';
import type { PeopleStore, PersonRow } from './store/port.js';

// The rules of profiles: a person reads and writes its own, an admin everyone's; a zone must be
// one this server can compute times in (the digest reads it), else the profile is refused.

export interface PeopleServiceDeps {
  store: PeopleStore;
  now?: () => Date;
}

export type PeopleService = ReturnType<typeof createPeopleService>;

/** Whether the runtime's time zone data knows `tz` (what a digest's time is computed with). */
export function isKnownTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

function assertMayUse(principal: Principal | null, name: string): void {
  if (principal === null || principal.role === 'admin' || principal.name === name) return;
  throw new NotOwnProfile(principal.name, name);
}

export function createPeopleService({ store, now = () => new Date() }: PeopleServiceDeps) {
  async function put(
    name: string,
    input: PutPerson,
    principal: Principal | null,
  ): Promise<{ person: Person; created: boolean }> {
    assertMayUse(principal, name);
    const tz = input.tz ?? null;
    if (tz !== null && !isKnownTimeZone(tz)) throw new UnknownTimeZone(tz);
    const at = now().toISOString();
    const row: PersonRow = {
      name,
      email: input.email,
      notify: input.notify,
      digest_at: input.digest_at ?? null,
      tz,
      created_at: at,
      updated_at: at,
    };
    const { person, created } = await store.put(row);
    return { person: toPerson(person), created };
  }

  async function get(name: string, principal: Principal | null): Promise<Person> {
    assertMayUse(principal, name);
    const row = await store.find(name);
    if (!row) throw new PersonNotFound(name);
    return toPerson(row);
  }

  /** An admin sees everyone; anyone else its own profile, if it has one. */
  async function list(principal: Principal | null): Promise<Person[]> {
    if (principal === null || principal.role === 'admin') return (await store.list()).map(toPerson);
    const own = await store.find(principal.name);
    return own ? [toPerson(own)] : [];
  }

  async function remove(name: string, principal: Principal | null): Promise<void> {
    assertMayUse(principal, name);
    if (!(await store.remove(name))) throw new PersonNotFound(name);
  }

  return { put, get, list, remove };
}

function toPerson(row: PersonRow): Person {
  return {
    name: row.name,
    email: row.email,
    notify: row.notify,
    digest_at: row.digest_at,
    tz: row.tz,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
