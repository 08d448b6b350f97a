#!/usr/bin/env node
// `agentdesk <command>`: tools that work on the configured database directly, without the
// HTTP API (bootstrapping the first admin token, for one). Each command lives in its own
// file and adds itself to the program here.

import { Command } from 'commander';
import { registerTokenCommand } from './token.js';

const program = new Command('agentdesk')
  .description('agentdesk on the command line; reads the same environment as the services (DATABASE_URL, …)')
  .version('0.1.0')
  .showHelpAfterError();

const io = {
  env: process.env,
  out: (text: string) => void process.stdout.write(text),
  err: (text: string) => void process.stderr.write(text),
};
registerTokenCommand(program, io);

program.parseAsync(process.argv).catch((error: unknown) => {
  io.err(`agentdesk: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
