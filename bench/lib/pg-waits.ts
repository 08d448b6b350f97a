import pg from 'pg';

// Where the service's PostgreSQL connections spend a load phase: pg_stat_activity of the bench schema's
// application_name, sampled and averaged ("active Lock:advisory": waiting on an advisory lock; "idle in
// transaction": waiting on the service itself).

export interface WaitSampler {
  /** Samples while `work` runs (and only then). */
  during<T>(work: Promise<T>): Promise<T>;
  /** Stops sampling; average number of connections in each state, busiest first. */
  stop(): Promise<Record<string, number>>;
}

export async function sampleWaits(adminUrl: string, applicationName: string): Promise<WaitSampler> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  const counts = new Map<string, number>();
  let samples = 0;
  let watching = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      if (watching > 0) {
        const { rows } = await client.query<{ state: string; wait: string | null; query: string }>(
          `SELECT state, wait_event_type || ':' || wait_event AS wait, left(query, 40) AS query
           FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()`,
          [applicationName],
        );
        for (const row of rows) {
          const key = [row.state, row.wait ?? '', row.state === 'active' ? row.query : ''].filter(Boolean).join(' | ');
          counts.set(key, (counts.get(key) ?? 0) + 1);
        }
        samples += 1;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    async during(work) {
      watching += 1;
      try {
        return await work;
      } finally {
        watching -= 1;
      }
    },
    async stop() {
      running = false;
      await loop;
      await client.end();
      return Object.fromEntries(
        [...counts]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 6)
          .map(([key, count]) => [key, Math.round((count / Math.max(1, samples)) * 100) / 100]),
      );
    },
  };
}
