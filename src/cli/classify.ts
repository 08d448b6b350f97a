import type { Command } from 'commander';
import type { ClassifyResult } from '../client/classify-client.js';
import type { CliContext } from './context.js';
import { type Paint, json, paintFor } from './format.js';
import { readSource } from './options.js';

// `agentdesk classify FILE|-`: one email to the classification service (AGENTDESK_CLASSIFY_URL).

function describe(result: ClassifyResult, paint: Paint): string {
  const action = result.needs_action ? paint.yellow('needs action') : paint.dim('no action needed');
  const lines = [
    `${paint.bold(result.category)}  priority ${result.priority}  ${action}  confidence ${result.confidence.toFixed(2)}`,
  ];
  if (result.task_description) lines.push(`task: ${result.task_description}`);
  if (result.details.summary) lines.push(`summary: ${result.details.summary}`);
  if (result.details.deadline) lines.push(`deadline: ${result.details.deadline}`);
  for (const step of result.details.next_steps) lines.push(`  - ${step}`);
  lines.push(paint.dim(`why: ${result.reasoning}`));
  lines.push(
    paint.dim(`dedupe: ${result.dedupe.status} (seen ${result.dedupe.seen_count}×, on ${result.dedupe.matched_on})`),
  );
  return `${lines.join('\n')}\n`;
}

export function registerClassifyCommand(program: Command, context: CliContext): void {
  program
    .command('classify')
    .description('Classify one email: a .eml (MIME) file, or a Graph message as JSON; - reads stdin')
    .argument('<file>', 'the email, or - for stdin')
    .option('--json', 'the classification as JSON')
    .action(async (file: string, options: { json?: boolean }) => {
      // mailparser loads only here: the other commands start without it.
      const { emailOfFile } = await import('./email-file.js');
      const email = await emailOfFile(await readSource(context.io, file), file === '-' ? 'stdin' : file);
      const result = await context.classify().classify(email);
      context.io.out(options.json ? json(result) : describe(result, paintFor(context.io)));
    });
}
