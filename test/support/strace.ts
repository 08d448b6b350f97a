import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

// The process tests that watch a real service's system calls with strace (durability, the
// checkpointer's death). CI must have strace (.ci/run installs it); elsewhere they are skipped
// with a warning naming what is not checked.

/** Whether strace runs here; in CI its absence is an error, elsewhere a warning naming `check`. */
export function straceFor(check: string): boolean {
  try {
    execFileSync('strace', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    if (process.env.CI) throw new Error('strace is required in CI (.ci/run installs it)');
    console.warn(`[agentdesk tests] strace is not installed: ${check} is SKIPPED`);
    return false;
  }
}

/** strace runs the service as its child; signals must reach node itself, not strace. */
export function tracedChild(stracePid: number): number {
  const children = readFileSync(`/proc/${stracePid}/task/${stracePid}/children`, 'utf8').trim().split(/\s+/);
  const pid = Number(children[0]);
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`strace ${stracePid} has no child`);
  return pid;
}
