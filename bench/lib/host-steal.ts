import { readFileSync } from 'node:fs';

// On a virtual machine the host can take a core away ("steal"), and then a run measures the
// host, not the code. Linux counts it in /proc/stat; the benchmarks print the share of each
// measured window so a reader can set a stolen run aside. Elsewhere it reads as null.

export interface CpuTicks {
  steal: number;
  total: number;
}

export function cpuTicks(): CpuTicks | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
    // cpu user nice system idle iowait irq softirq steal guest guest_nice; guest time is already in user.
    const fields = line.trim().split(/\s+/).slice(1, 9).map(Number);
    if (fields.length < 8 || fields.some((value) => !Number.isFinite(value))) return null;
    return { steal: fields[7]!, total: fields.reduce((sum, value) => sum + value, 0) };
  } catch {
    return null;
  }
}

/** Adds up the ticks of several windows; null once any window could not be read. */
export class StealMeter {
  private steal = 0;
  private total = 0;
  private readable = true;

  add(before: CpuTicks | null, after: CpuTicks | null): void {
    if (!before || !after) this.readable = false;
    else {
      this.steal += after.steal - before.steal;
      this.total += after.total - before.total;
    }
  }

  /** The stolen share of every core's time over the windows, in percent. */
  percent(): number | null {
    if (!this.readable || this.total <= 0) return null;
    return Math.round((1000 * this.steal) / this.total) / 10;
  }
}
