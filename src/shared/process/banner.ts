// What a person who typed `npm start` needs to read first: where the desk is, what it stores
// its data in, and whether it asks for tokens. Printed once, to a terminal only (LOG_FORMAT),
// when every service listens; the log lines carry the same facts for machines.

export interface BannerFacts {
  /** The store, as a person reads it, never with a password. */
  store: string;
  auth: 'tokens' | 'off';
  /** Whether mail goes out and what it lacks (shared/config/mail.ts describeMail). */
  mail?: string;
}

export interface ReadyService {
  name: string;
  url: string;
}

/** The message a supervised service process sends its parent once it listens. */
export const READY_MESSAGE = 'agentdesk-ready';

const LABELS: Readonly<Record<string, string>> = { work: 'web UI and work API', classify: 'classifier API' };

/** The store a DATABASE_URL names, for people: the file, or the server and database without credentials. */
export function describeStore(url: string): string {
  if (url === 'sqlite::memory:') return 'SQLite, in memory (gone when it stops)';
  if (url.startsWith('sqlite:')) return `SQLite file ${url.slice('sqlite:'.length)}`;
  try {
    const parsed = new URL(url);
    return `PostgreSQL ${parsed.host}${parsed.pathname}`;
  } catch {
    return 'PostgreSQL';
  }
}

export function bannerText(services: readonly ReadyService[], facts: BannerFacts): string {
  const rows: [string, string][] = [
    ...services.map((service): [string, string] => [LABELS[service.name] ?? service.name, service.url]),
    ['store', facts.store],
    [
      'auth',
      facts.auth === 'off'
        ? 'off: an open desk for this machine; callers say who they are with X-User'
        : 'tokens: every call needs a token (agentdesk token create --role admin --name you)',
    ],
    ...(facts.mail === undefined ? [] : [['mail', facts.mail] as [string, string]]),
    ['stop', 'Ctrl-C'],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  return `\nagentdesk is running\n${rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`).join('\n')}\n\n`;
}
