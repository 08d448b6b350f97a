import type { LoadResult } from './load.js';

/** Load results added up over generators run side by side and over successive rounds. */
export class Tally {
  private ok = 0;
  private seconds = 0;
  private non2xx = 0;
  private errors = 0;
  private times: number[] = [];

  /** Results of generators that ran at the same time, one per server. */
  add(results: LoadResult[]): void {
    this.ok += results.reduce((sum, result) => sum + result.ok, 0);
    this.seconds += Math.max(...results.map((result) => result.durationS));
    this.non2xx += results.reduce((sum, result) => sum + result.non2xx, 0);
    this.errors += results.reduce((sum, result) => sum + result.errors, 0);
    for (const result of results) for (const ms of result.timesMs) this.times.push(ms);
  }

  get perSecond(): number {
    return Math.round(this.ok / this.seconds);
  }

  summary() {
    const sorted = Float64Array.from(this.times).sort();
    const at = (fraction: number) => sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
    return { value: this.perSecond, p50_ms: at(0.5), p99_ms: at(0.99), non_2xx: this.non2xx, errors: this.errors };
  }
}
