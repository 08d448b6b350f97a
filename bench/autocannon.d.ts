// The slice of autocannon's API the benchmarks use (it ships no types).
declare module 'autocannon' {
  interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    duration?: number;
    idReplacement?: boolean;
  }
  interface Histogram {
    average: number;
    p50: number;
    p99: number;
  }
  interface Result {
    requests: Histogram & { total: number };
    latency: Histogram;
    non2xx: number;
    errors: number;
    timeouts: number;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
