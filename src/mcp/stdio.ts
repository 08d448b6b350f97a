import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createWorkClient } from '../client/work-client.js';
import { ToolRefusal } from './refusals.js';
import { createMcpServer } from './server.js';
import type { Caller } from './tools.js';

// `agentdesk mcp`: the same MCP server on stdin/stdout, for clients that only spawn processes, talking to a
// running agentdesk over HTTP. stdout carries the protocol and nothing else; diagnostics go to `log`.

export interface StdioServerOptions {
  /** AGENTDESK_URL */
  baseUrl: string;
  /** AGENTDESK_TOKEN: the agent comes from it. */
  token?: string | undefined;
  /** AGENTDESK_AGENT: who the tools act as under AUTH=off; ignored with a token. */
  agent?: string | undefined;
  /** AGENTDESK_USER: the X-User sent under AUTH=off (created_by of what is submitted); the agent when unset. */
  user?: string | undefined;
  stdin?: Readable;
  stdout?: Writable;
  /** One line of diagnostics; stderr in the CLI. */
  log?: (line: string) => void;
}

/**
 * Serves MCP on stdin/stdout until stdin ends. Who it acts as is asked of the service (GET /session) when first
 * needed, not at start: clients spawn servers eagerly, and a desk not up yet should give a tool error then.
 */
export async function runStdioServer(options: StdioServerOptions): Promise<void> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const client = createWorkClient({
    baseUrl: options.baseUrl,
    token: options.token || undefined,
    user: options.token ? undefined : options.user || options.agent || undefined,
  });

  async function whoAmI(): Promise<Caller> {
    const session = await client.session();
    if (session.auth === 'off') {
      if (!options.agent) {
        throw new ToolRefusal(
          `agentdesk at ${options.baseUrl} runs with AUTH=off: set AGENTDESK_AGENT to the agent name the tools should act as, and restart this MCP server.`,
        );
      }
      return { agent: options.agent, role: 'admin' };
    }
    const principal = session.principal;
    if (!principal) {
      throw new ToolRefusal(
        `agentdesk at ${options.baseUrl} needs a token: set AGENTDESK_TOKEN to an agent token (agentdesk token create), and restart this MCP server.`,
      );
    }
    return { agent: principal.agent ?? principal.name, role: principal.role };
  }

  // Asked once; a failure (the desk not up yet) is asked again on the next call.
  let caller: Promise<Caller> | null = null;
  const server = createMcpServer({
    client,
    caller: () => {
      caller ??= whoAmI().catch((error: unknown) => {
        caller = null;
        throw error;
      });
      return caller;
    },
    onError: (error) => log(`agentdesk mcp: ${error.message}`),
  });

  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  await server.connect(new StdioServerTransport(stdin, stdout));
  stdin.once('end', () => void server.close());
  await closed;
}
