// Writes the configuration table of docs/configuration.md from CONFIG_VARIABLES in
// src/shared/config/config.ts (read from the build: run `npm run build:server` first, or use
// `npm run docs:config`, which does). test/shared/config-doc.test.ts renders the same table
// with these functions and fails the suite when the page differs, so the two cannot drift.
//
//   node scripts/config-doc.mjs           rewrite the table between the markers
//   node scripts/config-doc.mjs --check   exit 1 if the page is not what the list gives
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const START_MARKER =
  '<!-- config-table:start (written by `npm run docs:config` from src/shared/config/variables.ts; edit the list there) -->';
export const END_MARKER = '<!-- config-table:end -->';

const cell = (text) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** One table per group, in the groups' order; variables in the list's order within a group. */
export function renderConfigTable(variables, groups) {
  const sections = [];
  for (const [group, title] of Object.entries(groups)) {
    const rows = variables.filter((variable) => variable.group === group);
    if (rows.length === 0) continue;
    sections.push(
      [
        `### ${title}`,
        '',
        '| Variable | Default | Meaning |',
        '|---|---|---|',
        ...rows.map((variable) => `| \`${variable.name}\` | ${cell(variable.default)} | ${cell(variable.meaning)} |`),
      ].join('\n'),
    );
  }
  const unknown = variables.filter((variable) => !(variable.group in groups));
  if (unknown.length > 0) throw new Error(`unknown group for ${unknown.map((variable) => variable.name).join(', ')}`);
  return sections.join('\n\n');
}

/** The text between the markers (trimmed), or null when the page lacks them. */
export function tableInDoc(doc) {
  const start = doc.indexOf(START_MARKER);
  const end = doc.indexOf(END_MARKER);
  if (start < 0 || end < start) return null;
  return doc.slice(start + START_MARKER.length, end).trim();
}

export function replaceTable(doc, table) {
  const start = doc.indexOf(START_MARKER);
  const end = doc.indexOf(END_MARKER);
  if (start < 0 || end < start) throw new Error(`the page has no ${START_MARKER} … ${END_MARKER} markers`);
  return `${doc.slice(0, start + START_MARKER.length)}\n\n${table}\n\n${doc.slice(end)}`;
}

export const DOC_PATH = fileURLToPath(new URL('../docs/configuration.md', import.meta.url));

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { CONFIG_VARIABLES, CONFIG_GROUPS } = await import(
    new URL('../dist/src/shared/config/config.js', import.meta.url).href
  );
  const doc = readFileSync(DOC_PATH, 'utf8');
  const next = replaceTable(doc, renderConfigTable(CONFIG_VARIABLES, CONFIG_GROUPS));
  if (process.argv.includes('--check')) {
    if (next !== doc) {
      console.error('docs/configuration.md is out of date with src/shared/config/config.ts: run `npm run docs:config`');
      process.exit(1);
    }
  } else if (next !== doc) {
    writeFileSync(DOC_PATH, next);
    console.log('docs/configuration.md: table rewritten');
  }
}
