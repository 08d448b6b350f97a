// The dependencies' side of bench:queue: `seedWaiting` queues items waiting on a dependency that never completes
// in the run (the claim must not pay for them); `timeFanOut` times the PATCH completing an item with N dependents.

const JSON_HEADERS = { 'content-type': 'application/json' };

async function post(url: string, path: string, body: unknown, method = 'POST'): Promise<{ id: string }> {
  const response = await fetch(`${url}${path}`, { method, headers: JSON_HEADERS, body: JSON.stringify(body) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as { id: string };
}

/** Submits `dependents` items of `type` that depend on `on`, `concurrency` at a time. */
async function submitDependents(
  url: string,
  type: string,
  on: string,
  dependents: number,
  concurrency: number,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < dependents) {
        next += 1;
        await post(url, '/work', { type, description: `waits on ${on}`, depends_on: [on] });
      }
    }),
  );
}

/** `count` queued items of type `bench` that wait on an item nobody will complete. */
export async function seedWaiting(url: string, count: number, concurrency = 8): Promise<void> {
  const blocker = await post(url, '/work', {
    type: 'bench_blocker',
    description: 'never completes during the run',
    agent: 'bench-holder',
  });
  await submitDependents(url, 'bench', blocker.id, count, concurrency);
}

/** Milliseconds of the PATCH that completes an item with `dependents` dependents, once per round. */
export async function timeFanOut(url: string, dependents: number, rounds: number): Promise<number[]> {
  const times: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const type = `bench_fanout_${round}`;
    await post(url, '/work', { type, description: 'the item many wait on' });
    const item = await post(url, '/work/claim', { agent: 'bench-fanout', types: [type] });
    await submitDependents(url, `${type}_dependent`, item.id, dependents, 8);
    const started = performance.now();
    await post(url, `/work/${item.id}`, { status: 'completed', outcome: 'success', agent: 'bench-fanout' }, 'PATCH');
    times.push(Math.round((performance.now() - started) * 10) / 10);
    const ready = await fetch(`${url}/work/counts?type=${type}_dependent`);
    const counts = (await ready.json()) as Record<string, number>;
    if (counts.queued !== dependents)
      throw new Error(`after the fan-out, ${counts.queued} of ${dependents} dependents are queued`);
  }
  return times;
}
