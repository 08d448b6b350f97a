// Stops a service whose parent died: killing `npm start`'s sh leaves node reparented and still serving, and
// Linux tells a process nothing when its parent dies, so the process watches its parent id.
import { readFileSync } from 'node:fs';

/** How often the parent id is read; a cheap system call, so the delay a person sees is the bound. */
const PARENT_POLL_MS = 500;

/**
 * Calls `onGone` once when the process that started this one has ended (this process was
 * reparented). Does nothing when started by init itself (a container's pid 1 or a daemon).
 */
export function whenParentGone(onGone: () => void, everyMs = PARENT_POLL_MS): () => void {
  const parent = process.ppid;
  if (parent <= 1) return () => {};
  const timer = setInterval(() => {
    if (parentAlive(parent)) return;
    clearInterval(timer);
    onGone();
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * The parent's id as the kernel has it now (from /proc: Node 20 reads process.ppid once at start-up);
 * elsewhere than Linux, whether `parent` still exists.
 */
function parentAlive(parent: number): boolean {
  try {
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ')'.
    const stat = readFileSync('/proc/self/stat', 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent;
  } catch {
    try {
      process.kill(parent, 0);
      return true;
    } catch {
      return false;
    }
  }
}

/** The signals that ask a service to stop: a terminal closing sends SIGHUP. */
export const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
