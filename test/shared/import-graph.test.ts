import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The modules under src/ import each other without a cycle (type imports included, as
// madge counts them; a dynamic `await import()` of an optional part is not an import here);
// nothing under src/shared imports a feature; and a store's port never imports an
// implementation: each store is a port and one complete module per database, picked by the
// module above.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');
const SHARED = join(ROOT, 'shared');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

/** Each file's relative imports inside src/. */
function importGraph(): Map<string, string[]> {
  const files = new Set(sources(ROOT));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/gm)]
      .map((match) => resolve(dirname(file), match[1]!.replace(/\.js$/, '.ts')))
      .filter((target) => files.has(target));
    graph.set(file, targets);
  }
  return graph;
}

function cyclesOf(graph: Map<string, string[]>): string[] {
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const target of graph.get(file) ?? []) {
      if (state.get(target) === 'open') cycles.push([...stack.slice(stack.indexOf(target)), target].map((f) => relative(ROOT, f)).join(' → '));
      else if (!state.has(target)) visit(target);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return cycles;
}

describe('src/ imports', () => {
  const graph = importGraph();

  it('form no cycle', () => {
    expect(cyclesOf(graph)).toEqual([]);
  });

  it('src/shared imports no feature', () => {
    const reaching = [...graph].flatMap(([file, targets]) =>
      file.startsWith(SHARED) ? targets.filter((target) => !target.startsWith(SHARED)).map((target) => `${relative(ROOT, file)} → ${relative(ROOT, target)}`) : [],
    );
    expect(reaching).toEqual([]);
  });

  it.each([
    ['classify/dedupe-store', ['sqlite.ts', 'postgres.ts', 'coalesced.ts']],
    ['classify/usage-store', ['sqlite.ts', 'postgres.ts']],
    ['work/store', ['sqlite.ts', 'postgres.ts', 'batched.ts', 'transactional.ts']],
  ])('%s: the port and each database module import no implementation', (store, implementationNames) => {
    const implementations = implementationNames.map((name) => join(ROOT, store, name));
    for (const name of ['port.ts', 'sqlite.ts', 'postgres.ts']) {
      const file = join(ROOT, store, name);
      expect((graph.get(file) ?? []).filter((target) => implementations.includes(target)).map((target) => relative(ROOT, target)), name).toEqual([]);
    }
  });
});
