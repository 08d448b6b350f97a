import { type ClassifyClient, createClassifyClient } from '../client/classify-client.js';
import { ProblemError, UnreachableError } from '../client/errors.js';
import { type WorkClient, createWorkClient } from '../client/work-client.js';

// What every command shares: the environment it reads (once, here), the clients built from it,
// and how an error becomes an exit code. Commands get a CliContext and never read process.env.

/** Exit codes scripts can rely on. */
export const EXIT = {
  ok: 0,
  /** The service refused (a 4xx problem document). */
  refused: 1,
  /** The command line itself is wrong: unknown option, bad value, unreadable file. */
  usage: 2,
  /** No answer from the service (or a 5xx: it cannot serve right now). */
  unreachable: 3,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A mistake on the command line, found before anything was sent. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** The service (or its database) cannot be reached: exit 3. */
export class CannotReachError extends Error {
  override name = 'CannotReachError';
}

export interface CliIo {
  env: Readonly<Record<string, string | undefined>>;
  out(text: string): void;
  err(text: string): void;
  /** Whether stdout is a terminal: colours and other niceties only then. */
  isTTY: boolean;
  stdin: NodeJS.ReadableStream;
}

export const DEFAULT_URL = 'http://127.0.0.1:8080';
export const DEFAULT_CLASSIFY_URL = 'http://127.0.0.1:8081';

export interface CliSettings {
  /** AGENTDESK_URL: the work service. */
  url: string;
  /** AGENTDESK_CLASSIFY_URL: the classification service. */
  classifyUrl: string;
  /** AGENTDESK_TOKEN: sent as a bearer token; who the caller is comes from it. */
  token: string | undefined;
  /** AGENTDESK_AGENT: the agent to act as without a token (AUTH=off). */
  agent: string | undefined;
  /** AGENTDESK_USER: the X-User to send without a token; the agent's name when unset. */
  user: string | undefined;
}

function httpUrl(env: CliIo['env'], name: string, fallback: string): string {
  const value = env[name]?.trim() || fallback;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new UsageError(`${name} is not a URL: expected e.g. ${fallback}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new UsageError(`${name} must be an http:// or https:// URL`);
  return value.replace(/\/+$/, '');
}

export function readSettings(env: CliIo['env']): CliSettings {
  const blank = (value: string | undefined) => (value?.trim() ? value.trim() : undefined);
  const agent = blank(env.AGENTDESK_AGENT);
  return {
    url: httpUrl(env, 'AGENTDESK_URL', DEFAULT_URL),
    classifyUrl: httpUrl(env, 'AGENTDESK_CLASSIFY_URL', DEFAULT_CLASSIFY_URL),
    token: blank(env.AGENTDESK_TOKEN),
    agent,
    user: blank(env.AGENTDESK_USER) ?? agent,
  };
}

export interface CliContext {
  io: CliIo;
  settings(): CliSettings;
  work(): WorkClient;
  classify(): ClassifyClient;
  /**
   * The agent a claim, heartbeat or move acts as: --agent; else, with a token, the agent the
   * service says the token acts as; else AGENTDESK_AGENT.
   */
  agent(explicit: string | undefined): Promise<string>;
  /**
   * Called by a command that keeps running after its action returns (serve, mcp). Every other
   * command exits as soon as it is done, so a connection left open can never make a script wait.
   */
  keepRunning(): void;
  keepsRunning(): boolean;
}

const USER_AGENT = 'agentdesk-cli/0.1.0';

export function createCliContext(io: CliIo): CliContext {
  // Read lazily: `token create` on a database must work whatever AGENTDESK_URL holds.
  let settings: CliSettings | undefined;
  const read = () => (settings ??= readSettings(io.env));
  let work: WorkClient | undefined;
  let running = false;
  return {
    io,
    keepRunning: () => void (running = true),
    keepsRunning: () => running,
    settings: read,
    work() {
      const { url, token, user } = read();
      work ??= createWorkClient({ baseUrl: url, token, user, headers: { 'user-agent': USER_AGENT } });
      return work;
    },
    classify() {
      const { classifyUrl, token, user } = read();
      return createClassifyClient({ baseUrl: classifyUrl, token, user, headers: { 'user-agent': USER_AGENT } });
    },
    async agent(explicit) {
      if (explicit) return explicit;
      const { token, agent } = read();
      if (!token) {
        if (agent) return agent;
        throw new UsageError(
          'no agent: set AGENTDESK_AGENT or pass --agent (or use an agent token in AGENTDESK_TOKEN)',
        );
      }
      const session = await this.work().session();
      const own = session.principal?.agent;
      if (own) return own;
      throw new UsageError(
        `this ${session.principal?.role ?? ''} token acts as no agent: pass --agent`.replace('  ', ' '),
      );
    },
  };
}

export function exitCodeOf(error: unknown): ExitCode {
  if (error instanceof UsageError) return EXIT.usage;
  if (error instanceof UnreachableError || error instanceof CannotReachError) return EXIT.unreachable;
  if (error instanceof ProblemError) return error.status >= 500 ? EXIT.unreachable : EXIT.refused;
  return EXIT.refused;
}

/** One or more lines for stderr, naming what went wrong and, for a refusal, the fields. */
export function describeError(error: unknown): string {
  if (error instanceof ProblemError) {
    const lines = [`refused (${error.status} ${error.title}): ${error.detail}`];
    for (const field of error.errors ?? []) lines.push(`  ${field.field}: ${field.message}`);
    return lines.join('\n');
  }
  if (error instanceof UsageError) return `${error.message}\n(see --help)`;
  return error instanceof Error ? error.message : String(error);
}
