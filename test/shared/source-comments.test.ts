import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The house rules for comments in the shipped code: a file's header says in one to three lines
// what the file is for (longer reasoning sits beside the code it explains or in docs/), and no
// comment cites a tracker number an outside contributor cannot resolve.

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const ROOTS = ['src', 'web/src'];
const MAX_HEADER_LINES = 3;

function sourcesOf(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourcesOf(join(dir, entry.name)) : /\.tsx?$/.test(entry.name) ? [join(dir, entry.name)] : [],
  );
}

/** Lines of the first comment block after the imports. */
function headerLines(text: string): number {
  const lines = text.split('\n');
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (/^import\b/.test(line)) {
      while (i < lines.length && !/;\s*$/.test(lines[i]!)) i += 1;
      i += 1;
    } else if (line.trim() === '' || line.startsWith('#!')) i += 1;
    else break;
  }
  let count = 0;
  if (lines[i]?.startsWith('//')) while (lines[i + count]?.startsWith('//')) count += 1;
  else if (lines[i]?.startsWith('/*')) {
    while (i + count < lines.length && !lines[i + count]!.includes('*/')) count += 1;
    count += 1;
  }
  return count;
}

const files = ROOTS.flatMap((root) => sourcesOf(join(REPO, root)));

describe('comments in src/ and web/src/', () => {
  it(`open each file with a header of at most ${MAX_HEADER_LINES} lines`, () => {
    const long = files
      .map((file) => ({ file: relative(REPO, file), lines: headerLines(readFileSync(file, 'utf8')) }))
      .filter(({ lines }) => lines > MAX_HEADER_LINES)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(long).toEqual([]);
  });

  it('cite no tracker numbers', () => {
    const citing = files.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, index) => ({ line, index }))
        .filter(({ line }) => /(\/\/|\*).*(\bissues? #?\d+|#\d{1,4}\b)/i.test(line))
        .map(({ index }) => `${relative(REPO, file)}:${index + 1}`),
    );
    expect(citing).toEqual([]);
  });
});
