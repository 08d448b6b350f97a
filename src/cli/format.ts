import type { CliIo } from './context.js';

// Human output: aligned tables, relative times, colours only on a terminal (and never with
// NO_COLOR or TERM=dumb). `--json` output never passes through here.

export interface Paint {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

const sgr = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;
const plain = (text: string) => text;

export function paintFor(io: Pick<CliIo, 'isTTY' | 'env'>): Paint {
  const on = io.isTTY && io.env.NO_COLOR === undefined && io.env.TERM !== 'dumb';
  if (!on) return { bold: plain, dim: plain, red: plain, green: plain, yellow: plain, cyan: plain };
  return {
    bold: sgr(1, 22),
    dim: sgr(2, 22),
    red: sgr(31, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    cyan: sgr(36, 39),
  };
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;
const visibleLength = (text: string) => [...text.replace(ANSI, '')].length;

/** Columns padded to their widest cell; the last column is not padded. */
export function table(headers: string[], rows: string[][], paint: Paint): string {
  const widths = headers.map((header, i) =>
    Math.max(visibleLength(header), ...rows.map((row) => visibleLength(row[i] ?? ''))),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - visibleLength(cell))))
      .join('  ')
      .trimEnd();
  return [paint.bold(line(headers)), ...rows.map(line)].join('\n') + '\n';
}

/** Shortened to `max` characters on one line, with an ellipsis when cut. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const chars = [...flat];
  return chars.length <= max ? flat : `${chars.slice(0, Math.max(1, max - 1)).join('')}…`;
}

const UNITS: Array<[limit: number, size: number, unit: string]> = [
  [60, 1, 's'],
  [3_600, 60, 'm'],
  [86_400, 3_600, 'h'],
  [30 * 86_400, 86_400, 'd'],
];

/** "just now", "5m ago", "in 3h"; a date past 30 days. */
export function relativeTime(iso: string | null, now: number = Date.now()): string {
  if (iso === null) return '-';
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const seconds = Math.round((at - now) / 1000);
  const size = Math.abs(seconds);
  if (size < 5) return 'just now';
  for (const [limit, unitSize, unit] of UNITS) {
    if (size < limit) {
      const amount = `${Math.floor(size / unitSize)}${unit}`;
      return seconds < 0 ? `${amount} ago` : `in ${amount}`;
    }
  }
  return iso.slice(0, 10);
}

export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
