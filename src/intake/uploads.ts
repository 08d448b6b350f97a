// POST /mailboxes/{id}/import: an .eml file or an mbox export, split into messages and queued in
// the database (so a restart resumes it), then drained by the mailbox's watcher through the same
// pipeline as IMAP mail. Progress is the mailbox's backfill counter.

import { randomId } from '../shared/db/ids.js';
import type { Logger } from 'pino';
import type { Database } from '../shared/db/database.js';
import { UnreadableUpload } from './errors.js';
import { COMMIT_BATCH, runOrdered } from './ordered.js';
import type { Pipeline } from './pipeline.js';
import type { IntakeStore } from './store/port.js';
import { intakeStoreFor } from './store/index.js';
import type { MailboxRow } from './tables.js';

export const UPLOAD_TYPES = {
  eml: 'message/rfc822',
  mbox: 'application/mbox',
  /** Sniffed: an mbox starts with a "From " line, anything else is taken as one message. */
  any: 'application/octet-stream',
} as const;

const MAX_MESSAGES = 100_000;
const DRAIN_BATCH = 50;

/** The mbox "From " separator line, as it starts the file or follows a line break. */
const SEPARATOR = /(?:^|\n)From [^\n]*\n/g;

/**
 * Splits an mbox (mboxo or mboxrd): every line starting "From " begins a message, and one ">" is
 * taken off quoted ">From " lines. Bytes are handled as latin1 so nothing is re-encoded.
 */
export function splitMbox(file: Buffer): Buffer[] {
  const text = file.toString('latin1');
  const starts: Array<{ at: number; body: number }> = [];
  for (const match of text.matchAll(SEPARATOR)) {
    const at = match.index + (match[0].startsWith('\n') ? 1 : 0);
    starts.push({ at, body: match.index + match[0].length });
  }
  return starts
    .map(({ body }, index) => {
      const end = index + 1 < starts.length ? starts[index + 1]!.at : text.length;
      const message = text
        .slice(body, end)
        .replace(/\n$/, '')
        .replace(/^>(>*From )/gm, '$1');
      return Buffer.from(message, 'latin1');
    })
    .filter((message) => message.length > 0);
}

export function splitUpload(body: Buffer, contentType: string): Buffer[] {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  const looksLikeMbox = body.subarray(0, 5).toString('latin1') === 'From ';
  const messages =
    type === UPLOAD_TYPES.mbox || (type === UPLOAD_TYPES.any && looksLikeMbox) ? splitMbox(body) : [body];
  const nonEmpty = messages.filter((message) => message.toString('latin1').trim() !== '');
  if (nonEmpty.length === 0) throw new UnreadableUpload('holds no message');
  if (nonEmpty.length > MAX_MESSAGES)
    throw new UnreadableUpload(`holds ${nonEmpty.length} messages; at most ${MAX_MESSAGES} per upload`);
  return nonEmpty;
}

/** Queues the messages and counts them into the backfill, in one transaction. */
export async function queueUpload(
  database: Database,
  mailboxId: string,
  messages: Buffer[],
  at: string,
): Promise<void> {
  const upload = randomId();
  await database.transaction(async (trx) => {
    const store = intakeStoreFor(database.dialect)(trx);
    await store.queueUploads(
      mailboxId,
      messages.map((raw, index) => ({ source_ref: `import:${upload}:${index + 1}`, raw })),
      at,
    );
    await store.addBackfill(mailboxId, messages.length, at);
  });
}

export interface DrainDeps {
  store: IntakeStore;
  pipeline: Pipeline;
  owner: string;
  concurrency: number;
  logger: Logger;
  current: () => Promise<MailboxRow>;
  stopped: () => boolean;
}

/** Takes queued uploads through the pipeline until none is left (or it is told to stop). */
export async function drainUploads(deps: DrainDeps): Promise<void> {
  let done = 0;
  while (!deps.stopped()) {
    const row = await deps.current();
    const batch = await deps.store.nextUploads(row.id, DRAIN_BATCH);
    if (batch.length === 0) break;
    await runOrdered(
      batch.map((upload) => ({
        source: 'import' as const,
        source_ref: upload.source_ref,
        raw: upload.raw,
        received_at: null,
        upload_id: upload.id,
        backfill: true,
      })),
      deps.concurrency,
      COMMIT_BATCH,
      (message) => deps.pipeline.prepare(row, message),
      async (batch) => {
        await deps.pipeline.commit(
          row,
          deps.owner,
          batch.map(({ item, prepared }) => ({ message: item, prepared })),
        );
      },
      deps.stopped,
    );
    done += batch.length;
    deps.logger.info(
      { mailbox: row.id, done, backfill_done: row.backfill_done + batch.length, backfill_total: row.backfill_total },
      'import progress',
    );
    // Between batches the API's requests get their turn.
    await new Promise((resolve) => setImmediate(resolve));
  }
}
