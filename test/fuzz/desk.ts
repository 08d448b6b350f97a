// The desk under fuzz: the work service and the classification service listening on loopback,
// on one fresh database (a SQLite file or a PostgreSQL schema), the classifier answering through
// the fake LLM, the work service relaying /ui-api/classify to it as `npm start` runs them.
// Cases go over real HTTP; after each, the answers are checked, and so is the database.

import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { buildClassifyApp } from '../../src/services/classify.js';
import { CLASSIFY_BODY_LIMIT } from '../../src/classify/schemas.js';
import type { Database } from '../../src/shared/db/database.js';
import type { HttpApp } from '../../src/shared/http/types.js';
import { MAX_JSON_DEPTH } from '../../src/shared/http/json-body.js';
import { WORK_BODY_LIMIT, buildWorkApp } from '../../src/services/work.js';
import { CLASSIFY_PROXY_BODY_LIMIT } from '../../src/ui-server/classify-proxy.js';
import { type CapturedLogs, captureLogs, testConfig } from '../support/apps.js';
import { ADMIN_SECRET } from '../support/auth.js';
import { SERVER_KEY } from '../support/classify-app.js';
import { type StoreKind, type TestDatabase, createTestDatabase, openTestDatabase } from '../support/databases.js';
import { type FakeLlm, startFakeLlm } from '../support/fake-llm.js';
import { CALLER_KEYS, Pools, deskHints } from './desk-knowledge.js';
import { checkInvariants } from './invariants.js';
import { type ModelBehaviour, modelBehaviour } from './model-answers.js';
import { type Operation, readOperations } from './openapi-operations.js';
import { type Expectation, type OracleSettings, type Presented, expectationFor, methodsAt } from './oracle.js';
import { type Draft, type Sendable, concretize, draftArbitrary } from './requests.js';
import { type Answer, checkAnswer, describeRequest } from './response-checks.js';
import fc from 'fast-check';

export type AuthMode = 'off' | 'tokens';

/** One case: requests sent together, and how the language model behaves meanwhile. */
export interface FuzzCase {
  drafts: Draft[];
  model: ModelBehaviour;
}

interface Service {
  app: HttpApp;
  url: string;
  operations: Operation[];
}

export interface Desk {
  kind: StoreKind;
  mode: AuthMode;
  services: Record<'work' | 'classify', Service>;
  operations: Operation[];
  database: Database;
  pools: Pools;
  logs: CapturedLogs;
  /** Cases run so far, and how each request was answered, for the summary. */
  tally: Map<string, number>;
  caseArbitrary: fc.Arbitrary<FuzzCase>;
  /** Checks one case; throws on the first broken property unless `keepGoing`. */
  runCase(fuzzCase: FuzzCase): Promise<void>;
  /** With `keepGoing`: each distinct failure once, with its first example. */
  failures: Map<string, string>;
  /** Every invariant over every row, as at the end of a run. */
  checkEverything(): Promise<string[]>;
  close(): Promise<void>;
}

/** The operations whose answer is the work item as written. */
const WRITES = new Set(['POST /work', 'PATCH /work/{id}', 'POST /work/claim', 'POST /work/{id}/heartbeat']);

/** Nothing resolves: a caller's base_url may name only the allow-listed fake LLM. */
const refuseEveryName = async (hostname: string): Promise<string[]> => {
  throw new Error(`ENOTFOUND ${hostname}`);
};

async function listen(app: HttpApp): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

async function openApi(url: string): Promise<Record<string, any>> {
  const { body } = await request(`${url}/openapi.json`);
  return (await body.json()) as Record<string, any>;
}

/** How often each operation is drawn: the ones that change state, more. */
function weightOf(op: Operation): number {
  if (op.name === 'POST /work' || op.name === 'PATCH /work/{id}') return 6;
  if (op.name === 'POST /work/claim' || op.name === 'POST /work/{id}/heartbeat' || op.name === 'POST /classify')
    return 4;
  return op.method === 'GET' ? 1 : 2;
}

/** A failure's kind, without the ids, numbers and quoted values that differ between cases. */
function signature(operation: string, problem: string): string {
  return `${operation} ${problem
    .replace(/"[^"]*"/g, '"…"')
    .replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<id>')
    .replace(/\d+/g, 'N')
    .slice(0, 160)}`;
}

export async function startDesk(kind: StoreKind, mode: AuthMode, keepGoing = false): Promise<Desk> {
  const testDatabase: TestDatabase = await createTestDatabase(kind);
  const database = await openTestDatabase(testDatabase);
  const fakeLlm: FakeLlm = await startFakeLlm({ record: false });
  const logs = captureLogs('info');
  const env: Record<string, string> = {
    LLM_PROVIDER: 'openai',
    LLM_BASE_URL: fakeLlm.openaiBaseUrl,
    LLM_API_KEY: SERVER_KEY,
    LLM_ALLOWED_HOSTS: '127.0.0.1',
    LLM_TIMEOUT_MS: '3000',
    LLM_MAX_RETRIES: '1',
    CLASSIFY_RATE_LIMIT: '1000000',
    ...(mode === 'tokens' && { AUTH: 'tokens', AGENTDESK_ADMIN_TOKEN: ADMIN_SECRET, AUTH_FAILURE_LIMIT: '1000000' }),
  };
  const classifyApp = await buildClassifyApp({
    config: testConfig(testDatabase, env),
    database,
    logger: logs.logger,
    resolveHost: refuseEveryName,
    backoff: { base_delay_ms: 5, max_delay_ms: 20, retry_after_cap_ms: 50 },
  });
  const classifyUrl = await listen(classifyApp);
  const workApp = await buildWorkApp({
    config: testConfig(testDatabase, { ...env, CLASSIFY_URL: classifyUrl }),
    database,
    logger: logs.logger,
    webRoot: null,
  });
  const workUrl = await listen(workApp);
  const services = {
    work: { app: workApp, url: workUrl, operations: readOperations('work', await openApi(workUrl)) },
    classify: {
      app: classifyApp,
      url: classifyUrl,
      operations: readOperations('classify', await openApi(classifyUrl)),
    },
  };
  const operations = [...services.work.operations, ...services.classify.operations];
  const classifyOp = services.classify.operations.find((op) => op.name === 'POST /classify')!;
  // The UI relay takes any object and the classifier judges it: generate and judge alike.
  const bodyJudge = (op: Operation) => (op.name === 'POST /ui-api/classify' ? classifyOp : op);
  const bodyLimit = (op: Operation) =>
    op.name === 'POST /ui-api/classify'
      ? CLASSIFY_PROXY_BODY_LIMIT
      : op.service === 'classify'
        ? CLASSIFY_BODY_LIMIT
        : WORK_BODY_LIMIT;

  const pools = new Pools();
  const deleted = new Set<string>();
  const revoked = new Set<string>();
  const tally = new Map<string, number>();
  const failures = new Map<string, string>();
  const dispatcher = new Agent({ connections: 16, headersTimeout: 20_000, bodyTimeout: 20_000 });
  const oracle = (op: Operation): OracleSettings => ({
    operations: services[op.service as 'work' | 'classify'].operations,
    bodyLimit,
    bodyJudge,
    maxDepth: MAX_JSON_DEPTH,
  });
  let eventsAfter = 0;
  let cases = 0;
  const created = new Set<string>();
  const removed = new Set<string>();

  const draft = fc.oneof(
    ...operations.map((op) => ({
      weight: weightOf(op),
      arbitrary: draftArbitrary(op, deskHints(op, fakeLlm.url), (one) => bodyJudge(one).body),
    })),
  );
  // Up to three different requests at once, or one request sent two or three times at once:
  // the same PATCH, claim or Idempotency-Key racing itself.
  const caseArbitrary: fc.Arbitrary<FuzzCase> = fc.record({
    drafts: fc.oneof(
      { weight: 4, arbitrary: fc.array(draft, { minLength: 1, maxLength: 3 }) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(draft, fc.integer({ min: 2, max: 3 }))
          .map(([one, times]) => Array.from({ length: times }, () => one)),
      },
    ),
    model: modelBehaviour,
  });

  /** The credential a draft presents under AUTH=tokens, and what the oracle should make of it. */
  function credential(draft: Draft): { header: string | undefined; presented: Presented } {
    if (mode === 'off') return { header: undefined, presented: null };
    const n = draft.credential;
    if (n < 12) return { header: `Bearer ${ADMIN_SECRET}`, presented: { as: 'admin' } };
    if (n < 14) return { header: undefined, presented: { as: 'nobody' } };
    if (n === 14) return { header: 'Bearer adk_0000000000000000000000000000000000', presented: { as: 'nobody' } };
    if (n === 15) return { header: 'Basic YWRtaW46YWRtaW4=', presented: { as: 'nobody' } };
    const usable = pools.tokens.filter((token) => token.expires === null);
    const token = usable[n % Math.max(1, usable.length)];
    if (!token) return { header: `Bearer ${ADMIN_SECRET}`, presented: { as: 'admin' } };
    return {
      header: `Bearer ${token.secret}`,
      presented: revoked.has(token.id) ? { as: 'nobody' } : { as: 'role', role: token.role },
    };
  }

  async function send(sendable: Sendable, authorization: string | undefined): Promise<Answer> {
    const service = services[sendable.op.service as 'work' | 'classify'];
    const headers: Record<string, string> = { ...sendable.headers };
    if (authorization !== undefined && headers.authorization === undefined) headers.authorization = authorization;
    const response = await request(`${service.url}${sendable.path}${sendable.query ? `?${sendable.query}` : ''}`, {
      method: sendable.method as 'GET',
      headers,
      body: sendable.body ?? undefined,
      dispatcher,
    });
    const flat = Object.fromEntries(
      Object.entries(response.headers).map(([name, value]) => [
        name,
        Array.isArray(value) ? value.join(', ') : String(value ?? ''),
      ]),
    );
    let text: string;
    if ((flat['content-type'] ?? '').startsWith('text/event-stream')) {
      // A stream never ends by itself: its first bytes are enough. The hub writes the stream's
      // starting id as soon as it answers, so they come at once.
      let first = '';
      for await (const chunk of response.body) {
        first = String(chunk);
        break;
      }
      response.body.destroy();
      text = first;
    } else {
      text = await response.body.text();
    }
    return { status: response.statusCode, headers: flat, text };
  }

  async function invariants(changedSince: string | null): Promise<string[]> {
    const report = await checkInvariants({
      database,
      acknowledged: pools.versions,
      deleted,
      workItem: services.work.operations
        .find((op) => op.name === 'POST /work')!
        .responses.get(201)!
        .content.get('application/json')!,
      eventsAfter,
      created,
      removed,
      changedSince,
    });
    eventsAfter = report.lastEventId;
    pools.lastEventId = report.lastEventId;
    return report.broken;
  }

  async function runCase({ drafts, model }: FuzzCase): Promise<void> {
    const now = new Date();
    fakeLlm.clearScript();
    fakeLlm.setDefaultAnswer(model.answer);
    fakeLlm.script(...model.replies);
    const prepared = drafts.map((draft) => {
      const sendable = concretize(draft, {
        pools,
        now,
        adminSecret: mode === 'tokens' ? ADMIN_SECRET : null,
        fakeLlmUrl: fakeLlm.url,
        bodyLimit,
        methodsAt: (path) => methodsAt(oracle(draft.op).operations, path),
      });
      const chosen = credential(draft);
      const { header } = chosen;
      // A mutated Authorization header is sent instead of the chosen credential (see send), and
      // no mutation makes a valid one: the caller then presents nothing the service accepts.
      const presented: Presented =
        mode === 'tokens' && sendable.headers.authorization !== undefined ? { as: 'nobody' } : chosen.presented;
      const expectation: Expectation = expectationFor(sendable, oracle(draft.op), presented);
      return { sendable, header, expectation };
    });
    const answers = await Promise.all(
      prepared.map(({ sendable, header }) =>
        send(sendable, header).catch(
          (error: Error) => ({ status: 0, headers: {}, text: `no answer: ${error.message}` }) as Answer,
        ),
      ),
    );
    const found: string[] = [];
    const written = new Map<string, { version: number }>();
    const secrets = [SERVER_KEY, ...CALLER_KEYS, ...(mode === 'tokens' ? [ADMIN_SECRET] : [])];
    prepared.forEach(({ sendable, expectation }, index) => {
      const answer = answers[index]!;
      const op = expectation.op ?? sendable.op;
      tally.set(`${op.name} ${answer.status}`, (tally.get(`${op.name} ${answer.status}`) ?? 0) + 1);
      const problems = answer.status === 0 ? [answer.text] : checkAnswer(sendable, expectation, answer, secrets);
      if (problems.length > 0) {
        const text = `${problems.map((p) => `  ✗ ${p}`).join('\n')}\n${describeRequest(sendable, answer)}`;
        found.push(text);
        for (const problem of problems)
          if (!failures.has(signature(op.name, problem))) failures.set(signature(op.name, problem), text);
      }
      if (expectation.op && answer.status > 0) {
        let body: unknown;
        try {
          body = JSON.parse(answer.text);
        } catch {
          body = undefined;
        }
        pools.learn(expectation.op, answer.status, body, answer.headers.link);
        const item = body as { id?: unknown; version?: unknown; dispatch_log?: unknown } | undefined;
        if (
          WRITES.has(expectation.op.name) &&
          answer.status < 300 &&
          typeof item?.id === 'string' &&
          typeof item.version === 'number' &&
          item.dispatch_log
        ) {
          if ((written.get(item.id)?.version ?? 0) < item.version) written.set(item.id, item as { version: number });
        }
        if (answer.status === 204 && expectation.op.name === 'DELETE /work/{id}')
          deleted.add(decodeURIComponent(sendable.path.split('/')[2]!));
        if (answer.status === 204 && expectation.op.name === 'DELETE /tokens/{id}')
          revoked.add(decodeURIComponent(sendable.path.split('/')[2]!));
      }
    });

    // A read returns what a write acknowledged: each item a write answered with, read back at
    // the same version, is the same item (dispatch log, timestamps, payload and all).
    for (const [id, acknowledged] of written) {
      const read = await send(
        {
          op: services.work.operations[0]!,
          method: 'GET',
          path: `/work/${id}`,
          query: '',
          headers: {},
          body: null,
          mutation: 'read back',
        },
        mode === 'tokens' ? `Bearer ${ADMIN_SECRET}` : undefined,
      );
      if (read.status !== 200) continue;
      const read_ = JSON.parse(read.text) as Record<string, unknown> & { version: number };
      // GET adds the item's plan (depends_on, blocked_by, children: read fresh, not versioned);
      // every field the write answered must read back the same.
      const current = {
        ...Object.fromEntries(Object.keys(acknowledged).map((key) => [key, read_[key]])),
        version: read_.version,
      };
      if (current.version === acknowledged.version && JSON.stringify(current) !== JSON.stringify(acknowledged)) {
        found.push(
          `  ✗ item ${id} reads back differently at version ${current.version}:\n  acknowledged ${JSON.stringify(acknowledged).slice(0, 900)}\n  read         ${read.text.slice(0, 900)}`,
        );
        failures.set(signature('read-back', 'item reads back differently'), found.at(-1)!);
      }
    }

    // Items changed during this case, with a margin for the sweeper; every 50th case reads all.
    cases += 1;
    for (const broken of await invariants(cases % 50 === 0 ? null : new Date(now.getTime() - 5_000).toISOString())) {
      found.push(`  ✗ invariant ${broken}`);
      if (!failures.has(signature('invariant', broken))) failures.set(signature('invariant', broken), broken);
    }

    // Secrets never reach a log line; no request ended in an error the logs had to report.
    const fresh = logs.lines.splice(0);
    for (const line of fresh) {
      if (line.includes('"msg":"email classified"'))
        tally.set('(model answered)', (tally.get('(model answered)') ?? 0) + 1);
      if (line.includes('"msg":"classification failed"'))
        tally.set('(model failed)', (tally.get('(model failed)') ?? 0) + 1);
      for (const secret of [...secrets, ...pools.tokens.map((token) => token.secret)]) {
        if (line.includes(secret))
          found.push(`  ✗ a log line carries a secret (${secret.slice(0, 6)}…): ${line.slice(0, 300)}`);
      }
      if (/"level":50/.test(line)) found.push(`  ✗ an error was logged: ${line.slice(0, 600)}`);
    }
    if (found.length === 0) return;
    if (keepGoing) {
      for (const one of found)
        if (one.startsWith('  ✗ a log') || one.startsWith('  ✗ an error')) failures.set(signature('log', one), one);
      return;
    }
    throw new Error(`on ${kind}, AUTH=${mode}:\n${found.join('\n\n')}`);
  }

  return {
    kind,
    mode,
    services,
    operations,
    database,
    pools,
    logs,
    tally,
    caseArbitrary,
    runCase,
    failures,
    checkEverything: () => invariants(null),
    async close() {
      await workApp.close();
      await classifyApp.close();
      await dispatcher.close();
      await fakeLlm.close();
      await database.close();
      await testDatabase.destroy();
    },
  };
}
