// The configuration page is generated from CONFIG_VARIABLES (scripts/config-doc.mjs); this test
// keeps the three in step: every variable loadConfig reads is listed, every listed one is read,
// and docs/configuration.md holds exactly the table the list gives. A failure here is fixed by
// adding the entry in src/shared/config/variables.ts and running `npm run docs:config`.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIG_GROUPS, CONFIG_VARIABLES, loadConfig } from '../../src/shared/config/config.js';
import { DOC_PATH, renderConfigTable, tableInDoc } from '../../scripts/config-doc.mjs';

const CONFIG_SOURCE = new URL('../../src/shared/config/config.ts', import.meta.url);

/** The variables loadConfig looks up for this environment, found by watching its reads. */
function variablesRead(env: Record<string, string>): Set<string> {
  const seen = new Set<string>();
  const watched = new Proxy(env, {
    get(target, key) {
      if (typeof key === 'string') seen.add(key);
      return target[key as string];
    },
  });
  loadConfig(watched);
  return seen;
}

// Between them these reach every branch that reads a variable: the default start, and a
// network HOST run open on purpose with tracing on (the consent and the OTLP settings are
// read only then).
const ENVIRONMENTS: Record<string, string>[] = [
  {},
  {
    HOST: '0.0.0.0',
    AUTH: 'off',
    AUTH_OFF_I_UNDERSTAND_THE_RISK: 'true',
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
    LLM_PROVIDER: 'rules',
  },
];

const listed = CONFIG_VARIABLES.map((variable) => variable.name);

describe('the configuration list and its page', () => {
  it('names each variable once, in a known group, with a default and a meaning', () => {
    expect(new Set(listed).size).toBe(listed.length);
    for (const variable of CONFIG_VARIABLES) {
      expect(Object.keys(CONFIG_GROUPS), variable.name).toContain(variable.group);
      expect(variable.default.trim(), variable.name).not.toBe('');
      expect(variable.meaning.trim(), variable.name).not.toBe('');
    }
  });

  it('lists every variable loadConfig reads, and only those', () => {
    const read = new Set<string>();
    for (const env of ENVIRONMENTS) for (const name of variablesRead(env)) read.add(name);
    expect(
      [...read].filter((name) => !listed.includes(name)),
      'read by loadConfig but not in CONFIG_VARIABLES',
    ).toEqual([]);
    expect(
      listed.filter((name) => !read.has(name)),
      'in CONFIG_VARIABLES but never read by loadConfig',
    ).toEqual([]);
  });

  it('lists every variable name config.ts spells out, even one read on a branch the environments above miss', () => {
    const source = readFileSync(CONFIG_SOURCE, 'utf8').replace(/export const CONFIG_VARIABLES[\s\S]*?\n\];\n/, '');
    const named = new Set<string>();
    for (const match of source.matchAll(/['"`]([A-Z][A-Z0-9_]{2,})['"`]|\benv\.([A-Z][A-Z0-9_]*)/g)) {
      named.add((match[1] ?? match[2])!);
    }
    expect(named.size).toBeGreaterThan(10);
    expect(
      [...named].filter((name) => !listed.includes(name)),
      'named in config.ts but not in CONFIG_VARIABLES',
    ).toEqual([]);
  });

  it('docs/configuration.md holds the table the list gives (run `npm run docs:config` to rewrite it)', () => {
    const table = tableInDoc(readFileSync(DOC_PATH, 'utf8'));
    expect(table, 'docs/configuration.md lacks the config-table markers').not.toBeNull();
    expect(table).toBe(renderConfigTable(CONFIG_VARIABLES, CONFIG_GROUPS));
  });
});
