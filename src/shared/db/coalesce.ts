// Coalescing, PostgreSQL's counterpart of group commit: calls that arrive while a batch of their kind
// runs become the next batch, one statement, one round trip and one commit.

interface Job<I, O> {
  input: I;
  resolve: (output: O) => void;
  reject: (error: unknown) => void;
}

interface Lane<I, O> {
  queue: Job<I, O>[];
  running: boolean;
}

export interface CoalescerOptions<I, O> {
  keyOf(input: I): string;
  /** Calls with a conflict key in common go in different batches, in arrival order. */
  conflictOf?(input: I): string | readonly string[];
  /** Runs one batch; answers one output per input, in order. */
  run(inputs: I[]): Promise<O[]>;
  /** Bounds the size of one batch (and of its statement). */
  maxBatch?: number;
}

const DEFAULT_MAX_BATCH = 64;

/**
 * Under load the batches grow by themselves; alone, a call waits only for the end of the current I/O phase.
 * A batch that fails runs again one call at a time, so one bad call cannot fail the others. Calls are
 * grouped by `keyOf` and kept apart by `conflictOf`, so a batch never sees one item or one agent twice.
 */
export function createCoalescer<I, O>({
  keyOf,
  conflictOf,
  run,
  maxBatch = DEFAULT_MAX_BATCH,
}: CoalescerOptions<I, O>): (input: I) => Promise<O> {
  const lanes = new Map<string, Lane<I, O>>();

  /** The next batch: the oldest calls, at most one per conflict key; the rest stay queued in order. */
  function take(lane: Lane<I, O>): Job<I, O>[] {
    if (!conflictOf) return lane.queue.splice(0, maxBatch);
    const batch: Job<I, O>[] = [];
    const left: Job<I, O>[] = [];
    const seen = new Set<string>();
    for (const job of lane.queue) {
      const conflict = conflictOf(job.input);
      const conflicts = typeof conflict === 'string' ? [conflict] : conflict;
      const waits = batch.length >= maxBatch || conflicts.some((key) => seen.has(key));
      // A call left for later holds its keys too: no later call sharing one may overtake it.
      for (const key of conflicts) seen.add(key);
      (waits ? left : batch).push(job);
    }
    lane.queue = left;
    return batch;
  }

  async function runBatch(batch: Job<I, O>[]): Promise<void> {
    try {
      const outputs = await run(batch.map((job) => job.input));
      batch.forEach((job, index) => job.resolve(outputs[index] as O));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
      // One call may have failed the statement for all (a foreign key, a constraint): the
      // statement wrote nothing, so each runs again alone and gets its own answer.
      await Promise.all(batch.map((job) => runBatch([job])));
    }
  }

  async function drain(key: string, lane: Lane<I, O>): Promise<void> {
    while (lane.queue.length > 0) {
      const batch = take(lane);
      await runBatch(batch);
    }
    lane.running = false;
    lanes.delete(key);
  }

  return (input) =>
    new Promise<O>((resolve, reject) => {
      const key = keyOf(input);
      let lane = lanes.get(key);
      if (!lane) {
        lane = { queue: [], running: false };
        lanes.set(key, lane);
      }
      lane.queue.push({ input, resolve, reject });
      if (lane.running) return;
      lane.running = true;
      const started = lane;
      // After the current I/O phase, so that the calls of requests read together start together.
      setImmediate(() => void drain(key, started));
    });
}
