import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { type TestDatabase, createTestDatabase } from '../support/databases.js';
import { type DeskProcess, killAllServers, startDesk } from '../support/processes.js';

// The README's commands, run as a new user runs them after `npm start`: every sh block that talks
// to the services, in order, in one bash, against both services started on free ports with a
// fresh SQLite file. A block that no longer runs as written fails here, not in a reader's
// terminal. Needs bash, curl and jq (.ci/run installs them). Run `npm run build:server` first.

const README = fileURLToPath(new URL('../../README.md', import.meta.url));

/** The README's ```sh blocks that call the work service (8080) or the classifier (8081). */
function serviceBlocks(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1] as string);
  return blocks.filter((block) => /127\.0\.0\.1:808[01]\b/.test(block));
}

/**
 * The blocks as one script on the given ports. Every curl fails on an HTTP error (the README's
 * `-s` hides one), and any failing command ends the script.
 */
function walkScript(blocks: readonly string[], workPort: number, classifyPort: number): string {
  const body = blocks
    .join('\n')
    .replaceAll('127.0.0.1:8080', `127.0.0.1:${workPort}`)
    .replaceAll('127.0.0.1:8081', `127.0.0.1:${classifyPort}`)
    .replace(/\bcurl -s\b/g, 'curl -sS --fail-with-body --max-time 60');
  return `set -euo pipefail\n${body}\n`;
}

function runBash(script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the README, run as written', () => {
  let database: TestDatabase | undefined;
  let desk: DeskProcess | undefined;
  afterAll(async () => {
    await killAllServers();
    await database?.destroy();
  });

  it('finds the blocks: the tour, asking a person, classifying', () => {
    const blocks = serviceBlocks(readFileSync(README, 'utf8'));
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    expect(blocks.some((block) => block.includes('/questions'))).toBe(true);
    expect(blocks.some((block) => block.includes(':8081/classify'))).toBe(true);
  });

  it('every command succeeds against started services, and says what the README says', async () => {
    database = await createTestDatabase('sqlite');
    desk = await startDesk({
      env: { DATABASE_URL: database.config.url, LLM_PROVIDER: 'rules' },
      startTimeoutMs: 90_000,
    });
    const script = walkScript(
      serviceBlocks(readFileSync(README, 'utf8')),
      desk.port,
      Number(new URL(desk.classifyUrl).port),
    );
    const run = await runBash(script);
    expect(run.code, `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`).toBe(0);
    const out = run.stdout;
    // The tour: submitted, completed, its history; asking: answered, the item resumed.
    expect(out).toMatch(/"status":"queued"/);
    expect(out).toMatch(/"status":"completed"/);
    expect(out).toMatch(/"option":"staging"/);
    expect(out).toMatch(/"status":"answered"/);
    // The step that waits on the asked item, and the classifier's answer.
    expect(out).toMatch(/"type":"deploy"/);
    expect(out).toMatch(/"needs_action":true/);

    const items = (await (await fetch(`${desk.url}/work?limit=50`)).json()) as
      { items?: Array<{ type: string; status: string }> } | Array<{ type: string; status: string }>;
    const list = Array.isArray(items) ? items : (items.items ?? []);
    expect(list.find((item) => item.type === 'release')?.status).toBe('in_progress');
    expect(list.find((item) => item.type === 'deploy')?.status).toBe('queued');
  }, 180_000);
});
