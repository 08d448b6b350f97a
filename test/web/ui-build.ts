import { execFile } from 'node:child_process';
import { mkdir, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const webRoot = join(repoRoot, 'web');
export const WEB_DIST = join(webRoot, 'dist');
const LOCK = join(tmpdir(), `agentdesk-web-build-${Buffer.from(repoRoot).toString('hex').slice(-24)}.lock`);
const LOCK_STALE_MS = 120_000;

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

async function acquireLock(): Promise<void> {
  for (;;) {
    try {
      await mkdir(LOCK);
      return;
    } catch {
      const age = await stat(LOCK).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > LOCK_STALE_MS) await rmdir(LOCK).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
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
