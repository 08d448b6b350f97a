import type { Command } from 'commander';
import type { Project } from '../work/contract.js';
import type { CliContext } from './context.js';
import { json, paintFor, relativeTime, table } from './format.js';
import { projectId } from './options.js';

// `agentdesk project ls|create|rename`: creating and renaming need an admin token.

export function registerProjectCommand(program: Command, context: CliContext): void {
  const { io } = context;
  const line = (project: Project) =>
    `${project.id}  ${project.name}${project.external_ref ? `  (${project.external_ref})` : ''}\n`;
  const project = program.command('project').description('Projects that group work items (AGENTDESK_URL)');

  project
    .command('ls')
    .alias('list')
    .description('All projects, by name')
    .option('--json', 'a JSON array')
    .action(async (options: { json?: boolean }) => {
      const projects = await context.work().listProjects();
      if (options.json) return io.out(json(projects));
      if (projects.length === 0) return io.out('No projects.\n');
      const paint = paintFor(io);
      io.out(
        table(
          ['ID', 'NAME', 'CREATED', 'EXTERNAL REF'],
          projects.map((p) => [p.id, p.name, relativeTime(p.created_at), p.external_ref ?? '-']),
          paint,
        ),
      );
    });

  project
    .command('create')
    .description('Create a project (names are unique, ignoring case)')
    .argument('<name>', 'its name')
    .option('--external-ref <ref>', 'where it lives elsewhere (a URL, a ticket key)')
    .option('--json', 'the project as JSON')
    .action(async (name: string, options: { externalRef?: string; json?: boolean }) => {
      const created = await context.work().createProject({
        name,
        ...(options.externalRef !== undefined && { external_ref: options.externalRef }),
      });
      io.out(options.json ? json(created) : line(created));
    });

  project
    .command('rename')
    .description('Rename a project')
    .argument('<project>', 'its id or current name')
    .argument('<name>', 'the new name')
    .option('--json', 'the project as JSON')
    .action(async (which: string, name: string, options: { json?: boolean }) => {
      const renamed = await context.work().updateProject(await projectId(context, which), { name });
      io.out(options.json ? json(renamed) : line(renamed));
    });
}
