import type { Command } from 'commander';
import type { CliContext } from './context.js';

// `agentdesk serve` runs what `npm start` runs (src/run-services.ts); `agentdesk mcp` runs the
// MCP server on stdio (src/mcp/stdio.ts). Both load their code only when called, so the other
// commands start without Fastify or the MCP SDK.

export function registerServeCommand(program: Command, context: CliContext): void {
  program
    .command('serve')
    .description('Run the services, as `npm start` does (configured by DATABASE_URL, WORK_PORT, …; see the README)')
    .argument('[service]', 'all, work or classify', 'all')
    .action(async (service: string) => {
      context.keepRunning();
      const { runServices } = await import('../run-services.js');
      // The services own this process from here: its environment, its signals, its exit.
      await runServices(service, context.io.env as NodeJS.ProcessEnv);
    });
}

export function registerMcpCommand(program: Command, context: CliContext): void {
  program
    .command('mcp')
    .description('Run an MCP server on stdin/stdout for a running agentdesk (AGENTDESK_URL, AGENTDESK_TOKEN)')
    .action(async () => {
      const { url, token, agent, user } = context.settings();
      context.keepRunning();
      const { runStdioServer } = await import('../mcp/stdio.js');
      await runStdioServer({ baseUrl: url, token, agent, user });
    });
}
