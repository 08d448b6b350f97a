import { execFile } from 'node:child_process';
import { mkdir, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { vi } from 'vitest';

const run = promisify(execFile);
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const webRoot = join(repoRoot, 'web');
export const WEB_DIST = join(webRoot, 'dist');
const LOCK = join(tmpdir(), `agentdesk-web-build-${Buffer.from(repoRoot).toString('hex').slice(-24)}.lock`);
const LOCK_STALE_MS = 120_000;
/** Long enough for a stale lock to be found and removed. */
const LOCK_WAIT_MS = 2 * LOCK_STALE_MS;

async function newestMtime(path: string): Promise<number> {
  const info = await stat(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs;
  for (const entry of await readdir(path)) newest = Math.max(newest, await newestMtime(join(path, entry)));
  return newest;
}

async function isFresh(): Promise<boolean> {
  try {
    const built = (await stat(join(WEB_DIST, 'index.html'))).mtimeMs;
    const sources = await Promise.all(
      ['src', 'public', 'index.html', 'vite.config.ts'].map((p) => newestMtime(join(webRoot, p))),
    );
    return built >= Math.max(...sources);
  } catch {
    return false;
  }
}

/** Takes the lock once the worker holding it (if any) lets it go, or once it is stale. */
async function acquireLock(): Promise<void> {
  await vi.waitFor(
    async () => {
      try {
        await mkdir(LOCK);
      } catch (error) {
        const age = await stat(LOCK).then(
          (s) => Date.now() - s.mtimeMs,
          () => 0,
        );
        if (age > LOCK_STALE_MS) await rmdir(LOCK).catch(() => undefined);
        throw error;
      }
    },
    { timeout: LOCK_WAIT_MS, interval: 200 },
  );
}

/**
 * Builds the UI into web/dist the way the README says, unless it is newer than its sources.
 * Test files run in parallel workers, so a lock makes the others wait for the first build.
 */
export async function ensureUiBuilt(): Promise<string> {
  if (await isFresh()) return WEB_DIST;
  await acquireLock();
  try {
    if (!(await isFresh())) {
      // Built aside and swapped in, so a server reading web/dist never finds it half empty.
      const fresh = join(webRoot, `.dist-${process.pid}`);
      const stale = join(webRoot, `.dist-old-${process.pid}`);
      const vite = join(repoRoot, 'node_modules', 'vite', 'bin', 'vite.js');
      await run(
        process.execPath,
        [
          vite,
          'build',
          '--config',
          join(webRoot, 'vite.config.ts'),
          '--outDir',
          fresh,
          '--emptyOutDir',
          '--logLevel',
          'warn',
        ],
        { cwd: repoRoot, timeout: 120_000 },
      );
      await rename(WEB_DIST, stale).catch(() => undefined);
      await rename(fresh, WEB_DIST);
      await rm(stale, { recursive: true, force: true });
    }
  } finally {
    await rmdir(LOCK).catch(() => undefined);
  }
  return WEB_DIST;
}
