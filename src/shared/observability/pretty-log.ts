import { Writable } from 'node:stream';

// Readable log lines for a person at a terminal (LOG_FORMAT=pretty, or auto on a TTY): pino still builds and
// redacts each JSON line; this only reformats it. Not pino-pretty: the format is this small, and a runtime
// dependency for it would outweigh it.

const LEVEL_NAMES: Readonly<Record<number, string>> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};
/** Fields every line carries that a person does not need to read on each. */
const HIDDEN = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'err']);

function value(field: unknown): string {
  if (typeof field === 'string') return /^[^\s"=]+$/.test(field) ? field : JSON.stringify(field);
  return JSON.stringify(field) ?? String(field);
}

/**
 * One pino JSON line as "time LEVEL message key=value …", an error's stack below; a line that is not JSON
 * passes through unchanged.
 */
export function prettyLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const time = typeof entry.time === 'string' ? entry.time.slice(11, 19) : '';
  const level = (LEVEL_NAMES[entry.level as number] ?? String(entry.level)).padEnd(5);
  const fields = Object.entries(entry)
    .filter(([key]) => !HIDDEN.has(key))
    .map(([key, field]) => `${key}=${value(field)}`);
  const err = entry.err as { message?: string; stack?: string } | undefined;
  const text = [time, level, String(entry.msg ?? ''), ...fields].filter((part) => part !== '').join(' ');
  return err ? `${text}\n    ${err.stack ?? err.message ?? value(err)}` : text;
}

/** A destination for pino that writes pretty lines to `out`. */
export function prettyDestination(out: NodeJS.WritableStream = process.stdout): Writable {
  let pending = '';
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      if (lines.length > 0) out.write(lines.map(prettyLine).join('\n') + '\n');
      done();
    },
  });
}
