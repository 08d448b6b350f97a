import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToken } from '../../src/auth/token-format.js';
import { CSRF_HEADER, ROLES, type Role } from '../../src/auth/roles.js';
import type { HttpApp } from '../../src/shared/http/types.js';
import { ADMIN_SECRET, type AuthPair, bearer, expireToken, mintToken, startAuthPair } from '../support/auth.js';
import { storesUnderTest } from '../support/databases.js';
import { call } from '../support/http.js';

// Every route of both services, with no token, a malformed one, a well-formed one
// nobody issued, an expired one, a revoked one, and a token of each role, answers exactly the
// status written here. A route that is not in this table fails the coverage test: a new route
// must take its place in the matrix.

const FAILING = ['none', 'malformed', 'unknown', 'expired', 'revoked'] as const;
const CREDENTIALS = [...FAILING, ...ROLES, 'env-admin'] as const;
type Credential = (typeof CREDENTIALS)[number];

interface Fixtures {
  app: HttpApp;
  itemOfAda: string;
  projectId: string;
  tokenId: string;
  mailboxId: string;
  /** A fresh mailbox (for DELETE). */
  newMailbox(): Promise<string>;
  /** A fresh work item (for DELETE). */
  newItem(): Promise<string>;
  /** A fresh token (for DELETE). */
  newToken(): Promise<string>;
  /** A comment on itemOfAda, and a fresh one (for DELETE). */
  commentId: string;
  newComment(): Promise<string>;
  /** An item of ada's in progress, for a question to be asked about. */
  newWorkingItem(): Promise<string>;
  /** An open question on an item of its own, and a fresh one (for answering). */
  question: { item: string; id: string };
  newQuestion(): Promise<{ item: string; id: string }>;
}

interface Case {
  route: string;
  service: 'work' | 'classify';
  /** The request for one credential; fixtures are made fresh where the call consumes them. */
  request(
    f: Fixtures,
  ): Promise<{ url: string; payload?: unknown; headers?: Record<string, string>; contentType?: string }>;
  /** The status each role gets; every failing credential gets 401 unless `open`. */
  roles: Record<Role, number>;
  /** Public route: every credential, good or bad, gets this. */
  open?: number;
}

const only = (status: number, ...allowed: Role[]): Record<Role, number> =>
  Object.fromEntries(ROLES.map((role) => [role, allowed.includes(role) ? status : 403])) as Record<Role, number>;
const READ = (status: number) => only(status, 'viewer', 'agent', 'member', 'admin');
const everyone = (status: number) => only(status, ...ROLES);

const A2A_HEADERS = { 'a2a-version': '1.0' };
const a2aMessage = (text: string) => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] });

let counter = 0;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(counter += 1)}`;
const email = (subject: string) => ({ email_data: { subject, body: 'Please send the quarterly report by Friday.' } });
const MATRIX_SECRET_KEY = '5f0e1d2c3b4a59687766554433221100ffeeddccbbaa99887766554433221100';
/** Port 1 on loopback: nothing listens, so the connection test fails at once (and answers 200). */
const mailbox = () => ({
  name: unique('mailbox'),
  kind: 'imap',
  host: '127.0.0.1',
  port: 1,
  tls: 'none',
  username: 'matrix',
  password: 'matrix-password',
  enabled: false,
});

/** A fresh profile, made by the admin. */
async function newPerson(app: HttpApp): Promise<string> {
  const name = unique('person');
  const made = await call(
    app,
    'PUT',
    `/people/${name}`,
    { email: 'p@example.org', notify: 'off' },
    bearer(ADMIN_SECRET),
  );
  expect(made.status, made.text).toBe(201);
  return name;
}

/** A fresh webhook endpoint (port 1 on loopback: nothing listens), made by the admin. */
async function newWebhook(app: HttpApp): Promise<string> {
  const made = await call(
    app,
    'POST',
    '/webhooks',
    { url: 'http://127.0.0.1:1/hook', events: ['webhook.test'] },
    bearer(ADMIN_SECRET),
  );
  expect(made.status, made.text).toBe(201);
  return made.body.id as string;
}

/** A fresh endpoint with one test delivery queued. */
async function newDelivery(app: HttpApp): Promise<{ webhook: string; delivery: string }> {
  const webhook = await newWebhook(app);
  const queued = await call(app, 'POST', `/webhooks/${webhook}/test`, undefined, bearer(ADMIN_SECRET));
  expect(queued.status, queued.text).toBe(202);
  return { webhook, delivery: queued.body.id as string };
}
/** A fresh schedule (yearly, disabled: it never fires in the matrix), made by the admin. */
async function newSchedule(app: HttpApp): Promise<string> {
  const made = await call(app, 'POST', '/schedules', scheduleBody(), bearer(ADMIN_SECRET));
  expect(made.status, made.text).toBe(201);
  return made.body.id as string;
}
const scheduleBody = () => ({
  name: unique('schedule'),
  cron: '0 6 1 1 *',
  tz: 'Europe/Berlin',
  item: { type: 'matrix', description: 'a schedule in the role matrix' },
  enabled: false,
});

const CASES: Case[] = [
  { route: 'GET /health', service: 'work', request: async () => ({ url: '/health' }), roles: everyone(200), open: 200 },
  {
    route: 'GET /openapi.json',
    service: 'work',
    request: async () => ({ url: '/openapi.json' }),
    roles: everyone(200),
    open: 200,
  },
  { route: 'GET /metrics', service: 'work', request: async () => ({ url: '/metrics' }), roles: READ(200) },
  { route: 'GET /', service: 'work', request: async () => ({ url: '/' }), roles: everyone(200), open: 200 },
  { route: 'GET /work', service: 'work', request: async () => ({ url: '/work' }), roles: READ(200) },
  { route: 'GET /work/stats', service: 'work', request: async () => ({ url: '/work/stats?days=1' }), roles: READ(200) },
  { route: 'GET /work/counts', service: 'work', request: async () => ({ url: '/work/counts' }), roles: READ(200) },
  { route: 'GET /search', service: 'work', request: async () => ({ url: '/search?q=invoice' }), roles: READ(200) },
  {
    route: 'GET /work/agent/:agent',
    service: 'work',
    request: async () => ({ url: '/work/agent/ada' }),
    roles: READ(200),
  },
  {
    route: 'GET /work/:id',
    service: 'work',
    request: async (f) => ({ url: `/work/${f.itemOfAda}` }),
    roles: READ(200),
  },
  {
    route: 'GET /work/:id/history',
    service: 'work',
    request: async (f) => ({ url: `/work/${f.itemOfAda}/history` }),
    roles: READ(200),
  },
  {
    route: 'GET /work/:id/notifications',
    service: 'work',
    request: async (f) => ({ url: `/work/${f.itemOfAda}/notifications` }),
    roles: READ(200),
  },
  {
    route: 'GET /notifications',
    service: 'work',
    request: async () => ({ url: '/notifications' }),
    roles: only(200, 'admin'),
  },
  {
    route: 'GET /work/:id/dependents',
    service: 'work',
    request: async (f) => ({ url: `/work/${f.itemOfAda}/dependents` }),
    roles: READ(200),
  },
  {
    route: 'POST /work',
    service: 'work',
    request: async () => ({ url: '/work', payload: { type: 'matrix', description: 'submitted in the role matrix' } }),
    roles: only(201, 'agent', 'member', 'intake', 'admin'),
  },
  {
    route: 'POST /work/plans',
    service: 'work',
    request: async () => ({
      url: '/work/plans',
      payload: {
        parent: { type: 'matrix', description: 'a plan in the role matrix' },
        steps: [{ key: 'only', type: 'matrix', description: 'its step' }],
      },
    }),
    roles: only(201, 'agent', 'member', 'intake', 'admin'),
  },
  {
    route: 'PATCH /work/:id',
    service: 'work',
    request: async (f) => ({ url: `/work/${f.itemOfAda}`, payload: { notes: unique('note') } }),
    roles: only(200, 'agent', 'admin'),
  },
  {
    route: 'POST /work/claim',
    service: 'work',
    request: async () => ({ url: '/work/claim', payload: { agent: 'ada', types: ['matrix_nothing_here'] } }),
    roles: only(204, 'agent', 'admin'),
  },
  {
    route: 'POST /work/:id/heartbeat',
    service: 'work',
    request: async (f) => ({ url: `/work/${f.itemOfAda}/heartbeat`, payload: { agent: 'ada' } }),
    roles: only(200, 'agent', 'admin'),
  },
  // The conversation. An agent comments on items it holds (ada's), a person on any.
  {
    route: 'POST /work/:id/comments',
    service: 'work',
    request: async (f) => ({ url: `/work/${f.itemOfAda}/comments`, payload: { body: 'a comment from the matrix' } }),
    roles: only(201, 'agent', 'member', 'admin'),
  },
  {
    route: 'GET /work/:id/comments',
    service: 'work',
    request: async (f) => ({ url: `/work/${f.itemOfAda}/comments` }),
    roles: READ(200),
  },
  {
    route: 'DELETE /work/:id/comments/:comment_id',
    service: 'work',
    request: async (f) => ({ url: `/work/${f.itemOfAda}/comments/${await f.newComment()}` }),
    roles: only(204, 'admin'),
  },
  {
    route: 'POST /work/:id/questions',
    service: 'work',
    request: async (f) => ({
      url: `/work/${await f.newWorkingItem()}/questions`,
      payload: { question: 'Which one?', options: ['this', 'that'] },
    }),
    roles: only(201, 'agent', 'member', 'admin'),
  },
  {
    route: 'GET /work/:id/questions',
    service: 'work',
    request: async (f) => ({ url: `/work/${f.question.item}/questions` }),
    roles: READ(200),
  },
  {
    route: 'GET /work/:id/questions/:question_id',
    service: 'work',
    request: async (f) => ({ url: `/work/${f.question.item}/questions/${f.question.id}` }),
    roles: READ(200),
  },
  {
    // An agent answers only a question to @creator of an item it created; this one names nobody.
    route: 'POST /work/:id/questions/:question_id/answer',
    service: 'work',
    request: async (f) => {
      const { item, id } = await f.newQuestion();
      return { url: `/work/${item}/questions/${id}/answer`, payload: { answer: 'go ahead' } };
    },
    roles: only(200, 'member', 'admin'),
  },
  { route: 'GET /questions', service: 'work', request: async () => ({ url: '/questions' }), roles: READ(200) },
  {
    route: 'GET /questions/counts',
    service: 'work',
    request: async () => ({ url: '/questions/counts' }),
    roles: READ(200),
  },
  {
    route: 'DELETE /work/:id',
    service: 'work',
    request: async (f) => ({ url: `/work/${await f.newItem()}` }),
    roles: only(204, 'admin'),
  },
  { route: 'GET /projects', service: 'work', request: async () => ({ url: '/projects' }), roles: READ(200) },
  {
    route: 'GET /projects/:id',
    service: 'work',
    request: async (f) => ({ url: `/projects/${f.projectId}` }),
    roles: READ(200),
  },
  {
    route: 'POST /projects',
    service: 'work',
    request: async () => ({ url: '/projects', payload: { name: unique('project') } }),
    roles: only(201, 'admin'),
  },
  {
    route: 'PATCH /projects/:id',
    service: 'work',
    request: async (f) => ({ url: `/projects/${f.projectId}`, payload: { external_ref: unique('ref') } }),
    roles: only(200, 'admin'),
  },
  { route: 'GET /events', service: 'work', request: async () => ({ url: '/events' }), roles: READ(200) },
  {
    route: 'POST /ui-api/classify',
    service: 'work',
    request: async () => ({ url: '/ui-api/classify', payload: email(unique('proxy')) }),
    roles: only(200, 'intake', 'admin'),
  },
  {
    route: 'GET /ui-api/classify-usage',
    service: 'work',
    request: async () => ({ url: '/ui-api/classify-usage?group_by=day' }),
    roles: READ(200),
  },
  {
    route: 'GET /ui-api/mcp-setup',
    service: 'work',
    request: async () => ({ url: '/ui-api/mcp-setup' }),
    roles: only(200, 'admin'),
  },
  {
    route: 'POST /tokens',
    service: 'work',
    request: async () => ({ url: '/tokens', payload: { name: unique('minted'), role: 'viewer' } }),
    roles: only(201, 'admin'),
  },
  { route: 'GET /tokens', service: 'work', request: async () => ({ url: '/tokens' }), roles: only(200, 'admin') },
  {
    route: 'GET /tokens/:id',
    service: 'work',
    request: async (f) => ({ url: `/tokens/${f.tokenId}` }),
    roles: only(200, 'admin'),
  },
  {
    route: 'DELETE /tokens/:id',
    service: 'work',
    request: async (f) => ({ url: `/tokens/${await f.newToken()}` }),
    roles: only(204, 'admin'),
  },
  // People: a member reaches its own profile only (these name someone else's); an admin any.
  {
    route: 'PUT /people/:name',
    service: 'work',
    request: async () => ({ url: `/people/${unique('person')}`, payload: { email: 'p@example.org', notify: 'off' } }),
    roles: only(201, 'admin'),
  },
  {
    route: 'GET /people',
    service: 'work',
    request: async () => ({ url: '/people' }),
    roles: only(200, 'member', 'admin'),
  },
  {
    route: 'GET /people/:name',
    service: 'work',
    request: async (f) => ({ url: `/people/${await newPerson(f.app)}` }),
    roles: only(200, 'admin'),
  },
  {
    route: 'DELETE /people/:name',
    service: 'work',
    request: async (f) => ({ url: `/people/${await newPerson(f.app)}` }),
    roles: only(204, 'admin'),
  },
  // Schedules: members and admins manage them; everyone who reads the desk reads them.
  {
    route: 'POST /schedules',
    service: 'work',
    request: async () => ({ url: '/schedules', payload: scheduleBody() }),
    roles: only(201, 'member', 'admin'),
  },
  { route: 'GET /schedules', service: 'work', request: async () => ({ url: '/schedules' }), roles: READ(200) },
  {
    route: 'GET /schedules/preview',
    service: 'work',
    request: async () => ({ url: '/schedules/preview?cron=%40daily&tz=Europe%2FBerlin' }),
    roles: READ(200),
  },
  {
    route: 'GET /schedules/:id',
    service: 'work',
    request: async (f) => ({ url: `/schedules/${await newSchedule(f.app)}` }),
    roles: READ(200),
  },
  {
    route: 'PATCH /schedules/:id',
    service: 'work',
    request: async (f) => ({ url: `/schedules/${await newSchedule(f.app)}`, payload: { overlap: 'skip' } }),
    roles: only(200, 'member', 'admin'),
  },
  {
    route: 'DELETE /schedules/:id',
    service: 'work',
    request: async (f) => ({ url: `/schedules/${await newSchedule(f.app)}` }),
    roles: only(204, 'member', 'admin'),
  },
  {
    route: 'POST /schedules/:id/run',
    service: 'work',
    request: async (f) => ({ url: `/schedules/${await newSchedule(f.app)}/run` }),
    roles: only(201, 'member', 'admin'),
  },
  // The matrix's desk sends no mail: an admin who may ask gets the 409 saying so.
  {
    route: 'POST /people/:name/test-email',
    service: 'work',
    request: async (f) => ({ url: `/people/${await newPerson(f.app)}/test-email` }),
    roles: only(409, 'admin'),
  },
  {
    route: 'GET /webhooks/events',
    service: 'work',
    request: async () => ({ url: '/webhooks/events' }),
    roles: only(200, 'admin'),
  },
  {
    route: 'POST /webhooks',
    service: 'work',
    request: async () => ({ url: '/webhooks', payload: { url: 'http://127.0.0.1:1/hook', events: ['webhook.test'] } }),
    roles: only(201, 'admin'),
  },
  { route: 'GET /webhooks', service: 'work', request: async () => ({ url: '/webhooks' }), roles: only(200, 'admin') },
  {
    route: 'GET /webhooks/:id',
    service: 'work',
    request: async (f) => ({ url: `/webhooks/${await newWebhook(f.app)}` }),
    roles: only(200, 'admin'),
  },
  {
    route: 'PATCH /webhooks/:id',
    service: 'work',
    request: async (f) => ({ url: `/webhooks/${await newWebhook(f.app)}`, payload: { description: 'matrix' } }),
    roles: only(200, 'admin'),
  },
  {
    route: 'DELETE /webhooks/:id',
    service: 'work',
    request: async (f) => ({ url: `/webhooks/${await newWebhook(f.app)}` }),
    roles: only(204, 'admin'),
  },
  {
    route: 'POST /webhooks/:id/rotate-secret',
    service: 'work',
    request: async (f) => ({ url: `/webhooks/${await newWebhook(f.app)}/rotate-secret` }),
    roles: only(200, 'admin'),
  },
  {
    route: 'POST /webhooks/:id/test',
    service: 'work',
    request: async (f) => ({ url: `/webhooks/${await newWebhook(f.app)}/test` }),
    roles: only(202, 'admin'),
  },
  {
    route: 'GET /webhooks/:id/deliveries',
    service: 'work',
    request: async (f) => ({ url: `/webhooks/${await newWebhook(f.app)}/deliveries` }),
    roles: only(200, 'admin'),
  },
  {
    route: 'POST /webhooks/:id/deliveries/:delivery_id/redeliver',
    service: 'work',
    request: async (f) => {
      const { webhook, delivery } = await newDelivery(f.app);
      return { url: `/webhooks/${webhook}/deliveries/${delivery}/redeliver` };
    },
    roles: only(202, 'admin'),
  },
  {
    route: 'POST /webhooks/:id/recover',
    service: 'work',
    request: async (f) => ({
      url: `/webhooks/${await newWebhook(f.app)}/recover`,
      payload: { since: '2020-01-01T00:00:00.000Z' },
    }),
    roles: only(202, 'admin'),
  },
  {
    route: 'POST /mailboxes',
    service: 'work',
    request: async () => ({ url: '/mailboxes', payload: mailbox() }),
    roles: only(201, 'admin'),
  },
  { route: 'GET /mailboxes', service: 'work', request: async () => ({ url: '/mailboxes' }), roles: READ(200) },
  {
    route: 'GET /mailboxes/:id',
    service: 'work',
    request: async (f) => ({ url: `/mailboxes/${f.mailboxId}` }),
    roles: READ(200),
  },
  {
    route: 'PATCH /mailboxes/:id',
    service: 'work',
    request: async (f) => ({ url: `/mailboxes/${f.mailboxId}`, payload: { name: unique('renamed') } }),
    roles: only(200, 'admin'),
  },
  {
    route: 'DELETE /mailboxes/:id',
    service: 'work',
    request: async (f) => ({ url: `/mailboxes/${await f.newMailbox()}` }),
    roles: only(204, 'admin'),
  },
  {
    route: 'POST /mailboxes/:id/test',
    service: 'work',
    request: async (f) => ({ url: `/mailboxes/${f.mailboxId}/test` }),
    roles: only(200, 'admin'),
  },
  {
    route: 'POST /mailboxes/:id/import',
    service: 'work',
    request: async (f) => ({
      url: `/mailboxes/${f.mailboxId}/import`,
      payload: 'Subject: matrix\r\n\r\nImported in the role matrix.\r\n',
      contentType: 'message/rfc822',
    }),
    roles: only(202, 'admin'),
  },
  {
    route: 'GET /mailboxes/:id/messages',
    service: 'work',
    request: async (f) => ({ url: `/mailboxes/${f.mailboxId}/messages` }),
    roles: READ(200),
  },
  // Public, but a presented bearer token is checked: GET /session is how a client asks "who am I".
  { route: 'GET /session', service: 'work', request: async () => ({ url: '/session' }), roles: everyone(200) },
  {
    route: 'POST /session',
    service: 'work',
    // The credential rides in the body here, not in a header: see the session tests.
    request: async () => ({ url: '/session', payload: { token: 'adk_nonsense' } }),
    roles: everyone(401),
    open: 401,
  },
  {
    route: 'DELETE /session',
    service: 'work',
    request: async () => ({ url: '/session' }),
    roles: everyone(204),
    open: 204,
  },
  // MCP: whoever reads may connect; each tool then calls the API with the same credential.
  {
    route: 'POST /mcp',
    service: 'work',
    request: async () => ({
      url: '/mcp',
      payload: { jsonrpc: '2.0', id: 1, method: 'ping' },
      headers: { accept: 'application/json, text/event-stream' },
    }),
    roles: READ(200),
  },
  // Stateless: no server stream, no session to end.

  // A2A: the card is public, as A2A requires; the JSON-RPC binding takes the roles of POST /work
  // (a refusal of the API behind it is a JSON-RPC error, still a 200).
  {
    route: 'GET /.well-known/agent-card.json',
    service: 'work',
    request: async () => ({ url: '/.well-known/agent-card.json' }),
    roles: everyone(200),
    open: 200,
  },
  {
    route: 'POST /a2a',
    service: 'work',
    request: async () => ({
      url: '/a2a',
      payload: { jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} },
      headers: { 'a2a-version': '1.0' },
    }),
    roles: only(200, 'agent', 'member', 'intake', 'admin'),
  },

  // A2A over HTTP+JSON: the roles of POST /a2a on every route; a task is its requester's (an
  // admin's: anyone's), so another caller's is a 404, as one that does not exist. An intake may
  // send but not read: the API's refusal behind a read is A2A's UnsupportedOperationError, a 400.
  {
    route: 'POST /a2a/message::send',
    service: 'work',
    request: async () => ({
      url: '/a2a/message:send',
      payload: { message: a2aMessage('Matrix task'), configuration: { returnImmediately: true } },
      headers: A2A_HEADERS,
    }),
    roles: only(200, 'agent', 'member', 'intake', 'admin'),
  },
  {
    route: 'POST /a2a/message::stream',
    service: 'work',
    // An empty task is REJECTED, which ends its stream at once.
    request: async () => ({ url: '/a2a/message:stream', payload: { message: a2aMessage(' ') }, headers: A2A_HEADERS }),
    roles: only(200, 'agent', 'member', 'intake', 'admin'),
  },
  {
    route: 'GET /a2a/tasks',
    service: 'work',
    request: async () => ({ url: '/a2a/tasks?pageSize=5', headers: A2A_HEADERS }),
    roles: { viewer: 403, agent: 200, member: 200, intake: 400, admin: 200 },
  },
  {
    route: 'GET /a2a/tasks/:id',
    service: 'work',
    request: async (f) => ({ url: `/a2a/tasks/${f.itemOfAda}`, headers: A2A_HEADERS }),
    roles: { viewer: 403, agent: 404, member: 404, intake: 400, admin: 200 },
  },
  {
    route: 'POST /a2a/tasks/:id(^[^:]+)::cancel',
    service: 'work',
    request: async (f) => ({ url: `/a2a/tasks/${await f.newItem()}:cancel`, headers: A2A_HEADERS }),
    roles: { viewer: 403, agent: 404, member: 404, intake: 400, admin: 200 },
  },
  ...(['GET', 'POST'] as const).map((method) => ({
    route: `${method} /a2a/tasks/:id(^[^:]+)::subscribe`,
    service: 'work' as const,
    request: async () => ({ url: '/a2a/tasks/no-such-task:subscribe', headers: A2A_HEADERS }),
    roles: only(404, 'agent', 'member', 'intake', 'admin'),
  })),
  {
    route: 'GET /a2a/extendedAgentCard',
    service: 'work',
    request: async () => ({ url: '/a2a/extendedAgentCard', headers: A2A_HEADERS }),
    roles: only(200, 'agent', 'member', 'intake', 'admin'),
  },
  ...(
    [
      ['POST', ''],
      ['GET', ''],
      ['GET', '/:configId'],
      ['DELETE', '/:configId'],
    ] as const
  ).map(([method, tail]) => ({
    route: `${method} /a2a/tasks/:id/pushNotificationConfigs${tail}`,
    service: 'work' as const,
    request: async (f: Fixtures) => ({
      url: `/a2a/tasks/${f.itemOfAda}/pushNotificationConfigs${tail ? '/c1' : ''}`,
      ...(method === 'POST' && { payload: { url: 'https://example.org/hook' } }),
      headers: A2A_HEADERS,
    }),
    // Another's task is not found; an intake token may not read it (400); an admin reads any task:
    // it lists the configs, finds no c1, and may make none without AGENTDESK_SECRET_KEY (400).
    roles: {
      ...only(404, 'agent', 'member', 'admin'),
      intake: 400,
      ...(method === 'POST' && { admin: 400 }),
      ...(method === 'GET' && tail === '' && { admin: 200 }),
    },
  })),

  // An answer link: public, the signed token is the credential (a garbage one is a 404 page for all).
  {
    route: 'GET /answer/:token',
    service: 'work',
    request: async () => ({ url: '/answer/not-a-signed-token' }),
    roles: everyone(404),
    open: 404,
  },
  {
    route: 'POST /answer/:token',
    service: 'work',
    request: async () => ({
      url: '/answer/not-a-signed-token',
      payload: 'option=yes',
      contentType: 'application/x-www-form-urlencoded',
    }),
    roles: everyone(404),
    open: 404,
  },

  {
    route: 'GET /health',
    service: 'classify',
    request: async () => ({ url: '/health' }),
    roles: everyone(200),
    open: 200,
  },
  {
    route: 'GET /openapi.json',
    service: 'classify',
    request: async () => ({ url: '/openapi.json' }),
    roles: everyone(200),
    open: 200,
  },
  { route: 'GET /metrics', service: 'classify', request: async () => ({ url: '/metrics' }), roles: READ(200) },
  {
    route: 'POST /classify',
    service: 'classify',
    request: async () => ({ url: '/classify', payload: email(unique('direct')) }),
    roles: only(200, 'intake', 'admin'),
  },
  {
    route: 'POST /classify (with overrides)',
    service: 'classify',
    request: async () => ({ url: '/classify', payload: { ...email(unique('override')), temperature: 0.2 } }),
    roles: { viewer: 403, agent: 403, member: 403, intake: 403, admin: 200 },
  },
  // Usage and cost are an operator's read, like the work service's lists.
  {
    route: 'GET /classify/usage',
    service: 'classify',
    request: async () => ({ url: '/classify/usage?group_by=model' }),
    roles: READ(200),
  },
];

/** GET /session with a bad bearer is a 401 like any route's; with none it answers "not signed in". */
function expected(c: Case, credential: Credential): number {
  if (c.route === 'GET /session')
    return credential === 'none' ? 200 : FAILING.includes(credential as never) ? 401 : 200;
  if (c.open !== undefined) return c.open;
  if (FAILING.includes(credential as never)) return 401;
  return c.roles[credential === 'env-admin' ? 'admin' : (credential as Role)];
}

async function statusOf(
  app: HttpApp,
  method: string,
  url: string,
  payload: unknown,
  headers: Record<string, string>,
): Promise<number> {
  if (url === '/events') {
    // A stream never ends: listen and read only the status.
    const address = await app
      .listen({ port: 0, host: '127.0.0.1' })
      .catch(() => `http://127.0.0.1:${(app.server.address() as { port: number }).port}`);
    const abort = new AbortController();
    const response = await fetch(`${address}/events`, { headers, signal: abort.signal });
    abort.abort();
    return response.status;
  }
  const response = await call(app, method as 'GET', url, payload, headers);
  return response.status;
}

describe.each(await storesUnderTest())('role × route matrix on %s', (kind) => {
  let pair: AuthPair;
  const credentials = {} as Record<Credential, Record<string, string>>;
  let fixtures: Fixtures;

  beforeAll(async () => {
    pair = await startAuthPair(kind, {
      AGENTDESK_SECRET_KEY: MATRIX_SECRET_KEY,
      INTAKE_WORKER: 'false',
      INTAKE_ALLOWED_HOSTS: '127.0.0.1',
    });
    const app = pair.work;
    const minted: Record<string, string> = {};
    for (const role of ROLES) {
      minted[role] = (
        await mintToken(app, { role, name: `${role}-one`, ...(role === 'agent' && { agent: 'ada' }) })
      ).token;
    }
    const expired = await mintToken(app, { role: 'admin', name: 'expired-admin' });
    await expireToken(pair.database, expired.id);
    const revoked = await mintToken(app, { role: 'admin', name: 'revoked-admin' });
    expect((await call(app, 'DELETE', `/tokens/${revoked.id}`, undefined, bearer(ADMIN_SECRET))).status).toBe(204);
    Object.assign(credentials, {
      none: {},
      malformed: bearer('adk_not-a-token'),
      unknown: bearer(generateToken()),
      expired: bearer(expired.token),
      revoked: bearer(revoked.token),
      ...Object.fromEntries(ROLES.map((role) => [role, bearer(minted[role]!)])),
      'env-admin': bearer(ADMIN_SECRET),
    });
    const admin = bearer(ADMIN_SECRET);
    const newItem = async () =>
      (await call(app, 'POST', '/work', { type: 'matrix', description: 'fixture', agent: 'ada' }, admin)).body
        .id as string;
    const newMailbox = async () => (await call(app, 'POST', '/mailboxes', mailbox(), admin)).body.id as string;
    const itemOfAda = await newItem();
    const newComment = async () =>
      (await call(app, 'POST', `/work/${itemOfAda}/comments`, { body: 'fixture' }, admin)).body.id as string;
    const newWorkingItem = async () => {
      const id = await newItem();
      expect((await call(app, 'PATCH', `/work/${id}`, { status: 'in_progress' }, admin)).status).toBe(200);
      return id;
    };
    const newQuestion = async () => {
      const item = await newWorkingItem();
      const asked = await call(app, 'POST', `/work/${item}/questions`, { question: 'Go ahead?' }, admin);
      expect(asked.status, asked.text).toBe(201);
      return { item, id: asked.body.id as string };
    };
    fixtures = {
      commentId: await newComment(),
      newComment,
      newWorkingItem,
      question: await newQuestion(),
      newQuestion,
      app,
      mailboxId: await newMailbox(),
      newMailbox,
      itemOfAda,
      projectId: (await call(app, 'POST', '/projects', { name: 'matrix project' }, admin)).body.id,
      tokenId: (await mintToken(app, { role: 'viewer', name: 'listed' })).id,
      newItem,
      newToken: async () => (await mintToken(app, { role: 'viewer', name: unique('doomed') })).id,
    };
  });

  afterAll(() => pair?.close());

  it('every route of both services is in the matrix', () => {
    const routesOf = (app: HttpApp, service: string) =>
      app
        .accessTable()
        .filter((route) => route.method !== 'HEAD' && !route.url.startsWith('/docs'))
        .map((route) => `${service} ${route.method} ${route.url}`);
    const registered = [...routesOf(pair.work, 'work'), ...routesOf(pair.classify, 'classify')].sort();
    const inMatrix = [...new Set(CASES.map((c) => `${c.service} ${c.route.replace(/ \(.*\)$/, '')}`))].sort();
    expect(registered).toEqual(inMatrix);
    for (const app of [pair.work, pair.classify]) {
      expect(app.accessTable().filter((route) => route.access === undefined)).toEqual([]);
    }
  });

  it.each(CASES.map((c) => [`${c.service} ${c.route}`, c] as const))('%s', async (_name, c) => {
    const app = c.service === 'work' ? pair.work : pair.classify;
    const [method, path] = c.route.split(' ') as [string, string];
    void path;
    const want: Record<string, number> = {};
    const got: Record<string, number> = {};
    for (const credential of CREDENTIALS) {
      const { url, payload, headers: extra, contentType } = await c.request({ ...fixtures, app });
      const headers = {
        ...extra,
        ...credentials[credential],
        [CSRF_HEADER]: '1',
        ...(contentType && { 'content-type': contentType }),
      };
      want[credential] = expected(c, credential);
      got[credential] = await statusOf(app, method, url, payload, headers);
    }
    expect(got).toEqual(want);
  });

  it('a 401 says Bearer and nothing that tells the failures apart', async () => {
    const bodies = new Set<string>();
    for (const credential of ['malformed', 'unknown', 'expired', 'revoked'] as const) {
      const response = await call(pair.work, 'GET', '/work', undefined, credentials[credential]);
      expect(response.status).toBe(401);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.headers['www-authenticate']).toBe('Bearer realm="agentdesk", error="invalid_token"');
      bodies.add(response.text);
    }
    expect(bodies.size).toBe(1);
    const none = await call(pair.work, 'GET', '/work');
    expect(none.headers['www-authenticate']).toBe('Bearer realm="agentdesk"');
    expect(none.body).toMatchObject({ status: 401, title: 'Unauthorized' });
  });

  it('a 403 is problem+json naming the roles that may', async () => {
    const response = await call(pair.work, 'DELETE', `/work/${fixtures.itemOfAda}`, undefined, credentials.viewer);
    expect(response.status).toBe(403);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body.detail).toContain('admin');
  });
});
