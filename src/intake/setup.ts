import type { Logger } from 'pino';
import type { ClassifyService } from '../classify/index.js';
import type { Config } from '../shared/config/config.js';
import type { Database } from '../shared/db/database.js';
import type { HttpApp } from '../shared/http/types.js';
import type { WorkForIntake } from './work-port.js';
import type { RepliesForIntake } from './reply-port.js';
import { createHostGuard } from './host-guard.js';
import { DEFAULT_TIMEOUTS } from './imap/connection.js';
import { createMailboxService } from './mailbox-service.js';
import { createPipeline } from './pipeline.js';
import { registerMailboxRoutes } from './routes.js';
import { createSecretBox } from '../shared/secret-box.js';
import { openMailboxSecret } from './secrets.js';
import { createIntakeStore, intakeStoreFor } from './store/index.js';
import { createSupervisor } from './supervisor.js';
import { queueUpload } from './uploads.js';

export interface IntakeDeps {
  config: Readonly<Config>;
  database: Database;
  logger: Logger;
  /** Work's port for intake: work items are created in the same transaction as the log entry. */
  work: WorkForIntake;
  /** Recognises replies to the desk's own mail (they answer questions instead of making items). */
  replies?: RepliesForIntake;
  /**
   * The classification service's own code path, in process (normalize, dedupe, provider, store),
   * built by the composition root with this process's metrics and tracing.
   */
  classify: ClassifyService;
  /** The service's clock (the log's timestamps). */
  now?: () => Date;
}

/**
 * Mail intake inside the work service: the mailbox routes, and (with INTAKE_WORKER, the default)
 * the watchers, which start when the app is ready and stop before it closes.
 */
export async function registerIntake(
  app: HttpApp,
  { config, database, logger, work, replies, classify, now }: IntakeDeps,
): Promise<void> {
  const store = createIntakeStore(database);
  const pipeline = createPipeline({
    store,
    storeOn: intakeStoreFor(database.dialect),
    work,
    ...(replies && { replies }),
    classify,
    logger,
    now,
  });
  const secrets = createSecretBox(config.intake.secretKey);
  const guard = createHostGuard(config.outbound.allowedHosts);
  const graph = {
    graphUrl: config.intake.graphUrl,
    loginUrl: config.intake.graphLoginUrl,
    timeoutMs: DEFAULT_TIMEOUTS.connectMs,
  };
  const supervisor = config.intake.worker
    ? createSupervisor({
        store,
        pipeline,
        openSecret: (row) => openMailboxSecret(secrets, row),
        config: config.intake,
        timeouts: DEFAULT_TIMEOUTS,
        graph,
        guard,
        logger,
      })
    : null;
  const mailboxes = createMailboxService({
    store,
    work,
    secrets,
    timeouts: DEFAULT_TIMEOUTS,
    graph,
    guard,
    onChange: (id) => supervisor?.wake(id),
    queueUpload: (id, messages, at) => queueUpload(database, id, messages, at),
  });
  await registerMailboxRoutes(app, mailboxes, config.intake.importMaxBytes);
  if (!supervisor) return;
  app.addHook('onReady', async () => supervisor.start());
  app.addHook('preClose', async () => supervisor.stop());
}
