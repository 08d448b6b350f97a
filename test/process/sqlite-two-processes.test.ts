import { afterAll, describe, expect, it } from 'vitest';
import { type TestDatabase, createTestDatabase } from '../support/databases.js';
import { type Answer, fetchJson } from '../support/fetch-json.js';
import { type ServerProcess, killAllServers, sleep, startWorkServer } from '../support/processes.js';

// `npm run start:work` and `npm run start:classify` on the one default
// SQLite file, each its own process with its own connection. Under writes on both at once,
// no answer may be a 5xx ("database is locked" was a 500), and every acknowledged write must
// be there afterwards.

const LOAD_MS = 4_000;
const WORK_CLIENTS = 3;
const CLASSIFY_CLIENTS = 3;

interface Unexpected {
  request: string;
  status: number;
  body: unknown;
}

describe('work and classify as two processes on one SQLite file', () => {
  let database: TestDatabase | undefined;
  afterAll(async () => {
    await killAllServers();
    await database?.destroy();
  });

  it('answers no 5xx under concurrent writes on both, and loses no acknowledged write', async () => {
    database = await createTestDatabase('sqlite');
    // As `npm start` runs them: the defaults, no provider key (the offline rules classifier).
    const env = { DATABASE_URL: database.config.url, LOG_LEVEL: 'warn' };
    const [work, classify]: [ServerProcess, ServerProcess] = await Promise.all([
      startWorkServer({ env }),
      startWorkServer({ env, service: 'classify' }),
    ]);

    const unexpected: Unexpected[] = [];
    const notesOf = new Map<string, string>();
    const classified: Array<{ id: string; body: Record<string, unknown> }> = [];
    let answers = 0;
    // Not even a 503: the busy timeout must hold under this load.
    const tally = (request: string, answer: Answer, expected: number): boolean => {
      answers += 1;
      if (answer.status === expected) return true;
      unexpected.push({ request, status: answer.status, body: answer.body });
      return false;
    };

    const until = Date.now() + LOAD_MS;
    let counter = 0;
    const workClient = async (client: number) => {
      while (Date.now() < until) {
        const n = counter++;
        const created = await fetchJson(work.url, 'POST', '/work', {
          type: 'two_proc',
          description: `item ${client}-${n}`,
        });
        if (!tally('POST /work', created, 201)) continue;
        const id = created.body.id as string;
        notesOf.set(id, '');
        // A read-then-write transaction on the work side: the kind a plain BEGIN lost.
        for (const step of ['first', 'second']) {
          const notes = `${step} note on ${n}`;
          const patched = await fetchJson(work.url, 'PATCH', `/work/${id}`, { notes });
          if (tally('PATCH /work/:id', patched, 200)) notesOf.set(id, notes);
        }
      }
    };
    const classifyClient = async (client: number) => {
      while (Date.now() < until) {
        const n = counter++;
        const body = {
          id: `two-proc-${client}-${n}`,
          email_data: { subject: `Invoice ${n}`, body: `Please pay invoice ${n} by Friday, client ${client}.` },
        };
        const answer = await fetchJson(classify.url, 'POST', '/classify', body);
        if (tally('POST /classify', answer, 200)) classified.push({ id: body.id, body });
      }
    };
    await Promise.all([
      ...Array.from({ length: WORK_CLIENTS }, (_, client) => workClient(client)),
      ...Array.from({ length: CLASSIFY_CLIENTS }, (_, client) => classifyClient(client)),
    ]);

    expect(unexpected.slice(0, 5), `${unexpected.length} of ${answers} answers were not the expected ones`).toEqual([]);
    expect(notesOf.size).toBeGreaterThan(10);
    expect(classified.length).toBeGreaterThan(10);

    await sleep(100);
    const lost: string[] = [];
    for (const [id, notes] of notesOf) {
      const answer = await fetchJson(work.url, 'GET', `/work/${id}`);
      if (answer.status !== 200 || (answer.body.notes ?? '') !== notes)
        lost.push(`work ${id}: ${JSON.stringify(answer.body)}`);
    }
    // A record the classifier acknowledged makes the same message a duplicate.
    for (const { id, body } of classified) {
      const again = await fetchJson(classify.url, 'POST', '/classify', body);
      if (again.status !== 200 || again.body.dedupe?.status !== 'duplicate')
        lost.push(`classify ${id}: ${JSON.stringify(again.body)}`);
    }
    expect(lost.slice(0, 5), `${lost.length} acknowledged writes missing`).toEqual([]);

    expect(await work.stop()).toEqual({ code: 0, signal: null });
    expect(await classify.stop()).toEqual({ code: 0, signal: null });
  }, 90_000);
});
