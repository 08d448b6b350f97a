import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { BENCH_JOB, drive, LAST_WRITE, type PhaseResult, quota } from '../lib/queue-phase.js';

// The agents of bench:queue, in a process of their own (forked with an IPC channel) that shares no event loop with
// the orchestrator or the server: undici `request` on one keep-alive pool. It lives the whole run, so its JIT is
// warm, and runs the phases it is asked for one at a time (submit, comment, drain).

export type QueueClientRequest =
  { phase: 'submit'; items: number } | { phase: 'comment'; per_item: number } | { phase: 'drain'; finish?: boolean };

export type QueueClientReply =
  | { phase: 'submit'; result: PhaseResult }
  | { phase: 'comment'; result: PhaseResult }
  | { phase: 'drain'; result: PhaseResult; claimed: number; duplicates: number }
  /** The server has no POST /work/claim yet (404): the drain cannot run. */
  | { phase: 'drain'; unavailable: string }
  | { error: string };

export interface QueueClientOptions {
  url: string;
  workers: number;
}

const JSON_HEADERS = { 'content-type': 'application/json' };
/** Under AUTH=off a comment's author is the X-User, a person: people comment on any item. */
const COMMENT_HEADERS = { ...JSON_HEADERS, 'x-user': 'bench-person' };
/** A progress comment as an agent writes one: a few lines, a link. */
const COMMENT_BODY = JSON.stringify({
  kind: 'progress',
  body: 'Read the thread and the customer record; the refund was issued on the 3rd. Drafting the reply now.',
  links: [{ url: 'https://example.com/tickets/4711', title: 'the ticket' }],
});
const SUBMIT_BODY = JSON.stringify(BENCH_JOB);
const LEASE_S = 300;

class ClaimRouteMissing extends Error {}

function agentName(worker: number): string {
  return `agent-${worker + 1}`;
}

function unexpected(what: string, status: number, body: string): Error {
  return new Error(`${what} answered ${status}: ${body.slice(0, 300)}`);
}

export function createQueueClient(options: QueueClientOptions) {
  const pool = new Pool(options.url, { connections: options.workers, pipelining: 1 });
  const claimBodies = Array.from({ length: options.workers }, (_, worker) =>
    JSON.stringify({ agent: agentName(worker), types: [BENCH_JOB.type], lease_s: LEASE_S, start: true }),
  );
  const completeBodies = Array.from({ length: options.workers }, (_, worker) =>
    JSON.stringify({ status: 'completed', outcome: 'success', agent: agentName(worker) }),
  );

  const finishingClaimBody = (worker: number, id: string) =>
    JSON.stringify({
      agent: agentName(worker),
      types: [BENCH_JOB.type],
      lease_s: LEASE_S,
      start: true,
      finish: { id, status: 'completed' },
    });

  /** The items of the last submit, for the comment phase. */
  let submitted: string[] = [];

  /** N × POST /work, W submitters at once. */
  async function submit(items: number): Promise<PhaseResult> {
    const take = quota(items);
    submitted = [];
    return drive(options.workers, async () => {
      if (!take()) return false;
      const { statusCode, body } = await pool.request({
        method: 'POST',
        path: '/work',
        headers: JSON_HEADERS,
        body: SUBMIT_BODY,
      });
      const text = await body.text();
      if (statusCode !== 201) throw unexpected('POST /work', statusCode, text);
      submitted.push((JSON.parse(text) as { id: string }).id);
      return true;
    });
  }

  /** C × POST /work/{id}/comments per item of the last submit, W writers at once: the drain meets items that talk. */
  async function comment(perItem: number): Promise<PhaseResult> {
    const paths = submitted.flatMap((id) => Array.from({ length: perItem }, () => `/work/${id}/comments`));
    let next = 0;
    return drive(options.workers, async () => {
      const path = paths[next++];
      if (path === undefined) return false;
      const { statusCode, body } = await pool.request({
        method: 'POST',
        path,
        headers: COMMENT_HEADERS,
        body: COMMENT_BODY,
      });
      const text = await body.text();
      if (statusCode !== 201) throw unexpected(`POST ${path}`, statusCode, text);
      return true;
    });
  }

  /**
   * W agents, each looping POST /work/claim → PATCH /work/{id} (completed) until a 204; with `finish`, each claim after
   * the first finishes the agent's last item in the same request, one request per cycle.
   */
  async function drain(finish: boolean): Promise<QueueClientReply> {
    const claimed = new Set<string>();
    let duplicates = 0;
    /** Per agent, the item it holds and finishes with its next claim (finish only). */
    const holding: (string | null)[] = Array.from({ length: options.workers }, () => null);
    const result = await drive(options.workers, async (worker) => {
      const last = holding[worker];
      const body = last ? finishingClaimBody(worker, last) : claimBodies[worker];
      holding[worker] = null;
      const claim = await pool.request({ method: 'POST', path: '/work/claim', headers: JSON_HEADERS, body });
      const text = await claim.body.text();
      // The last claim found nothing, but it finished the agent's item: the drain ends after it.
      if (claim.statusCode === 204) return last ? LAST_WRITE : false;
      if (claim.statusCode === 404) throw new ClaimRouteMissing(`POST /work/claim answered 404: ${text.slice(0, 200)}`);
      if (claim.statusCode !== 200) throw unexpected('POST /work/claim', claim.statusCode, text);
      const item = JSON.parse(text) as { id: string; status: string };
      if (item.status !== 'in_progress')
        throw new Error(`POST /work/claim answered an item in ${item.status}, not in_progress`);
      if (claimed.has(item.id)) duplicates += 1;
      claimed.add(item.id);
      if (finish) {
        holding[worker] = item.id;
        return true;
      }

      const done = await pool.request({
        method: 'PATCH',
        path: `/work/${item.id}`,
        headers: JSON_HEADERS,
        body: completeBodies[worker],
      });
      const doneText = await done.body.text();
      if (done.statusCode !== 200) throw unexpected(`PATCH /work/${item.id}`, done.statusCode, doneText);
      return true;
    }).catch((error: unknown) => {
      if (error instanceof ClaimRouteMissing) return error.message;
      throw error;
    });
    if (typeof result === 'string') return { phase: 'drain', unavailable: result };
    return { phase: 'drain', result, claimed: claimed.size, duplicates };
  }

  return {
    async handle(request: QueueClientRequest): Promise<QueueClientReply> {
      if (request.phase === 'submit') return { phase: 'submit', result: await submit(request.items) };
      if (request.phase === 'comment') return { phase: 'comment', result: await comment(request.per_item) };
      return drain(request.finish === true);
    },
    close: () => pool.close(),
  };
}

const invokedDirectly = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1]);
if (invokedDirectly) {
  const client = createQueueClient(JSON.parse(process.argv[2] ?? '{}') as QueueClientOptions);
  process.on('message', (request: QueueClientRequest) => {
    client.handle(request).then(
      (reply) => process.send?.(reply),
      (error: unknown) => process.send?.({ error: error instanceof Error ? error.message : String(error) }),
    );
  });
  process.once('disconnect', () => void client.close().finally(() => process.exit(0)));
}
