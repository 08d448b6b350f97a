// The one place that reads the environment. `main` calls `loadConfig(process.env)` once and
// passes the frozen result down; nothing below main touches process.env.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { AUTH_MODES, type AuthMode } from './auth-modes.js';
import { ConfigError } from './config-error.js';
import { type MailConfig, mailConfig } from './mail.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `auto`: readable lines and a start-up banner on a terminal, JSON lines anywhere else. */
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export const LLM_PROVIDERS = ['openai', 'anthropic', 'rules'] as const;
export type LlmProviderName = (typeof LLM_PROVIDERS)[number];

export const DEFAULT_MODELS = {
  openai: 'gpt-4.1-mini',
  anthropic: 'claude-haiku-4-5',
  rules: 'rules-v3',
} as const satisfies Record<LlmProviderName, string>;

/** USD per million tokens, as providers publish their list prices. */
export interface ModelPrice {
  input_per_million: number;
  output_per_million: number;
}
export type PriceTable = Readonly<Record<string, Readonly<ModelPrice>>>;

/**
 * List prices of the default models (USD per million tokens) as published in 2026: estimates
 * only, for a dashboard figure. Operators with other models or other terms set LLM_PRICES.
 * The rules provider runs offline and is never priced (it costs nothing).
 */
export const DEFAULT_PRICES: PriceTable = {
  [DEFAULT_MODELS.openai]: { input_per_million: 0.4, output_per_million: 1.6 },
  [DEFAULT_MODELS.anthropic]: { input_per_million: 1, output_per_million: 5 },
};

/** Where `npm start` keeps its data without DATABASE_URL, relative to where it runs. */
export const DEFAULT_DATABASE_URL = 'sqlite:./data/agentdesk.db';

/** SQLITE_WAL_MAX_MB when unset. */
export const DEFAULT_SQLITE_WAL_MAX_MB = 256;

export interface DatabaseConfig {
  /** `sqlite:<path>`, `sqlite::memory:`, `postgres://…` or `postgresql://…`. */
  url: string;
  poolSize: number;
  statementTimeoutMs: number;
  /** Fault injection for a test: the first SQLite checkpointer thread exits after this many checkpoints. */
  sqliteCheckpointerExitAfter?: number | null;
  /** SQLite: the WAL's size (MiB) past which writers are held for a RESTART checkpoint; 0 = never; DEFAULT_SQLITE_WAL_MAX_MB when left out. */
  sqliteWalMaxMb?: number;
}

export interface LlmConfig {
  provider: LlmProviderName;
  model: string;
  /** null means the provider's public endpoint. */
  baseUrl: string | null;
  apiKey: string | null;
  temperature: number;
  timeoutMs: number;
  maxRetries: number;
  /** Bounds on provider calls (src/classify/provider-limiter.ts). */
  limits: {
    /** LLM_CONCURRENCY: calls one caller may have in flight. */
    perCaller: number;
    /** LLM_QUEUE: calls one caller may have waiting for a slot; one more is a 429. */
    queue: number;
    /** LLM_TOTAL_CONCURRENCY: calls in flight in the process, all callers together. */
    total: number;
  };
  /** The built-in prices with LLM_PRICES laid over them, by model name. */
  prices: PriceTable;
}

export interface AuthConfig {
  /** `tokens`: every route but the public ones needs a credential; `off`: today's open desk. */
  mode: AuthMode;
  /** SHA-256 (hex) of AGENTDESK_ADMIN_TOKEN; the secret itself is not kept. */
  adminTokenHash: string | null;
  /**
   * The Host names served besides loopback addresses (DNS rebinding guard): every route with
   * AUTH=off; /mcp also with AUTH=tokens (see src/mcp/http.ts).
   */
  allowedHosts: readonly string[];
  /** 401s one address may collect per minute before it is answered 429 for the rest of it. */
  failureLimit: number;
  /** How long a browser session lasts after sign-in. */
  sessionTtlMs: number;
}

export interface IntakeConfig {
  /** AGENTDESK_SECRET_KEY as 64 hex digits: seals mailbox secrets (AES-256-GCM); null when unset. */
  secretKey: string | null;
  /** Whether this instance watches mailboxes (INTAKE_WORKER); the API answers either way. */
  worker: boolean;
  /** How often a watched mailbox is synchronised even when IDLE reported nothing. */
  pollIntervalMs: number;
  /** How long a mailbox stays with the instance that watches it after its last renewal. */
  leaseMs: number;
  /** The longest wait between two reconnection attempts. */
  reconnectMaxMs: number;
  /** Messages of one mailbox classified at the same time (their outcomes are still written in order). */
  concurrency: number;
  /** The largest .eml or mbox upload POST /mailboxes/{id}/import accepts. */
  importMaxBytes: number;
  /** Microsoft Graph, and where its tokens are issued: the public endpoints unless told (a test's fake). */
  graphUrl: string;
  graphLoginUrl: string;
}

/** Every connection this server opens to a host someone typed: an LLM base_url, a mailbox, a webhook. */
export interface OutboundConfig {
  /**
   * OUTBOUND_ALLOWED_HOSTS with its older names (INTAKE_ALLOWED_HOSTS, LLM_ALLOWED_HOSTS) joined:
   * hosts that may be on a loopback or private network, as names, addresses or CIDR ranges.
   * Link-local and cloud metadata addresses are refused even when listed (src/shared/net/ssrf.ts).
   */
  allowedHosts: readonly string[];
}

/** OpenTelemetry export (src/shared/observability/tracing.ts); null, the default, means no tracing at all. */
export interface TracingConfig {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's base URL; spans go to `<endpoint>/v1/traces`. */
  endpoint: string;
  /** OTEL_SERVICE_NAME; null names each service `agentdesk-work` or `agentdesk-classify`. */
  serviceName: string | null;
  /** OTEL_EXPORTER_OTLP_HEADERS (a collector's credentials, often): sent with every export, never logged. */
  headers: Readonly<Record<string, string>>;
}

/**
 * Fastify's `trustProxy`: which peers may name the client in X-Forwarded-For. `false` (the
 * default): nobody, the client is the TCP peer; `true`: every peer; a number: that many proxy
 * hops in front; a list: peers at these addresses or CIDR ranges (or proxy-addr's `loopback`,
 * `linklocal`, `uniquelocal`). The failure limit and the request log read the client it gives.
 */
export type TrustProxy = boolean | number | readonly string[];

/** How long a client may take to send a request, and how many connections one address may hold. */
export interface RequestLimits {
  /** REQUEST_TIMEOUT_MS: a body must arrive within this of its headers, for a caller a credential identified. */
  requestTimeoutMs: number;
  /** REQUEST_TIMEOUT_UNAUTHENTICATED_MS: the same for everyone else, and the bound on the headers. */
  requestTimeoutUnauthenticatedMs: number;
  /** BODY_IDLE_TIMEOUT_MS: the longest pause inside a body. */
  bodyIdleTimeoutMs: number;
  /** BODY_IDLE_TIMEOUT_UNAUTHENTICATED_MS: the same before a credential identified the caller. */
  bodyIdleTimeoutUnauthenticatedMs: number;
  /** MAX_CONNECTIONS_PER_ADDRESS: open connections one client address may hold; 0 is no cap. */
  maxConnectionsPerAddress: number;
}

/** Signed answer links and reply addresses (src/notify/links). */
export interface AnswerLinksConfig {
  /** LINK_SECRET, or the contents of LINK_SECRET_FILE; null: the one kept in the database (made on first start). Never logged. */
  secret: string | null;
  /** ANSWER_LINK_TTL in seconds: how long an answer link works after its email was written. */
  ttlS: number;
}

export interface Config {
  host: string;
  requests: RequestLimits;
  trustProxy: TrustProxy;
  workPort: number;
  classifyPort: number;
  logLevel: LogLevel;
  logFormat: LogFormat;
  database: DatabaseConfig;
  llm: LlmConfig;
  classify: {
    allowOverrides: boolean;
    maxChars: number;
    dedupeRetentionDays: number;
    /** POST /classify calls each credential may make per minute (duplicates served from the store are free). */
    rateLimit: number;
  };
  auth: AuthConfig;
  /** Where the work service (and its UI) reaches the classification service. */
  classifyUrl: string;
  intake: IntakeConfig;
  outbound: OutboundConfig;
  tracing: TracingConfig | null;
  metrics: {
    /**
     * METRICS_MAX_TYPES: work item types with a `type` label of their own in /metrics and a line
     * of their own in /work/stats (the most frequent); the rest are counted as `other`.
     */
    maxTypes: number;
  };
  events: {
    /** EVENTS_RETENTION_DAYS: how long the event log keeps an event for clients that resume. */
    retentionDays: number;
  };
  /** Final items past RETENTION_DAYS leave the database for gzip archives (src/retention). */
  retention: {
    /** RETENTION_DAYS: how long a final item stays after its last change; null: kept for ever. */
    days: number | null;
    /** ARCHIVE_DIR: where the day files of removed items are written; required with RETENTION_DAYS. */
    archiveDir: string | null;
  };
  questions: {
    /** QUESTION_WAITS_PER_CALLER: answers one caller may wait for at once (`wait_s`); past it, 429. */
    waitsPerCaller: number;
  };
  webhooks: {
    /** WEBHOOK_RETENTION_DAYS: deliveries older than this are purged. */
    retentionDays: number;
    /** WEBHOOK_LEASE_S: how long a sender holds an endpoint it took (a dead one's pass to another after it). */
    leaseMs: number;
  };
  /** The work service as an A2A agent (src/a2a). */
  a2a: {
    /** A2A_SKILLS: the work types the card names as skills; empty: the types the desk has seen. */
    skills: string[];
    /** A2A_DEFAULT_TYPE: the type of a task whose message names no skill. */
    defaultType: string;
    /** A2A_BLOCKING_WAIT_S: how long a blocking SendMessage waits before it answers the task as it stands. */
    blockingWaitMs: number;
    /** A2A_PUSH_GRACE_DAYS: how long a task's push notification configs outlive its end. */
    pushGraceDays: number;
  };
  /** Mail out (src/notify): SMTP, the sender, the links' base and the reply address (mail.ts). */
  mail: MailConfig;
  answerLinks: AnswerLinksConfig;
}

// The list of variables for people (docs/configuration.md) lives beside this file.
export { CONFIG_GROUPS, CONFIG_VARIABLES, type ConfigVariable } from './variables.js';

export { ConfigError };

type Env = Readonly<Record<string, string | undefined>>;

function read(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `expected an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `expected ${min}–${max}, got ${value}`);
  return value;
}

function retentionConfig(env: Env): Config['retention'] {
  const days = read(env, 'RETENTION_DAYS') === undefined ? null : integer(env, 'RETENTION_DAYS', 0, 1, 36_500);
  const archiveDir = read(env, 'ARCHIVE_DIR') ?? null;
  // Removing items with nowhere to keep them would lose them: the archive is not optional.
  if (days !== null && archiveDir === null) {
    throw new ConfigError('ARCHIVE_DIR', 'RETENTION_DAYS removes final items: set ARCHIVE_DIR to where they are kept');
  }
  return { days, archiveDir };
}

function decimal(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || !/^-?\d+(\.\d+)?$/.test(raw)) {
    throw new ConfigError(name, `expected a number, got "${raw}"`);
  }
  if (value < min || value > max) throw new ConfigError(name, `expected ${min}–${max}, got ${value}`);
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = read(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['true', '1', 'yes', 'on'].includes(raw)) return true;
  if (['false', '0', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(name, `expected true or false, got "${raw}"`);
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[]): T | undefined {
  const raw = read(env, name);
  if (raw === undefined) return undefined;
  const value = raw.toLowerCase();
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ConfigError(name, `expected one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return value as T;
}

function httpUrl(env: Env, name: string): string | undefined {
  const raw = read(env, name);
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `expected an http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(name, `expected an http(s) URL, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

function databaseUrl(env: Env): string {
  const raw = read(env, 'DATABASE_URL') ?? DEFAULT_DATABASE_URL;
  if (/^sqlite:.+/.test(raw)) return raw;
  if (/^postgres(ql)?:\/\/.+/.test(raw)) {
    try {
      new URL(raw);
    } catch {
      throw new ConfigError('DATABASE_URL', 'is not a valid postgres:// URL');
    }
    return raw;
  }
  // Never echo the value: a postgres URL may carry a password.
  throw new ConfigError('DATABASE_URL', 'expected sqlite:<path>, sqlite::memory: or postgres://…');
}

function chooseProvider(env: Env, openAiKey?: string, anthropicKey?: string): LlmProviderName {
  const explicit = oneOf(env, 'LLM_PROVIDER', LLM_PROVIDERS);
  if (explicit) return explicit;
  if (openAiKey) return 'openai';
  if (anthropicKey) return 'anthropic';
  // A bare LLM_API_KEY most often belongs to an OpenAI-compatible server.
  return read(env, 'LLM_API_KEY') !== undefined ? 'openai' : 'rules';
}

function llmConfig(env: Env): LlmConfig {
  const openAiKey = read(env, 'OPENAI_API_KEY');
  const anthropicKey = read(env, 'ANTHROPIC_API_KEY');
  const provider = chooseProvider(env, openAiKey, anthropicKey);
  const fallbackKey = provider === 'openai' ? openAiKey : provider === 'anthropic' ? anthropicKey : undefined;
  return {
    provider,
    model: read(env, 'LLM_MODEL') ?? DEFAULT_MODELS[provider],
    baseUrl: httpUrl(env, 'LLM_BASE_URL') ?? null,
    apiKey: read(env, 'LLM_API_KEY') ?? fallbackKey ?? null,
    temperature: decimal(env, 'LLM_TEMPERATURE', 0, 0, 1),
    timeoutMs: integer(env, 'LLM_TIMEOUT_MS', 30_000, 100, 600_000),
    maxRetries: integer(env, 'LLM_MAX_RETRIES', 2, 0, 10),
    limits: {
      perCaller: integer(env, 'LLM_CONCURRENCY', 16, 1, 10_000),
      queue: integer(env, 'LLM_QUEUE', 64, 0, 100_000),
      total: integer(env, 'LLM_TOTAL_CONCURRENCY', 512, 1, 100_000),
    },
    prices: llmPrices(env),
  };
}

const PRICE_FIELDS = ['input_per_million', 'output_per_million'] as const;
const PRICES_SHAPE = '{ "<model>": { "input_per_million": <USD>, "output_per_million": <USD> }, … }';

/**
 * LLM_PRICES names a JSON file of prices per model, laid over DEFAULT_PRICES. The errors name
 * the file, the model and the field, never a value or the text around a JSON fault: a path
 * set to the wrong file (one holding keys) must not print that file in a startup log.
 */
function llmPrices(env: Env): PriceTable {
  const path = read(env, 'LLM_PRICES');
  if (path === undefined) return DEFAULT_PRICES;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError('LLM_PRICES', `cannot read ${path}${code ? ` (${code})` : ''}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError('LLM_PRICES', `${path} is not valid JSON; expected ${PRICES_SHAPE}`);
  }
  if (!isPlainObject(parsed)) throw new ConfigError('LLM_PRICES', `${path} must hold one JSON object: ${PRICES_SHAPE}`);
  // No prototype: a model named "__proto__" or "constructor" is just a name.
  const prices = Object.assign(Object.create(null) as Record<string, ModelPrice>, DEFAULT_PRICES);
  for (const [model, entry] of Object.entries(parsed)) {
    const name = JSON.stringify(model.length > 64 ? `${model.slice(0, 64)}…` : model);
    if (model.trim() === '') throw new ConfigError('LLM_PRICES', `${path}: a model name is empty`);
    if (!isPlainObject(entry) || Object.keys(entry).some((key) => !(PRICE_FIELDS as readonly string[]).includes(key))) {
      throw new ConfigError(
        'LLM_PRICES',
        `${path}: model ${name} must be an object with exactly input_per_million and output_per_million`,
      );
    }
    for (const field of PRICE_FIELDS) {
      const value = entry[field];
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1_000_000) {
        throw new ConfigError(
          'LLM_PRICES',
          `${path}: model ${name}: ${field} must be a number of USD per million tokens, 0 to 1000000`,
        );
      }
    }
    prices[model] = {
      input_per_million: entry.input_per_million as number,
      output_per_million: entry.output_per_million as number,
    };
  }
  return prices;
}

const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

function trustProxy(env: Env): TrustProxy {
  const raw = read(env, 'TRUST_PROXY');
  if (raw === undefined || raw.toLowerCase() === 'false') return false;
  if (raw.toLowerCase() === 'true') return true;
  if (/^\d+$/.test(raw)) return integer(env, 'TRUST_PROXY', 0, 1, 64);
  const entries = raw.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const [address = '', bits, ...rest] = entry.split('/');
    const family = isIP(address);
    const validBits = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (!(PROXY_RANGE_NAMES.includes(entry) || (family !== 0 && validBits && rest.length === 0))) {
      throw new ConfigError(
        'TRUST_PROXY',
        `expected true, false, a hop count, or a comma-separated list of addresses and CIDR ranges; "${entry}" is none of these`,
      );
    }
  }
  return Object.freeze(entries);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `localhost`, 127.0.0.0/8 and ::1 (bracketed or not): addresses only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return name === 'localhost' || name.endsWith('.localhost') || name === '::1' || /^127(\.\d{1,3}){3}$/.test(name);
}

const AUTH_CONSENT = 'AUTH_OFF_I_UNDERSTAND_THE_RISK';
const MIN_ADMIN_TOKEN_LENGTH = 32;

function authConfig(env: Env, host: string): AuthConfig {
  const loopback = isLoopbackHost(host);
  const mode = oneOf(env, 'AUTH', AUTH_MODES) ?? (loopback ? 'off' : 'tokens');
  if (mode === 'off' && !loopback && !boolean(env, AUTH_CONSENT, false)) {
    throw new ConfigError(
      'AUTH',
      `AUTH=off with HOST=${host} lets anyone who reaches this port act as anyone. ` +
        `Use AUTH=tokens, bind HOST to a loopback address, or set ${AUTH_CONSENT}=true to run open anyway.`,
    );
  }
  // Never echo this one: it is a secret.
  const adminToken = env.AGENTDESK_ADMIN_TOKEN;
  if (adminToken !== undefined && adminToken !== '' && adminToken.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new ConfigError('AGENTDESK_ADMIN_TOKEN', `must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters long`);
  }
  return {
    mode,
    adminTokenHash: adminToken ? createHash('sha256').update(adminToken, 'utf8').digest('hex') : null,
    allowedHosts: Object.freeze(
      (read(env, 'ALLOWED_HOSTS') ?? '')
        .split(',')
        .map((name) => name.trim().toLowerCase())
        .filter(Boolean),
    ),
    failureLimit: integer(env, 'AUTH_FAILURE_LIMIT', 30, 1, 1_000_000),
    sessionTtlMs: integer(env, 'SESSION_TTL_HOURS', 12, 1, 24 * 366) * 60 * 60 * 1000,
  };
}

/**
 * 32 bytes as 64 hex digits or as base64; answered as hex. Never echoed: it is a secret, and a
 * mistake in it must not land in a log.
 */
function secretKey(env: Env): string | null {
  const raw = read(env, 'AGENTDESK_SECRET_KEY');
  if (raw === undefined) return null;
  if (/^[0-9a-fA-F]{64}$/.test(raw)) return raw.toLowerCase();
  if (/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(raw)) {
    const bytes = Buffer.from(raw.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (bytes.length === 32) return bytes.toString('hex');
  }
  throw new ConfigError(
    'AGENTDESK_SECRET_KEY',
    'must be 32 random bytes written as 64 hex digits or as base64 (e.g. the output of `openssl rand -hex 32`)',
  );
}

function intakeConfig(env: Env): IntakeConfig {
  return {
    secretKey: secretKey(env),
    worker: boolean(env, 'INTAKE_WORKER', true),
    pollIntervalMs: integer(env, 'INTAKE_POLL_S', 60, 1, 86_400) * 1000,
    leaseMs: integer(env, 'INTAKE_LEASE_S', 30, 2, 3_600) * 1000,
    reconnectMaxMs: integer(env, 'INTAKE_RECONNECT_MAX_S', 60, 1, 3_600) * 1000,
    concurrency: integer(env, 'INTAKE_CONCURRENCY', 8, 1, 64),
    importMaxBytes: integer(env, 'INTAKE_IMPORT_MAX_MB', 100, 1, 4_096) * 1024 * 1024,
    graphUrl: httpUrl(env, 'INTAKE_GRAPH_URL') ?? 'https://graph.microsoft.com/v1.0',
    graphLoginUrl: httpUrl(env, 'INTAKE_GRAPH_LOGIN_URL') ?? 'https://login.microsoftonline.com',
  };
}

/** The older names are still read, each entry joined to the one list; an error names the variable it came from. */
const OUTBOUND_ALLOWED_HOSTS_NAMES = ['OUTBOUND_ALLOWED_HOSTS', 'INTAKE_ALLOWED_HOSTS', 'LLM_ALLOWED_HOSTS'] as const;

function outboundConfig(env: Env): OutboundConfig {
  const entries = OUTBOUND_ALLOWED_HOSTS_NAMES.flatMap((name) => allowedHostEntries(env, name));
  return { allowedHosts: Object.freeze([...new Set(entries)]) };
}

/** Host names, addresses (IPv6 with or without brackets) and CIDR ranges, comma-separated. */
function allowedHostEntries(env: Env, name: string): string[] {
  const entries = (read(env, name) ?? '')
    .split(',')
    .map((entry) =>
      entry
        .trim()
        .toLowerCase()
        .replace(/^\[(.*)\]$/, '$1'),
    )
    .filter(Boolean);
  for (const entry of entries) {
    const [network, prefix, extra] = entry.split('/');
    if (prefix === undefined) continue;
    const version = isIP(network!);
    const bits = /^\d{1,3}$/.test(prefix) ? Number(prefix) : -1;
    if (extra !== undefined || version === 0 || bits < 0 || bits > (version === 4 ? 32 : 128)) {
      throw new ConfigError(name, `"${entry}" is neither a host name, an address nor a CIDR range (e.g. 10.0.0.0/8)`);
    }
  }
  return entries;
}

const MIN_LINK_SECRET_LENGTH = 32;
const DURATION_UNITS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3_600, d: 86_400 };

/**
 * A secret given inline or as a file (`<NAME>_FILE`, the Docker secrets convention), never both.
 * The value is never echoed, and neither is the file's text: a wrong path must not print a key.
 */
function secretOrFile(env: Env, name: string, minLength: number): string | null {
  const inline = read(env, name);
  const path = read(env, `${name}_FILE`);
  if (inline !== undefined && path !== undefined) {
    throw new ConfigError(name, `set ${name} or ${name}_FILE, not both`);
  }
  let value = inline;
  if (path !== undefined) {
    try {
      value = readFileSync(path, 'utf8').trim();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new ConfigError(`${name}_FILE`, `cannot read ${path}${code ? ` (${code})` : ''}`);
    }
  }
  if (value === undefined) return null;
  if (value.length < minLength) {
    throw new ConfigError(path === undefined ? name : `${name}_FILE`, `must be at least ${minLength} characters long`);
  }
  return value;
}

/** Seconds: a bare integer, or one with a unit (`90s`, `30m`, `12h`, `7d`). */
function duration(env: Env, name: string, fallbackS: number, minS: number, maxS: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallbackS;
  const match = /^(\d+)\s*([smhd]?)$/i.exec(raw);
  if (!match) throw new ConfigError(name, `expected seconds, or a number with s, m, h or d (e.g. 7d), got "${raw}"`);
  const seconds = Number(match[1]) * DURATION_UNITS[(match[2] || 's').toLowerCase()]!;
  if (seconds < minS || seconds > maxS) {
    throw new ConfigError(name, `expected ${minS}–${maxS} seconds, got ${seconds}`);
  }
  return seconds;
}

function answerLinksConfig(env: Env): AnswerLinksConfig {
  return {
    secret: secretOrFile(env, 'LINK_SECRET', MIN_LINK_SECRET_LENGTH),
    ttlS: duration(env, 'ANSWER_LINK_TTL', 7 * 86_400, 60, 366 * 86_400),
  };
}

/** Only what the OTLP/HTTP JSON exporter sends; `http/protobuf` would need another exporter package. */
const OTLP_PROTOCOL = 'http/json';

/** `key=value` pairs, comma-separated, values percent-encoded (the OpenTelemetry convention). */
function otlpHeaders(env: Env): Record<string, string> {
  const raw = read(env, 'OTEL_EXPORTER_OTLP_HEADERS');
  const headers: Record<string, string> = {};
  if (raw === undefined) return headers;
  for (const pair of raw.split(',')) {
    if (pair.trim() === '') continue;
    const equals = pair.indexOf('=');
    const name = pair.slice(0, equals).trim().toLowerCase();
    // Never echo a value: these usually carry the collector's API key.
    if (equals <= 0 || !/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name)) {
      throw new ConfigError('OTEL_EXPORTER_OTLP_HEADERS', 'expected name=value pairs separated by commas');
    }
    try {
      headers[name] = decodeURIComponent(pair.slice(equals + 1).trim());
    } catch {
      throw new ConfigError('OTEL_EXPORTER_OTLP_HEADERS', `the value of ${name} is not valid percent-encoding`);
    }
  }
  return headers;
}

function tracingConfig(env: Env): TracingConfig | null {
  const endpoint = httpUrl(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (endpoint === undefined) return null;
  for (const name of ['OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL']) {
    const protocol = read(env, name);
    if (protocol !== undefined && protocol !== OTLP_PROTOCOL) {
      throw new ConfigError(name, `only ${OTLP_PROTOCOL} is supported, got "${protocol}"`);
    }
  }
  return { endpoint, serviceName: read(env, 'OTEL_SERVICE_NAME') ?? null, headers: otlpHeaders(env) };
}

/** The shorter bounds apply before authentication: a longer one there would be a mistake. */
function requestLimits(env: Env): RequestLimits {
  const requestTimeoutMs = integer(env, 'REQUEST_TIMEOUT_MS', 60_000, 100, 3_600_000);
  const bodyIdleTimeoutMs = integer(env, 'BODY_IDLE_TIMEOUT_MS', 15_000, 100, 3_600_000);
  return {
    requestTimeoutMs,
    requestTimeoutUnauthenticatedMs: integer(
      env,
      'REQUEST_TIMEOUT_UNAUTHENTICATED_MS',
      Math.min(10_000, requestTimeoutMs),
      100,
      requestTimeoutMs,
    ),
    bodyIdleTimeoutMs,
    bodyIdleTimeoutUnauthenticatedMs: integer(
      env,
      'BODY_IDLE_TIMEOUT_UNAUTHENTICATED_MS',
      Math.min(5_000, bodyIdleTimeoutMs),
      100,
      bodyIdleTimeoutMs,
    ),
    maxConnectionsPerAddress: integer(env, 'MAX_CONNECTIONS_PER_ADDRESS', 256, 0, 1_000_000),
  };
}

export function loadConfig(env: Env): Readonly<Config> {
  const host = read(env, 'HOST') ?? '127.0.0.1';
  const classifyPort = integer(env, 'CLASSIFY_PORT', 8081, 0, 65_535);
  const config: Config = {
    host,
    requests: requestLimits(env),
    trustProxy: trustProxy(env),
    workPort: integer(env, 'WORK_PORT', 8080, 0, 65_535),
    classifyPort,
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS) ?? 'info',
    logFormat: oneOf(env, 'LOG_FORMAT', LOG_FORMATS) ?? 'auto',
    database: {
      url: databaseUrl(env),
      poolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1_000),
      statementTimeoutMs: integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 5_000, 1, 3_600_000),
      sqliteCheckpointerExitAfter:
        read(env, 'TEST_SQLITE_CHECKPOINTER_EXIT_AFTER') === undefined
          ? null
          : integer(env, 'TEST_SQLITE_CHECKPOINTER_EXIT_AFTER', 1, 1, 1_000_000),
      sqliteWalMaxMb: integer(env, 'SQLITE_WAL_MAX_MB', DEFAULT_SQLITE_WAL_MAX_MB, 0, 1_048_576),
    },
    llm: llmConfig(env),
    classify: {
      allowOverrides: boolean(env, 'CLASSIFY_ALLOW_OVERRIDES', true),
      maxChars: integer(env, 'CLASSIFY_MAX_CHARS', 6_000, 200, 1_000_000),
      dedupeRetentionDays: integer(env, 'DEDUPE_RETENTION_DAYS', 30, 1, 36_500),
      rateLimit: integer(env, 'CLASSIFY_RATE_LIMIT', 60, 1, 1_000_000),
    },
    auth: authConfig(env, host),
    classifyUrl:
      httpUrl(env, 'CLASSIFY_URL') ??
      `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${classifyPort}`,
    intake: intakeConfig(env),
    outbound: outboundConfig(env),
    tracing: tracingConfig(env),
    metrics: { maxTypes: integer(env, 'METRICS_MAX_TYPES', 50, 1, 10_000) },
    events: { retentionDays: integer(env, 'EVENTS_RETENTION_DAYS', 30, 1, 36_500) },
    retention: retentionConfig(env),
    questions: { waitsPerCaller: integer(env, 'QUESTION_WAITS_PER_CALLER', 100, 1, 100_000) },
    a2a: a2aConfig(env),
    mail: mailConfig(env),
    answerLinks: answerLinksConfig(env),
    webhooks: {
      retentionDays: integer(env, 'WEBHOOK_RETENTION_DAYS', 30, 1, 36_500),
      leaseMs: integer(env, 'WEBHOOK_LEASE_S', 60, 1, 3_600) * 1000,
    },
  };
  return deepFreeze(config);
}

/** A work type as the API accepts it (WorkTypeSchema's pattern). */
const WORK_TYPE = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;

function workType(name: string, value: string): string {
  if (!WORK_TYPE.test(value))
    throw new ConfigError(name, `expected a work type (letters, digits, _.:-), got "${value}"`);
  return value;
}

function a2aConfig(env: Env): Config['a2a'] {
  const skills = (read(env, 'A2A_SKILLS') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => workType('A2A_SKILLS', entry));
  return {
    skills: [...new Set(skills)],
    defaultType: workType('A2A_DEFAULT_TYPE', read(env, 'A2A_DEFAULT_TYPE') ?? 'task'),
    blockingWaitMs: integer(env, 'A2A_BLOCKING_WAIT_S', 30, 0, 600) * 1000,
    pushGraceDays: integer(env, 'A2A_PUSH_GRACE_DAYS', 7, 1, 365),
  };
}

function deepFreeze<T>(value: T): Readonly<T> {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
