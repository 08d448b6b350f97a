#!/usr/bin/env node
// `agentdesk <command>`: the work desk from a shell. Every command talks to a running service
// through the typed client (src/client), except `token` on a database (the bootstrap) and
// `serve`. Exit codes: 0 ok, 1 refused, 2 usage, 3 cannot reach the service (see context.ts).

import { Command, CommanderError } from 'commander';
import { ProblemError } from '../client/errors.js';
import { registerArchiveCommands } from './archive.js';
import { registerBackupCommand } from './backup.js';
import { registerClassifyCommand } from './classify.js';
import { registerConversationCommands } from './conversation.js';
import { EXIT, createCliContext, describeError, exitCodeOf } from './context.js';
import { json } from './format.js';
import { registerPeopleCommand } from './people.js';
import { registerSearchCommand } from './search.js';
import { registerProjectCommand } from './project.js';
import { registerScheduleCommand } from './schedule.js';
import { registerMcpCommand, registerServeCommand } from './serve.js';
import { registerTokenCommand } from './token.js';
import { registerWebhookCommand } from './webhook.js';
import { registerWorkCommand } from './work.js';

const io = {
  env: process.env,
  out: (text: string) => void process.stdout.write(text),
  err: (text: string) => void process.stderr.write(text),
  isTTY: process.stdout.isTTY === true,
  stdin: process.stdin,
};
const context = createCliContext(io);

const program = new Command('agentdesk')
  .description(
    'agentdesk on the command line. Reads AGENTDESK_URL (default http://127.0.0.1:8080), AGENTDESK_TOKEN, ' +
      'AGENTDESK_AGENT (without a token), AGENTDESK_CLASSIFY_URL (default http://127.0.0.1:8081); ' +
      'token commands use DATABASE_URL when it is set.',
  )
  .version('0.1.0')
  .showHelpAfterError('(add --help for usage)')
  // Errors come back here as exceptions, so every exit code is decided in one place below;
  // commands added after this inherit it.
  .exitOverride()
  .configureOutput({ writeOut: io.out, writeErr: io.err });
program.addHelpText(
  'after',
  '\nExit codes: 0 ok, 1 refused by the service (4xx), 2 usage error, 3 cannot reach the service (or it answered 5xx).',
);

registerConversationCommands(program, registerWorkCommand(program, context), context);
registerProjectCommand(program, context);
registerPeopleCommand(program, context);
registerWebhookCommand(program, context);
registerSearchCommand(program, context);
registerScheduleCommand(program, context);
registerTokenCommand(program, context);
registerBackupCommand(program, context);
registerArchiveCommands(program, context);
registerClassifyCommand(program, context);
registerServeCommand(program, context);
registerMcpCommand(program, context);

function exitCodeOfCommander(error: CommanderError): number {
  // --help and --version asked for are answers; help shown for a missing command is a usage error.
  return error.code === 'commander.helpDisplayed' || error.code === 'commander.version' ? EXIT.ok : EXIT.usage;
}

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = exitCodeOfCommander(error);
  } else {
    // A script asked for JSON: it gets the problem document on stdout, as it would an answer.
    if (error instanceof ProblemError && process.argv.includes('--json')) io.out(json(error.problem));
    io.err(`agentdesk: ${describeError(error)}\n`);
    process.exitCode = exitCodeOf(error);
  }
}
// Done: exit now rather than when the last socket or timer lets go, once what was written has
// been handed to the OS (pipes are asynchronous on some systems).
if (!context.keepsRunning()) {
  process.stdout.write('', () => process.stderr.write('', () => process.exit()));
}
