import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fetchJson } from '../support/fetch-json.js';
import { type ServerProcess, killAllServers, startWorkServer } from '../support/processes.js';

// A full disk, for real: the SQLite database lives on a small tmpfs this test mounts (the tests
// run as root, here and in CI), and a filler file takes all but a little of its space. Writes
// then fail for lack of space: each is a 503 problem+json with Retry-After, concurrent writers
// (one group commit) all get it, one log line says so, and /health names it. Once the filler is
// removed, writes succeed again without a restart (and one line says that), and every item that
// got a 201 is there, after a kill -9 and a restart too.

const CONCURRENCY = 8;
const DESCRIPTION = 'd'.repeat(3_000);

interface Posted {
  status: number;
  id?: string;
  contentType: string;
  retryAfter: string | null;
  body: { detail?: string };
}

async function post(base: string, index: number): Promise<Posted> {
  const response = await fetch(`${base}/work`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'disk-full', description: `${index} ${DESCRIPTION}` }),
    signal: AbortSignal.timeout(30_000),
  });
  const body = (await response.json()) as { id?: string; detail?: string };
  return {
    status: response.status,
    id: body.id,
    contentType: response.headers.get('content-type') ?? '',
    retryAfter: response.headers.get('retry-after'),
    body,
  };
}

describe('SQLite on a full disk', () => {
  const mount = mkdtempSync(join(tmpdir(), 'agentdesk-full-'));
  let mounted = false;
  afterAll(async () => {
    await killAllServers();
    if (mounted) execFileSync('umount', ['-l', mount]);
    rmSync(mount, { recursive: true, force: true });
  });

  it(
    'refuses writes with 503 and Retry-After, keeps every acknowledged item, and heals once space returns',
    { timeout: 180_000 },
    async () => {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=32m', 'tmpfs', mount]);
      mounted = true;
      const env = { DATABASE_URL: `sqlite:${join(mount, 'agentdesk.db')}`, LOG_LEVEL: 'info', LOG_FORMAT: 'json' };
      let server: ServerProcess = await startWorkServer({ env, startTimeoutMs: 60_000 });

      // All but 512 KiB of the file system: a few dozen items, then no room.
      const free = () => {
        const stats = statfsSync(mount);
        return stats.bavail * stats.bsize;
      };
      const filler = join(mount, 'filler');
      writeFileSync(filler, Buffer.alloc(Math.max(0, free() - 512 * 1024)));

      const acknowledged: string[] = [];
      const refusals: Posted[] = [];
      let index = 0;
      while (refusals.length < 3 * CONCURRENCY) {
        const answers = await Promise.all(Array.from({ length: CONCURRENCY }, () => post(server.url, index++)));
        for (const answer of answers) {
          expect([201, 503], JSON.stringify(answer.body)).toContain(answer.status);
          if (answer.status === 201) acknowledged.push(answer.id!);
          else refusals.push(answer);
        }
        if (index > 20_000) throw new Error('the disk never filled');
      }
      for (const refusal of refusals) {
        expect(refusal.contentType).toContain('application/problem+json');
        expect(refusal.retryAfter).toMatch(/^\d+$/);
        expect(refusal.body.detail).toContain('disk is full');
      }
      // Space can come and go a little (a checkpoint, the WAL cut back): read health after a refusal.
      await expect
        .poll(
          async () => {
            const answer = await post(server.url, index++);
            if (answer.status === 201) acknowledged.push(answer.id!);
            const health = await fetchJson(server.url, 'GET', '/health');
            return [answer.status, health.status, health.body];
          },
          { timeout: 60_000, interval: 50 },
        )
        .toEqual([503, 200, { status: 'ok', details: { sqlite_storage: 'full' } }]);
      // Reads go on.
      expect((await fetchJson(server.url, 'GET', `/work/${acknowledged[0]}`)).status).toBe(200);

      rmSync(filler);
      // No restart: the next write finds room.
      await expect
        .poll(async () => (await post(server.url, index++)).status, { timeout: 60_000, interval: 100 })
        .toBe(201);
      expect((await fetchJson(server.url, 'GET', '/health')).body).toEqual({ status: 'ok' });
      const logs = server.stdout() + server.stderr();
      // One line when refusals start and one when writes succeed again: per spell of a full disk
      // (space may come back briefly while it fills), never per refused request.
      const spells = logs.match(/the disk is full; writes are refused/g)?.length ?? 0;
      expect(spells).toBeGreaterThanOrEqual(1);
      expect(spells).toBeLessThan(refusals.length);
      expect(logs.match(/SQLite writes succeed again/g)?.length).toBe(spells);

      for (const id of acknowledged) expect((await fetchJson(server.url, 'GET', `/work/${id}`)).status, id).toBe(200);
      await server.kill();
      server = await startWorkServer({ env, startTimeoutMs: 60_000 });
      for (const id of acknowledged) expect((await fetchJson(server.url, 'GET', `/work/${id}`)).status, id).toBe(200);
      await server.stop();
    },
  );
});
