import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The modules under src/ import each other without a cycle (type imports included; a dynamic
// `await import()` of an optional part is not an import here) and only downwards in the layer
// order; a store's port never imports an implementation; the web UI bundles only declared modules.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');
const SHARED = join(ROOT, 'shared');
const WEB = resolve(ROOT, '../web/src');

// Lowest first: a folder imports its own layer and those below it, never one above.
// Files at the top of src/ (main.ts, run-services.ts) sit above everything.
const LAYERS = [
  ['shared'],
  ['auth'],
  ['email'],
  ['classify'],
  ['work'],
  ['conversation'],
  ['notify', 'webhooks'],
  ['intake'],
  ['search', 'schedules', 'retention'],
  ['client'],
  ['mcp', 'cli', 'ui-server', 'a2a'],
  ['services'],
];

// What the web UI may bundle from the server: TypeBox schemas and import-free vocabularies.
const BROWSER_SAFE = [
  'auth/roles.ts',
  'auth/schemas.ts',
  'classify/categories.ts',
  'classify/schemas.ts',
  'conversation/schemas.ts',
  'intake/schemas.ts',
  'notify/outbox/schemas.ts',
  'notify/people/schemas.ts',
  'search/schemas.ts',
  'schedules/schemas.ts',
  'shared/config/auth-modes.ts',
  'webhooks/event-names.ts',
  'webhooks/schemas.ts',
  'work/agent-loop/limits.ts',
  'work/api-contract.ts',
  'work/items/lifecycle.ts',
  'work/items/move-request.ts',
  'work/items/statuses.ts',
  'work/plans/schemas.ts',
  'work/stats/schemas.ts',
];

// Server modules the web UI may name only in `import type`, so nothing of them is bundled: the
// event names' lists, which web/src/lib/event-names.ts checks its own copy against.
const TYPE_ONLY = ['conversation/rows.ts', 'work/events/hub.ts', 'work/items/changes.ts', 'work/projects/service.ts'];

// A feature's entry files: what other folders may import of it. contract.ts holds the wire
// vocabulary (schemas, import-free lists) that clients and the CLI load without the server.
const FEATURES = [
  'auth',
  'email',
  'classify',
  'work',
  'conversation',
  'notify',
  'webhooks',
  'intake',
  'search',
  'schedules',
  'retention',
  'a2a',
];
const ENTRY_FILES = ['index.ts', 'contract.ts'];

function sourcesOf(dir: string, extensions: string[]): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourcesOf(join(dir, entry.name), extensions)
      : extensions.some((extension) => entry.name.endsWith(extension))
        ? [join(dir, entry.name)]
        : [],
  );
}

function sources(dir: string): string[] {
  return sourcesOf(dir, ['.ts']);
}

function layerOf(file: string): number {
  const top = relative(ROOT, file).split('/');
  if (top.length === 1) return LAYERS.length;
  const index = LAYERS.findIndex((layer) => layer.includes(top[0]!));
  return index === -1 ? LAYERS.length : index;
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
      if (state.get(target) === 'open')
        cycles.push([...stack.slice(stack.indexOf(target)), target].map((f) => relative(ROOT, f)).join(' → '));
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
      file.startsWith(SHARED)
        ? targets
            .filter((target) => !target.startsWith(SHARED))
            .map((target) => `${relative(ROOT, file)} → ${relative(ROOT, target)}`)
        : [],
    );
    expect(reaching).toEqual([]);
  });

  it.each([
    ['auth/store', ['sqlite.ts', 'postgres.ts']],
    ['classify/dedupe/store', ['sqlite.ts', 'postgres.ts', 'coalesced.ts']],
    ['classify/usage/store', ['sqlite.ts', 'postgres.ts']],
    ['conversation/store', ['sqlite.ts', 'postgres.ts']],
    ['work/store', ['sqlite.ts', 'postgres.ts', 'batched.ts', 'transactional.ts']],
    ['intake/store', ['sqlite.ts', 'postgres.ts']],
    ['work/events/store', ['sqlite.ts', 'postgres.ts']],
    ['work/stats/store', ['sqlite.ts', 'postgres.ts']],
  ])('%s: the port and each database module import no implementation', (store, implementationNames) => {
    const implementations = implementationNames.map((name) => join(ROOT, store, name));
    for (const name of ['port.ts', 'sqlite.ts', 'postgres.ts']) {
      const file = join(ROOT, store, name);
      expect(
        (graph.get(file) ?? [])
          .filter((target) => implementations.includes(target))
          .map((target) => relative(ROOT, target)),
        name,
      ).toEqual([]);
    }
  });

  it('follow the layer order: a folder imports only folders below it', () => {
    const upward = [...graph].flatMap(([file, targets]) => {
      const from = layerOf(file);
      return targets
        .filter((target) => layerOf(target) > from)
        .map((target) => `${relative(ROOT, file)} → ${relative(ROOT, target)}`);
    });
    expect(upward).toEqual([]);
  });

  it("reach into another feature only through that feature's entry files", () => {
    const reaching = [...graph].flatMap(([file, targets]) => {
      const from = relative(ROOT, file).split('/')[0];
      return targets
        .map((target) => relative(ROOT, target))
        .filter((target) => {
          const [feature, ...rest] = target.split('/');
          return FEATURES.includes(feature!) && feature !== from && !ENTRY_FILES.includes(rest.join('/'));
        })
        .map((target) => `${relative(ROOT, file)} → ${target}`);
    });
    expect(reaching).toEqual([]);
  });

  it('keep entry files to re-exports, and contract.ts to browser-safe modules', () => {
    for (const feature of FEATURES) {
      for (const entry of ENTRY_FILES) {
        const file = join(ROOT, feature, entry);
        if (!graph.has(file)) continue;
        const code = readFileSync(file, 'utf8')
          .replace(/^\/\/.*$/gm, '')
          .replace(/export\s+(type\s+)?\{[^}]*\}\s+from\s+'[^']+';/g, '')
          .trim();
        expect(code, `${feature}/${entry} holds only re-exports`).toBe('');
      }
      const contract = join(ROOT, feature, 'contract.ts');
      expect(
        (graph.get(contract) ?? []).map((target) => relative(ROOT, target)).filter((t) => !BROWSER_SAFE.includes(t)),
        `${feature}/contract.ts`,
      ).toEqual([]);
    }
  });

  it('put every top-level folder in a layer', () => {
    const folders = readdirSync(ROOT, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(folders.filter((folder) => !LAYERS.some((layer) => layer.includes(folder)))).toEqual([]);
  });
});

describe('web/src imports from src/', () => {
  it('only the declared browser-safe modules', () => {
    const imported = new Set<string>();
    for (const file of sourcesOf(WEB, ['.ts', '.tsx'])) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/from\s+'(\.[^']+)'/g)) {
        const target = resolve(dirname(file), match[1]!);
        if (!target.startsWith(ROOT + '/')) continue;
        const statement = text.slice(
          Math.max(text.lastIndexOf('import', match.index), text.lastIndexOf('export', match.index)),
          match.index,
        );
        if (/^import\s+type\s/.test(statement) && TYPE_ONLY.includes(relative(ROOT, target))) continue;
        imported.add(relative(ROOT, target));
      }
    }
    expect([...imported].filter((module) => !BROWSER_SAFE.includes(module))).toEqual([]);
  });
});

describe('bench/ and test/ imports', () => {
  const REPO = resolve(ROOT, '..');
  const BENCH = join(REPO, 'bench');
  const importsOf = (file: string): string[] =>
    [...readFileSync(file, 'utf8').matchAll(/(?:from\s+|import\()'(\.[^']+)'/g)].map((match) =>
      relative(REPO, resolve(dirname(file), match[1]!)),
    );

  it('test/ imports nothing from bench/ (benchmarks may use test/support, not the other way round)', () => {
    const fromBench = sources(join(REPO, 'test')).flatMap((file) =>
      importsOf(file)
        .filter((target) => target.startsWith('bench/'))
        .map((target) => `${relative(REPO, file)} -> ${target}`),
    );
    expect(fromBench).toEqual([]);
  });

  it("a bench suite imports no other suite's files, only bench/lib", () => {
    const crossed = sources(BENCH).flatMap((file) => {
      const suite = relative(BENCH, file).split('/')[0];
      return importsOf(file)
        .filter(
          (target) =>
            target.startsWith('bench/') && !target.startsWith(`bench/${suite}/`) && !target.startsWith('bench/lib/'),
        )
        .map((target) => `${relative(REPO, file)} -> ${target}`);
    });
    expect(crossed).toEqual([]);
  });
});
