import type { Person } from '../../../src/notify/people/schemas.ts';
import { api } from './api.ts';
import { currentUser, isValidUserName } from './user.ts';
import type { SessionState } from './session.ts';

// People's profiles: where the desk writes to a person and how often. The modes are NOTIFY_MODES
// of the schemas, which the bundle does not load (they bring TypeBox).

export type { Person } from '../../../src/notify/people/schemas.ts';

export const NOTIFY_MODES = ['immediate', 'digest', 'off'] as const;
export type NotifyMode = (typeof NOTIFY_MODES)[number];

export const NOTIFY_HINTS: Record<NotifyMode, string> = {
  immediate: 'one email per question or review, as it opens',
  digest: 'one email a day, at the digest time, listing what waits',
  off: 'no email',
};

export interface ProfileDraft {
  email: string;
  notify: NotifyMode;
  /** HH:MM, or '' for none. */
  digest_at: string;
  /** An IANA zone, or '' for UTC. */
  tz: string;
}

export const EMPTY_PROFILE: ProfileDraft = { email: '', notify: 'immediate', digest_at: '', tz: '' };

export function draftOf(p: Person): ProfileDraft {
  return { email: p.email, notify: p.notify, digest_at: p.digest_at ?? '', tz: p.tz ?? '' };
}

export const personPath = (name: string) => `/people/${encodeURIComponent(name)}`;

/** PUT replaces the whole profile: an empty time or zone is sent as null (cleared). */
export async function putPerson(name: string, d: ProfileDraft): Promise<Person> {
  const body = {
    email: d.email.trim(),
    notify: d.notify,
    digest_at: d.digest_at === '' ? null : d.digest_at,
    tz: d.tz === '' ? null : d.tz,
  };
  return (await api<Person>('PUT', personPath(name), body)).data;
}

/** The zones this browser knows, for the zone picker; the service still checks the choice. */
export function timeZones(): string[] {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return ['UTC'];
  }
}

/** The person the signed-in caller is: its token's name, or the X-User name on an open desk. */
export function myName(session: SessionState): string | null {
  if (session.auth === 'off') return currentUser();
  return session.principal?.name ?? null;
}

/** Names typed as "ada, bob mia": split on commas and spaces, each once, in the order typed. */
export function parseNames(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter((n) => n !== ''))];
}

/** The typed names that are no person's name (the service would refuse them). */
export function badNames(names: readonly string[]): string[] {
  return names.filter((n) => !isValidUserName(n));
}
