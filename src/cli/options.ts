import { readFile } from 'node:fs/promises';
import { InvalidArgumentError } from 'commander';
import type { CliContext, CliIo } from './context.js';
import { UsageError } from './context.js';

// Option parsing shared by the commands: numbers, lists, JSON from a file or stdin, and a
// project named by id or by name.

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(text: string): boolean {
  return UUID_RE.test(text);
}

/** A commander value parser for a whole number in [min, max]. */
export function integer(min: number, max: number) {
  return (value: string): number => {
    if (!/^-?\d+$/.test(value.trim())) throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}`);
    const number = Number(value);
    if (number < min || number > max) throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}`);
    return number;
  };
}

/** Repeatable and comma-separated: `--type a --type b,c` is [a, b, c]. */
export function list(value: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...value
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean),
  ];
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks);
}

/** `-` is stdin; anything else a file, read whole. */
export async function readSource(io: CliIo, source: string): Promise<Buffer> {
  if (source === '-') return readAll(io.stdin);
  try {
    return await readFile(source);
  } catch (error) {
    throw new UsageError(`cannot read ${source}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** `--payload`: inline JSON, `@file.json`, or `@-` for stdin; it must be a JSON object. */
export async function readPayload(io: CliIo, value: string): Promise<Record<string, unknown>> {
  const where = value.startsWith('@') ? value.slice(1) : null;
  const text = where === null ? value : (await readSource(io, where)).toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--payload ${where ?? ''} is not JSON: ${(error as Error).message}`.replace('  ', ' '));
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new UsageError('--payload must be a JSON object');
  return parsed as Record<string, unknown>;
}

/** A project id, or the name of one (ignoring case), as the service knows it. */
export async function projectId(context: CliContext, value: string): Promise<string> {
  if (isUuid(value)) return value.toLowerCase();
  const wanted = value.trim().toLowerCase();
  const found = (await context.work().listProjects()).find((project) => project.name.toLowerCase() === wanted);
  // Not a usage mistake: the service knows no such project (exit 1, as its 404 would be).
  if (!found) throw new Error(`no project named "${value}" (project ls shows them)`);
  return found.id;
}

/** An item id argument: checked here so a typo is a usage error, not a round trip. */
export function itemId(value: string): string {
  if (!isUuid(value)) throw new InvalidArgumentError('expected a work item id (a UUID, as work ls shows it)');
  return value.toLowerCase();
}

/** Item ids, repeatable and comma-separated (`--after a,b --after c`), each checked. */
export function itemIds(value: string, previous: string[] = []): string[] {
  return [...previous, ...list(value).map(itemId)];
}
