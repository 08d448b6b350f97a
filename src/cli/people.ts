import { InvalidArgumentError, type Command } from 'commander';
import { NOTIFY_MODES, type NotifyMode, type Person } from '../notify/contract.js';
import type { CliContext } from './context.js';
import { json, paintFor, table } from './format.js';

// `agentdesk people list|get|set|delete`: the profiles the desk tells of questions and reviews.
// A member reaches its own (the name its token acts as), an admin everyone's.

function notifyMode(value: string): NotifyMode {
  if ((NOTIFY_MODES as readonly string[]).includes(value)) return value as NotifyMode;
  throw new InvalidArgumentError(`one of ${NOTIFY_MODES.join(', ')}`);
}

export function registerPeopleCommand(program: Command, context: CliContext): void {
  const { io } = context;
  const line = (person: Person) =>
    `${person.name}  ${person.email}  ${person.notify}${person.notify === 'digest' ? ` at ${person.digest_at ?? '-'}` : ''}${person.tz ? ` (${person.tz})` : ''}\n`;
  const people = program
    .command('people')
    .description('People told of questions and reviews by email (AUTH: a member its own profile, an admin any)');

  people
    .command('list')
    .alias('ls')
    .description('Every profile, by name (a member sees its own)')
    .option('--json', 'a JSON array')
    .action(async (options: { json?: boolean }) => {
      const found = await context.work().listPeople();
      if (options.json) return io.out(json(found));
      if (found.length === 0) return io.out('No people.\n');
      io.out(
        table(
          ['NAME', 'EMAIL', 'NOTIFY', 'DIGEST AT', 'ZONE'],
          found.map((p) => [p.name, p.email, p.notify, p.digest_at ?? '-', p.tz ?? '-']),
          paintFor(io),
        ),
      );
    });

  people
    .command('get')
    .description('One profile')
    .argument('<name>', 'the person')
    .option('--json', 'the profile as JSON')
    .action(async (name: string, options: { json?: boolean }) => {
      const person = await context.work().getPerson(name);
      io.out(options.json ? json(person) : line(person));
    });

  people
    .command('set')
    .description('Create or replace a profile (what is left out is cleared)')
    .argument('<name>', 'the person')
    .requiredOption('--email <address>', 'one address')
    .requiredOption('--notify <mode>', `how to tell: ${NOTIFY_MODES.join(', ')}`, notifyMode)
    .option('--digest-at <HH:MM>', "the time of the daily digest, in the person's zone")
    .option('--tz <zone>', 'an IANA time zone, e.g. Europe/Berlin (default UTC)')
    .option('--json', 'the profile as JSON')
    .action(
      async (
        name: string,
        options: { email: string; notify: NotifyMode; digestAt?: string; tz?: string; json?: boolean },
      ) => {
        const person = await context.work().putPerson(name, {
          email: options.email,
          notify: options.notify,
          ...(options.digestAt !== undefined && { digest_at: options.digestAt }),
          ...(options.tz !== undefined && { tz: options.tz }),
        });
        io.out(options.json ? json(person) : line(person));
      },
    );

  people
    .command('delete')
    .alias('rm')
    .description('Delete a profile: the desk tells this person nothing more')
    .argument('<name>', 'the person')
    .action(async (name: string) => {
      await context.work().deletePerson(name);
      io.out(`Deleted ${name}.\n`);
    });
}
