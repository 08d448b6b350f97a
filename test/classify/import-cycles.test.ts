import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The classifier's modules import each other without a cycle (type imports included, as madge
// counts them), and a store's port never imports an implementation: each store is a port and
// one complete module per database (dedupe-store/, usage-store/), picked by the module above.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../src/classify');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

/** Each file's relative imports inside src/classify. */
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

describe('src/classify imports', () => {
  const graph = importGraph();

  it('form no cycle', () => {
    expect(cyclesOf(graph)).toEqual([]);
  });

  it.each(['dedupe-store', 'usage-store'])('%s: the port and each database module import no implementation', (store) => {
    const implementations = ['sqlite.ts', 'postgres.ts', 'coalesced.ts'].map((name) => join(ROOT, store, name));
    for (const name of ['port.ts', 'sqlite.ts', 'postgres.ts']) {
      const file = join(ROOT, store, name);
      expect((graph.get(file) ?? []).filter((target) => implementations.includes(target)).map((target) => relative(ROOT, target)), name).toEqual([]);
    }
  });
});
