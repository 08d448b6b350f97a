import { readFileSync } from 'node:fs';
import pg from 'pg';

// CPU time (user + system, /proc/<pid>/stat) of a process and of the PostgreSQL backends serving one system, which
// pg_stat_activity names by its application_name (the bench schema). The backends' half needs PostgreSQL on this
// machine, else it reads as null.

/** USER_HZ, the unit of /proc/<pid>/stat times: 100 on every Linux architecture Node runs on. */
const CLOCK_TICKS_PER_S = 100;

/** CPU time the process has used so far (all threads, user and system), in ms; NaN once it is gone. */
export function processCpuMs(pid: number): number {
  try {
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
    return ((Number(fields[11]) + Number(fields[12])) * 1_000) / CLOCK_TICKS_PER_S;
  } catch {
    return Number.NaN;
  }
}

export interface BackendCpu {
  /** CPU the backends used in the window, in ms; null when /proc could not be read for them. */
  cpu_ms: number | null;
  /** Backends seen in the window (a pool that opened a connection meanwhile has more). */
  backends: number;
}

export interface BackendMeter {
  stop(): Promise<BackendCpu>;
}

/**
 * Starts counting the CPU of the backends whose application_name is `applicationName`. The list is
 * read again every `everyMs`, so a connection opened in the window counts from its first tick; a
 * backend that exits in the window loses what it used since the last look (pools here keep theirs).
 */
export async function meterBackends(adminUrl: string, applicationName: string, everyMs = 100): Promise<BackendMeter> {
  const client = new pg.Client({ connectionString: adminUrl, application_name: 'bench-cpu-meter' });
  await client.connect();
  const seen = new Map<number, { first: number; last: number }>();
  let unreadable = false;

  async function look(initial: boolean): Promise<void> {
    const { rows } = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE application_name = $1',
      [applicationName],
    );
    for (const { pid } of rows) {
      const now = processCpuMs(pid);
      if (Number.isNaN(now)) {
        if (!seen.has(pid)) unreadable = true;
        continue;
      }
      const entry = seen.get(pid);
      // A backend first seen after the start began in the window: all its time is the window's.
      if (entry) entry.last = now;
      else seen.set(pid, { first: initial ? now : 0, last: now });
    }
  }

  await look(true);
  let running = true;
  const loop = (async () => {
    while (running) {
      await new Promise((resolve) => setTimeout(resolve, everyMs));
      if (running) await look(false);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await look(false);
      await client.end();
      let total = 0;
      for (const { first, last } of seen.values()) total += last - first;
      return { cpu_ms: unreadable || seen.size === 0 ? null : total, backends: seen.size };
    },
  };
}
