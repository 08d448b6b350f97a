import type { Logger } from 'pino';
import { registerSessionRoutes, registerTokenRoutes, createTokenService } from '../auth/index.js';
import { ACCESS } from '../auth/contract.js';
import { createUsageReader, registerUsageRoute, createUsageStore } from '../classify/index.js';
import { registerIntake } from '../intake/index.js';
import { registerPeopleRoutes } from '../notify/index.js';
import { createAnswerLinks, createLinkTokens, loadLinkSecret, registerAnswerLinkRoutes } from '../notify/index.js';
import { registerMcpRoutes } from '../mcp/http.js';
import { registerMcpSetupRoute } from '../mcp/setup-route.js';
import type { Config } from '../shared/config/config.js';
import { registerDatabaseMetrics } from '../shared/observability/database-metrics.js';
import type { Database } from '../shared/db/database.js';
import { registerHealthRoute } from '../shared/http/health.js';
import type { HttpApp } from '../shared/http/types.js';
import { NotFoundError } from '../shared/errors.js';
import { createSignal } from '../shared/process/signal.js';
import { TRACED_SERVICES } from '../shared/observability/tracing.js';
import {
  registerConversationGauges,
  registerConversationRoutes,
  createConversation,
  DEPENDENT_NOTES,
} from '../conversation/index.js';
import {
  type ClaimableNews,
  createClaimService,
  createEventHub,
  registerEventRoutes,
  createRecentItems,
  SWEEP_EVERY_MS,
  startLeaseSweeper,
  createWorkCounters,
  registerWorkGauges,
  createProjectService,
  registerProjectRoutes,
  registerWorkRoutes,
  registerPlanRoutes,
  createPlanService,
  createWorkService,
  startStatsCompactor,
  registerStatsRoutes,
  createStatsService,
  createStatsStore,
  createWorkStore,
  type FinishedHook,
} from '../work/index.js';
import {
  createNotify,
  type NotifyDeps,
  type NotifyScheduler,
  type OutboxSender,
  registerNotificationRoutes,
  registerTestMailRoute,
} from '../notify/index.js';
import { createWebhooks, registerWebhookRoutes, type Webhooks, type WebhooksDeps } from '../webhooks/index.js';
import { createSearchService, createSearchStore, registerSearchRoutes } from '../search/index.js';
import { createRetentionStore, startRetention, type Retention } from '../retention/index.js';
import { createSchedules, registerScheduleRoutes, type Schedules, type SchedulesDeps } from '../schedules/index.js';
import { registerClassifyProxy, relayTimeoutMs } from '../ui-server/classify-proxy.js';
import { workForIntake } from './intake-work.js';
import { registerWebUi } from '../ui-server/static-files.js';
import { createSecretBox } from '../shared/secret-box.js';
import { buildServiceApp } from './app.js';
import { WORK_SCHEMAS } from './openapi-schemas.js';
import { buildClassifyService } from './classify.js';
import {
  createA2aStore,
  createCards,
  createPushConfigs,
  createPushBody,
  registerA2aRoutes,
  startPushSweep,
  type PushEndpoints,
} from '../a2a/index.js';

// The work service's composition root: the work API, projects, events and stats, and what runs
// beside them in this process: sign-in and tokens, mail intake (with the process's one
// ClassifyService), MCP, the classify proxy and usage for the UI, and the web UI itself.

export interface WorkAppDeps {
  config: Readonly<Config>;
  database: Database;
  logger: Logger;
  /** Where the built web UI lives; found next to the code when absent. */
  webRoot?: string | null;
  /**
   * The clock every part of the service reads (leases, backoff, expiry, timestamps); tests give
   * one they move by hand instead of sleeping.
   */
  now?: () => Date;
  /** How often the lease sweeper looks for expired leases (SWEEP_EVERY_MS). */
  sweepEveryMs?: number;
  /**
   * Given the lease sweeper's `sweep` once it runs: a test that moves the clock by hand sweeps
   * when it chooses instead of waiting for the timer.
   */
  onLeaseSweeper?: (sweep: () => Promise<number>) => void;
  /** How often a quiet A2A stream gets a keep-alive line (tests shorten it). */
  a2aHeartbeatMs?: number;
  /** Hands over the event log's retention pass, as onLeaseSweeper does the sweep. */
  onEventsPurge?: (purge: () => Promise<number>) => void;
  /**
   * notify's collaborators: who is told of a question (the people feature) and the signed tokens
   * of links and reply addresses (the links feature); tests give fixed ones and short timeouts.
   */
  notify?: Pick<NotifyDeps, 'recipients' | 'tokens' | 'smtpTimeouts' | 'sender' | 'scheduler'>;
  /** Given the outbox's sender once it runs: a test that moves the clock runs a pass when it chooses. */
  onNotifySender?: (sender: OutboxSender) => void;
  /** Given the digests' and escalations' scheduler once it runs: a test runs its passes at its clock. */
  onNotifyScheduler?: (scheduler: NotifyScheduler) => void;
  /**
   * webhooks' collaborators: the outbound guard and the HTTP POST (OUTBOUND_ALLOWED_HOSTS's
   * guard and guarded POST unless given), the sender's and fan-out's timers; tests give short ones.
   */
  webhooks?: Pick<WebhooksDeps, 'guard' | 'transport' | 'sender' | 'fanOutPollMs'>;
  /** Given webhooks' parts once they run: a test runs the fan-out and the sender at its clock. */
  onWebhooks?: (webhooks: Webhooks) => void;
  /** The schedules' pass loop: tests stop its timer and nudges and run its passes themselves. */
  schedules?: SchedulesDeps['scheduler'];
  /** Given the schedules once built: a test runs the firing pass at its clock. */
  onSchedules?: (schedules: Schedules) => void;
  /** Given the sweep of ended tasks' A2A push configs: a test runs it at its clock. */
  onA2aPushSweep?: (sweep: () => Promise<number>) => void;
  /** Given retention once it runs: a test runs an archiving pass at its clock. */
  onRetention?: (retention: Retention) => void;
  /** How many matches search ranks whole, and how many newest items it ranks past that (tests make it small). */
  searchRankedWindow?: number;
}

export const WORK_BODY_LIMIT = 1024 * 1024;
const WORK_SERVICE_VERSION = '0.1.0';

/** A read's NotFound as undefined; any other failure stays one. */
function unlessNotFound(error: unknown): undefined {
  if (error instanceof NotFoundError) return undefined;
  throw error;
}

/** The work-item service as a Fastify app that never listens: `main` or a test decides that. */
export async function buildWorkApp({
  config,
  logger,
  webRoot,
  now = () => new Date(),
  sweepEveryMs = SWEEP_EVERY_MS,
  onLeaseSweeper,
  onEventsPurge,
  a2aHeartbeatMs,
  notify: notifyDeps = {},
  onNotifySender,
  onNotifyScheduler,
  webhooks: webhookDeps = {},
  onWebhooks,
  schedules: schedulesOptions,
  onSchedules,
  onA2aPushSweep,
  onRetention,
  searchRankedWindow,
  ...deps
}: WorkAppDeps): Promise<HttpApp> {
  const { app, database, tracing, auth, gate } = await buildServiceApp({
    config,
    database: deps.database,
    logger,
    service: TRACED_SERVICES.work,
    bodyLimit: WORK_BODY_LIMIT,
    title: 'agentdesk work-item service',
    description: 'Work items dispatched to agents, tracked through their lifecycle, grouped into projects.',
    version: WORK_SERVICE_VERSION,
    schemas: WORK_SCHEMAS,
  });
  // The store signals each commit that appended events, with what it made claimable; the hub and
  // the waiting claims listen, and the hub's NOTIFY carries the claims' news to other instances.
  const commits = createSignal<ClaimableNews>();
  let announcement = (): string => '';
  let webhooks: Webhooks | null = null;
  const hub = await createEventHub(database, logger, {
    payload: () => announcement(),
    // The log keeps what the webhooks' fan-out has not read yet.
    keepAbove: async () => (webhooks === null ? null : webhooks.keepAbove()),
    retentionDays: config.events.retentionDays,
    now,
  });
  // A final item closes its open question in the same commit: the conversation's hook, bound
  // once the conversation exists (it needs the store).
  let closeForFinished: FinishedHook = async () => {};
  const store = createWorkStore(database, DEPENDENT_NOTES, commits.fire, (...args) => closeForFinished(...args));
  const observer = createWorkCounters(app.metricsRegistry, config.metrics.maxTypes);
  const recent = createRecentItems();
  const claims = createClaimService({ store, database, logger, recent, observer, now });
  announcement = claims.announcement;
  commits.listen(() => hub.committed());
  commits.listen(() => webhooks?.committed());
  commits.listen(claims.publishClaimable);
  // Answer links and reply addresses: signed with LINK_SECRET, else the secret the first
  // instance kept in the database (sealed when the server has AGENTDESK_SECRET_KEY).
  const linkBox = createSecretBox(config.intake.secretKey);
  if (config.answerLinks.secret === null && linkBox === null)
    logger.warn('the answer-link secret is kept in the database in clear: set AGENTDESK_SECRET_KEY to seal it');
  const linkTokens = createLinkTokens(
    await loadLinkSecret({ configured: config.answerLinks.secret, database, box: linkBox, now }),
    config.answerLinks.ttlS,
  );
  // Told of each question and review in its transaction: the outbox's rows commit with it.
  const notify = createNotify({ config, database, store, logger, now, links: linkTokens, ...notifyDeps });
  const conversation = createConversation({
    store,
    database,
    logger,
    now,
    recent,
    observer,
    waitsPerCaller: config.questions.waitsPerCaller,
    opened: notify.opened,
  });
  closeForFinished = conversation.questions.closeForFinished;
  const statsStore = createStatsStore(database);
  const work = createWorkService({
    store,
    recent,
    observer,
    now,
    reviewGate: conversation.questions.reviewGate,
    keptCounts: () => statsStore.itemsByStatusAndType(),
  });
  const stats = createStatsService({ store: statsStore, now, maxTypes: config.metrics.maxTypes });
  // The item gauges read the maintained counts (src/work/stats), never a scan of work_items.
  registerWorkGauges(app.metricsRegistry, { source: stats, counters: observer, claims, hub, logger });
  registerConversationGauges(app.metricsRegistry, conversation.waits);
  registerDatabaseMetrics(app, app.metricsRegistry, database);
  const a2aStore = createA2aStore(database);
  webhooks = createWebhooks({
    config,
    database,
    logger,
    now,
    metrics: app.metricsRegistry,
    tellOwner: notify.notice,
    appendEvent: async (type, data, at) => {
      await store.transaction(async (tx) => {
        await tx.appendEvent(type, JSON.stringify(data), at);
      });
    },
    // A2A push configs are endpoints scoped to one task: their body is the task's change.
    scopedBody: createPushBody(a2aStore),
    ...webhookDeps,
  });
  webhooks.start();
  onWebhooks?.(webhooks);
  const sweeper = startLeaseSweeper({ store, work, logger, now, everyMs: sweepEveryMs });
  onLeaseSweeper?.(sweeper.sweep);
  onEventsPurge?.(hub.purge);
  const compactor = startStatsCompactor({ store: statsStore, logger });
  const sender = notify.start(async (questionId) => (await conversation.questions.find(questionId))?.status);
  if (sender) onNotifySender?.(sender);
  const scheduler = notify.startScheduler(conversation.statementsOn);
  if (scheduler) onNotifyScheduler?.(scheduler);
  // Each occurrence's item goes through the work service's create, in the occurrence's commit.
  const schedules = createSchedules({
    database,
    store,
    makeItem: work.create,
    logger,
    now,
    metrics: app.metricsRegistry,
    ...(schedulesOptions && { scheduler: schedulesOptions }),
  });
  onSchedules?.(schedules);
  const service = webhooks.service;
  const pushEndpoints: PushEndpoints = {
    create: (scoped) => service.createScoped(scoped),
    // Gone already (another instance's sweep, the item deleted): nothing left to remove.
    remove: (id) => service.remove(id).catch(unlessNotFound),
  };
  const pushSweep = startPushSweep({
    store: a2aStore,
    endpoints: pushEndpoints,
    now,
    logger,
    graceDays: config.a2a.pushGraceDays,
  });
  onA2aPushSweep?.(pushSweep.sweep);
  const retention = startRetention({
    store: createRetentionStore(database),
    config: config.retention,
    now,
    logger,
    metrics: app.metricsRegistry,
  });
  onRetention?.(retention);
  app.addHook('preClose', async () => {
    pushSweep.stop();
    await retention.stop();
    await schedules.close();
    await notify.close();
    await webhooks?.close();
    await claims.close();
    await conversation.waits.close();
    await sweeper.stop();
    await compactor.stop();
  });
  // Before the item routes, so /work/stats is never read as an item id.
  registerStatsRoutes(app, stats);
  registerPlanRoutes(
    app,
    createPlanService({ store, now, createItem: work.create, readItem: (tx, id) => work.get(id, tx) }),
  );
  registerWorkRoutes(app, work, claims);
  registerConversationRoutes(app, conversation.comments, conversation.questions);
  registerSearchRoutes(app, createSearchService(createSearchStore(database, searchRankedWindow)));
  registerNotificationRoutes(app, notify.notifications);
  registerPeopleRoutes(app, notify.people);
  registerTestMailRoute(app, notify.testMail);
  registerWebhookRoutes(app, webhooks.service);
  registerScheduleRoutes(app, schedules.service);
  const projects = createProjectService({ store, now });
  registerProjectRoutes(app, projects);
  await registerAnswerLinkRoutes(
    app,
    createAnswerLinks({
      tokens: linkTokens,
      questions: conversation.questions,
      describeItem: async (id) => {
        const item = await work.get(id).catch(unlessNotFound);
        if (!item) return undefined;
        const project = item.project_id === null ? null : await projects.get(item.project_id).catch(unlessNotFound);
        return {
          type: item.type,
          description: item.description,
          priority: item.priority,
          project: project?.name ?? null,
        };
      },
      now,
    }),
  );
  registerEventRoutes(app, hub);
  // The desk as an A2A agent: tasks are work items, followed through the hub's wake-ups.
  await registerA2aRoutes(app, {
    heartbeatMs: a2aHeartbeatMs,
    cards: createCards({
      version: WORK_SERVICE_VERSION,
      authOn: config.auth.mode === 'tokens',
      skills: config.a2a.skills,
      knownTypes: async () => [...new Set((await statsStore.itemsByStatusAndType()).map((row) => row.type))].sort(),
      now,
    }),
    publicUrl: config.mail.publicUrl,
    store: a2aStore,
    push: createPushConfigs({ store: a2aStore, endpoints: pushEndpoints, now }),
    watch: hub.watch,
    now,
    skills: config.a2a.skills,
    defaultType: config.a2a.defaultType,
    blockingWaitMs: config.a2a.blockingWaitMs,
    cancelOwn: (id, principal) => work.cancelOwn(id, principal),
  });
  // Intake classifies in process: the same service as POST /classify, counted and traced here.
  const classify = buildClassifyService({ config, database, logger, metrics: app.metricsRegistry, tracing });
  await registerIntake(app, {
    config,
    database,
    logger,
    work: workForIntake(store, conversation.statementsOn, conversation.questions),
    replies: { recognise: notify.recogniseReply },
    classify,
    now,
  });
  registerHealthRoute(app, database, ACCESS.public, retention.health);
  registerTokenRoutes(app, createTokenService({ store: auth.store, authenticator: auth.authenticator, now }));
  registerSessionRoutes(app, { config: config.auth, authenticator: auth.authenticator, gate });
  app.addHook('onClose', () => auth.authenticator.close());
  registerClassifyProxy(app, config.classifyUrl, relayTimeoutMs(config.llm), tracing);
  // The services share the database: the UI's dashboard reads usage here, on its one origin.
  registerUsageRoute(
    app,
    '/ui-api/classify-usage',
    createUsageReader(createUsageStore(database), config.llm.prices),
    'ui',
  );
  registerMcpRoutes(app, { auth: config.auth, host: config.host });
  registerMcpSetupRoute(app);
  await registerWebUi(app, webRoot);
  // Last, so the spans of everything closing before it are still sent.
  app.addHook('onClose', () => tracing.shutdown());
  return app;
}
