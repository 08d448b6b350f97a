import { readFileSync } from 'node:fs';
import { ConfigError } from './config-error.js';

// Mail out (src/notify): where mail is sent, from whom, the links' base, the reply address and the
// sender's lease. Without SMTP_URL and MAIL_FROM no mail is sent (one start-up line says so); half
// of them is refused. The SMTP password is behind a function: no log or JSON can carry it.

export interface SmtpConfig {
  /** `smtp://host:port` or `smtps://host:port`, without credentials: what logs and the banner show. */
  display: string;
  host: string;
  port: number;
  /** smtps://: TLS from the first byte; smtp:// upgrades with STARTTLS when the server offers it. */
  secure: boolean;
  user: string | null;
  /** From the URL or SMTP_PASSWORD_FILE; a function so it is never serialised with the rest. */
  password: () => string | null;
}

export interface MailConfig {
  /** null: no mail is sent. */
  smtp: SmtpConfig | null;
  /** MAIL_FROM as written (`Desk <desk@example.org>` or a bare address); null with smtp. */
  from: string | null;
  /** The domain of MAIL_FROM's address: the right-hand side of the Message-IDs the desk makes. */
  fromDomain: string | null;
  /** PUBLIC_URL without a trailing slash; null: mail carries no links. */
  publicUrl: string | null;
  /** INTAKE_REPLY_ADDRESS, a template holding `{token}`; null: mail sets no Reply-To. */
  replyAddress: string | null;
  /**
   * NOTIFY_LEASE_S in ms: how long a sender holds the rows it took. A sender killed mid-send
   * leaves its rows to go again once this has passed; shorter than a send can take, a slow
   * send may go twice.
   */
  sendLeaseMs: number;
}

type Env = Readonly<Record<string, string | undefined>>;

function read(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

const ADDRESS = /^[^\s@<>"]+@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*)$/;

/** The address inside `Name <address>`, or the bare address; its domain. */
function addressDomain(from: string): string | null {
  const inner = /<([^<>]+)>\s*$/.exec(from)?.[1] ?? from;
  return ADDRESS.exec(inner.trim())?.[1]?.toLowerCase() ?? null;
}

function smtpConfig(env: Env): SmtpConfig | null {
  const raw = read(env, 'SMTP_URL');
  const passwordFile = read(env, 'SMTP_PASSWORD_FILE');
  if (raw === undefined) {
    if (passwordFile !== undefined) throw new ConfigError('SMTP_PASSWORD_FILE', 'is set but SMTP_URL is not');
    return null;
  }
  // Never echo the value: it may carry the password.
  const shape = 'expected smtp://[user[:password]@]host[:port] or smtps://…';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('SMTP_URL', shape);
  }
  if ((url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || url.hostname === '') {
    throw new ConfigError('SMTP_URL', shape);
  }
  const secure = url.protocol === 'smtps:';
  const port = url.port === '' ? (secure ? 465 : 587) : Number(url.port);
  let user: string | null;
  let inline: string | null;
  try {
    user = url.username === '' ? null : decodeURIComponent(url.username);
    inline = url.password === '' ? null : decodeURIComponent(url.password);
  } catch {
    throw new ConfigError('SMTP_URL', 'the user or password is not valid percent-encoding');
  }
  if (inline !== null && passwordFile !== undefined) {
    throw new ConfigError('SMTP_PASSWORD_FILE', 'is set but SMTP_URL carries a password too; keep one');
  }
  let password = inline;
  if (passwordFile !== undefined) {
    try {
      password = readFileSync(passwordFile, 'utf8').replace(/\r?\n$/, '');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new ConfigError('SMTP_PASSWORD_FILE', `cannot read ${passwordFile}${code ? ` (${code})` : ''}`);
    }
    if (password === '') throw new ConfigError('SMTP_PASSWORD_FILE', `${passwordFile} is empty`);
  }
  if (password !== null && user === null)
    throw new ConfigError('SMTP_URL', 'a password needs a user (user:password@host)');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return {
    display: `${url.protocol}//${url.host}`,
    host,
    port,
    secure,
    user,
    password: () => password,
  };
}

function publicUrl(env: Env): string | null {
  const raw = read(env, 'PUBLIC_URL');
  if (raw === undefined) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('PUBLIC_URL', `expected the desk's http(s) address, got "${raw}"`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '') {
    throw new ConfigError('PUBLIC_URL', `expected the desk's http(s) address without a query, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

function replyAddress(env: Env): string | null {
  const raw = read(env, 'INTAKE_REPLY_ADDRESS');
  if (raw === undefined) return null;
  if (raw.split('{token}').length !== 2 || !ADDRESS.test(raw.replace('{token}', 'token'))) {
    throw new ConfigError(
      'INTAKE_REPLY_ADDRESS',
      `expected an address holding {token} once, e.g. desk+{token}@example.org, got "${raw}"`,
    );
  }
  return raw;
}

const LEASE_S = { fallback: 300, min: 1, max: 3_600 } as const;

function sendLeaseMs(env: Env): number {
  const raw = read(env, 'NOTIFY_LEASE_S');
  if (raw === undefined) return LEASE_S.fallback * 1000;
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= LEASE_S.min && value <= LEASE_S.max)) {
    throw new ConfigError('NOTIFY_LEASE_S', `expected whole seconds ${LEASE_S.min}–${LEASE_S.max}, got "${raw}"`);
  }
  return value * 1000;
}

export function mailConfig(env: Env): MailConfig {
  const smtp = smtpConfig(env);
  const from = read(env, 'MAIL_FROM') ?? null;
  const links = publicUrl(env);
  const reply = replyAddress(env);
  if (smtp !== null && from === null)
    throw new ConfigError('MAIL_FROM', 'is required with SMTP_URL: the sender of the mail');
  if (smtp === null && from !== null)
    throw new ConfigError('SMTP_URL', 'is required with MAIL_FROM: where mail is sent');
  const fromDomain = from === null ? null : addressDomain(from);
  if (from !== null && fromDomain === null) {
    throw new ConfigError('MAIL_FROM', `expected an address or Name <address>, got "${from}"`);
  }
  return { smtp, from, fromDomain, publicUrl: links, replyAddress: reply, sendLeaseMs: sendLeaseMs(env) };
}

/** One line for the start-up log and banner: whether mail goes out, and what it lacks. */
export function describeMail(mail: MailConfig): string {
  if (mail.smtp === null) return 'off: no SMTP_URL and MAIL_FROM, so nobody is told of questions by email';
  const parts = [`via ${mail.smtp.display} from ${mail.from}`];
  parts.push(mail.publicUrl === null ? 'no links (no PUBLIC_URL)' : `links to ${mail.publicUrl}`);
  parts.push(
    mail.replyAddress === null ? 'no reply address (no INTAKE_REPLY_ADDRESS)' : `replies to ${mail.replyAddress}`,
  );
  return parts.join('; ');
}
