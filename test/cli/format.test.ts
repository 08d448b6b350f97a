import { describe, expect, it } from 'vitest';
import { oneLine, paintFor, relativeTime, table } from '../../src/cli/format.js';

// The pieces of the CLI's human output that the process tests cannot pin exactly: times
// relative to a fixed now, alignment with colour codes in the cells, truncation.

const NOW = Date.parse('2025-06-03T12:00:00.000Z');

describe('relativeTime', () => {
  it('reads past and future at the right unit, and a date beyond 30 days', () => {
    expect(relativeTime('2025-06-03T11:59:58.000Z', NOW)).toBe('just now');
    expect(relativeTime('2025-06-03T11:59:15.000Z', NOW)).toBe('45s ago');
    expect(relativeTime('2025-06-03T11:55:00.000Z', NOW)).toBe('5m ago');
    expect(relativeTime('2025-06-03T09:00:00.000Z', NOW)).toBe('3h ago');
    expect(relativeTime('2025-05-30T12:00:00.000Z', NOW)).toBe('4d ago');
    expect(relativeTime('2025-06-03T12:10:00.000Z', NOW)).toBe('in 10m');
    expect(relativeTime('2025-01-01T00:00:00.000Z', NOW)).toBe('2025-01-01');
    expect(relativeTime(null, NOW)).toBe('-');
  });
});

describe('table', () => {
  it('aligns columns by visible width, colour codes and wide characters included', () => {
    const paint = paintFor({ isTTY: true, env: {} });
    const text = table(
      ['A', 'B', 'C'],
      [
        [paint.green('completed'), 'Jürgen', 'x'],
        ['q', 'b', 'y'],
      ],
      paint,
    );
    // eslint-disable-next-line no-control-regex -- ESC starts the colour codes this strips
    const lines = text.replace(/\u001b\[[0-9;]*m/g, '').split('\n');
    expect(lines.slice(0, 3)).toEqual(['A          B       C', 'completed  Jürgen  x', 'q          b       y']);
  });

  it('paints nothing off a terminal, with NO_COLOR, or on TERM=dumb', () => {
    for (const io of [
      { isTTY: false, env: {} },
      { isTTY: true, env: { NO_COLOR: '' } },
      { isTTY: true, env: { TERM: 'dumb' } },
    ]) {
      expect(paintFor(io).red('x')).toBe('x');
    }
    expect(paintFor({ isTTY: true, env: {} }).red('x')).toBe('\u001b[31mx\u001b[39m');
  });
});

describe('oneLine', () => {
  it('flattens whitespace and cuts with an ellipsis', () => {
    expect(oneLine('a\n  b\tc', 10)).toBe('a b c');
    expect(oneLine('abcdefghijkl', 5)).toBe('abcd…');
  });
});
