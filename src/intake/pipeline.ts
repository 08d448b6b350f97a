// One message, from raw bytes to a durable outcome, in two steps: `prepare` parses and classifies
// it, writing nothing but dedupe's memory; `commit` decides and writes the outcomes of a run of
// messages in one transaction, in arrival order.

import { randomId } from '../shared/db/ids.js';
import type { Logger } from 'pino';
import type { ClassifyResult, ClassifyRequest } from '../classify/contract.js';
import { type GraphMessage, prepareBody } from '../email/index.js';
import type { ClassifyService } from '../classify/index.js';
import { createCoalescer } from '../shared/db/coalesce.js';
import { isUniqueViolation } from '../shared/db/database.js';
import { ValidationError } from '../shared/errors.js';
import type { MailWorkItems, PlannedMailItem, WorkForIntake } from './work-port.js';
import type { RecognisedReply, RepliesForIntake } from './reply-port.js';
import { isFinal } from '../work/contract.js';
import { cleanDeep, cleanText, cutText } from './clean-text.js';
import { LeaseLost } from './errors.js';
import { type LogView, createLogView } from './log-view.js';
import { appendThreadEntry, describeItem, excerpt, followUpNote, itemPayload, threadEntry } from './item-content.js';
import { type ParsedMessage, UnreadableMessage, conversationOf, fromGraph, parseMessage } from './mime.js';
import { type Decision, route } from './routing.js';
import type { RoutingRule } from './schemas.js';
import type { Advance, IntakeStore, IntakeStoreOn, LogQuery, LoggedMessage } from './store/port.js';
import type { IntakeMessageRow, MailboxRow, MessageAction, MessageSource } from './tables.js';
import { isUnstorable } from './unstorable.js';

/** Who the work items a mailbox creates say made them. */
export const INTAKE_CREATOR = 'intake';
/** Who mail intake's changes are recorded as, in created_by, the audit trail and events. */
const INTAKE_ACTOR = { name: INTAKE_CREATOR, role: 'intake' } as const;

export interface IncomingMessage {
  source: MessageSource;
  source_ref: string;
  /** The message as received: raw MIME (IMAP, uploads), or a Graph message. */
  raw: Buffer | GraphMessage;
  received_at: string | null;
  /** IMAP: the cursor moves to this UID with the outcome. */
  uid?: number;
  /** Uploads: the queued row leaves with the outcome. */
  upload_id?: number;
  /** Counts towards the backfill in progress. */
  backfill: boolean;
}

/** A message and what preparing it found, ready to be written. */
export interface Outcome {
  message: IncomingMessage;
  prepared: Prepared;
}

export type Prepared =
  /** Already in the log (a restart met it again): nothing to do but move the cursor. */
  | { kind: 'seen' }
  | { kind: 'failed'; reason: string; parsed: ParsedMessage | null }
  /** The same bytes were handled before: not classified again. */
  | { kind: 'copy'; parsed: ParsedMessage; of: LoggedMessage }
  /** A reply to the desk's own mail: it answers a question (or says why not), never classified. */
  | { kind: 'reply'; parsed: ParsedMessage; reply: RecognisedReply }
  | { kind: 'classified'; parsed: ParsedMessage; conversation: string; result: ClassifyResult };

export interface PipelineDeps {
  store: IntakeStore;
  /** The store on the transaction of a commit (the database's own module). */
  storeOn: IntakeStoreOn;
  /** Work items, written in the same commit as the log entries (work's port for intake). */
  work: WorkForIntake;
  /** Recognises replies to the mail the desk sends; without it every message is classified. */
  replies?: RepliesForIntake;
  classify: ClassifyService;
  logger: Logger;
  now?: () => Date;
}

export type Pipeline = ReturnType<typeof createPipeline>;

/** Times a message meets a provider failure before it is recorded as failed. */
export const PROVIDER_TRIES = 3;

/** The provider could not classify a message just now; it is tried again after a backoff. */
export class ClassificationUnavailable extends Error {
  constructor(reason: string) {
    super(`the classification provider failed: ${reason}`);
    this.name = 'ClassificationUnavailable';
  }
}

/** The keys a message is known by in the log besides its own: what it replies to, its thread. */
function relatedKeys(parsed: ParsedMessage): string[] {
  return [parsed.in_reply_to, ...parsed.references].filter((key): key is string => key !== null);
}

function mergeQueries(queries: readonly LogQuery[]): LogQuery {
  const merged: Required<LogQuery> = {
    source_refs: [],
    source_hashes: [],
    message_keys: [],
    fingerprints: [],
    item_conversations: [],
  };
  for (const query of queries) {
    for (const field of Object.keys(merged) as Array<keyof LogQuery>)
      (merged[field] as string[]).push(...(query[field] ?? []));
  }
  return merged;
}

/** What the decisions of a batch may read in the log: one lookup before the first of them. */
function decisionQuery(batch: readonly Outcome[]): LogQuery {
  const queries = batch.map(({ message, prepared }): LogQuery => {
    if (prepared.kind !== 'classified') return { source_refs: [message.source_ref] };
    const { parsed, result } = prepared;
    const fingerprint = result.dedupe.fingerprint;
    return {
      source_refs: [message.source_ref],
      message_keys: [parsed.message_key, ...relatedKeys(parsed)],
      fingerprints: fingerprint === null ? [] : [fingerprint],
      item_conversations: [prepared.conversation],
    };
  });
  return mergeQueries(queries);
}

/** What a batch writes once its messages are decided, in this order (the log names the items). */
interface BatchWrites {
  items: PlannedMailItem[];
  rows: IntakeMessageRow[];
  uploads: number[];
}

export function createPipeline(deps: PipelineDeps) {
  const now = deps.now ?? (() => new Date());
  /** Provider failures per message, so that one message cannot hold its mailbox forever. */
  const providerFailures = new Map<string, number>();
  // Messages prepared side by side ask the log together: one statement for all of them.
  const lookup = createCoalescer({
    keyOf: (query: LogQuery & { mailbox_id: string }) => query.mailbox_id,
    run: async (queries: Array<LogQuery & { mailbox_id: string }>) => {
      const found = await deps.store.findLogged(queries[0]!.mailbox_id, mergeQueries(queries));
      return queries.map(() => found);
    },
  });

  /**
   * Parses the MIME and classifies it through the classification service's own code path (dedupe
   * included). Nothing is written but dedupe's memory, so several messages of a mailbox may be
   * prepared at once; their reads of the intake log are coalesced into one lookup.
   */
  async function prepare(mailbox: MailboxRow, message: IncomingMessage): Promise<Prepared> {
    let parsed: ParsedMessage | null = null;
    let unreadable: string | null = null;
    try {
      parsed = Buffer.isBuffer(message.raw)
        ? await parseMessage(message.raw, message.received_at)
        : fromGraph(message.raw);
    } catch (error) {
      if (!(error instanceof UnreadableMessage)) throw error;
      unreadable = error.message;
    }
    // A reply that names only its parent joins the thread the parent was logged in.
    const related = parsed ? relatedKeys(parsed) : [];
    const log = createLogView(
      await lookup({
        mailbox_id: mailbox.id,
        source_refs: [message.source_ref],
        source_hashes: parsed ? [parsed.source_hash] : [],
        message_keys: related,
      }),
    );
    // Already in the log (a restart met it again): nothing to do but move the cursor.
    if (log.has(message.source_ref)) return { kind: 'seen' };
    if (!parsed) return { kind: 'failed', reason: unreadable!, parsed: null };
    const copy = log.copyOf(parsed.source_hash);
    if (copy) return { kind: 'copy', parsed, of: copy };
    const reply = (await deps.replies?.recognise(parsed)) ?? null;
    if (reply) return { kind: 'reply', parsed, reply };
    const conversation = log.conversation(related) ?? conversationOf(parsed);
    parsed.graph.conversationId = conversation;
    try {
      // Each mailbox keeps its own dedupe memory: the same message in two mailboxes is two messages.
      // A mailbox's messages are outside data: provider settings in one are refused, never obeyed.
      const { classification: result, failed } = await deps.classify.classify(parsed.graph as ClassifyRequest, {
        caller: `mailbox:${mailbox.id}`,
        refuseOverrides: true,
      });
      if (failed) {
        // The provider failed (after its own retries): try the message again later, a few
        // times, before it is recorded as failed; the mailbox waits meanwhile, in order.
        const tries = (providerFailures.get(message.source_ref) ?? 0) + 1;
        if (tries < PROVIDER_TRIES) {
          providerFailures.set(message.source_ref, tries);
          throw new ClassificationUnavailable(result.reasoning);
        }
        providerFailures.delete(message.source_ref);
        return { kind: 'failed', reason: `not classified after ${PROVIDER_TRIES} tries: ${result.reasoning}`, parsed };
      }
      providerFailures.delete(message.source_ref);
      // Model output enters intake here, and lands on the item and the log: cleaned like mail.
      return { kind: 'classified', parsed, conversation, result: cleanDeep(result) };
    } catch (error) {
      if (error instanceof ValidationError)
        return { kind: 'failed', reason: `not classified: ${error.errors.map((e) => e.message).join('; ')}`, parsed };
      // The classification service could not store this message's dedupe record.
      if (isUnstorable(error))
        return { kind: 'failed', reason: `not classified: ${cleanText((error as Error).message)}`, parsed };
      throw error;
    }
  }

  function logRow(mailbox: MailboxRow, message: IncomingMessage, prepared: Prepared, at: string): IntakeMessageRow {
    const parsed = prepared.kind === 'seen' ? null : prepared.parsed;
    const classified = prepared.kind === 'classified' ? prepared.result : null;
    return {
      id: randomId(),
      mailbox_id: mailbox.id,
      source: message.source,
      source_ref: message.source_ref,
      source_hash: parsed?.source_hash ?? '',
      message_key: parsed?.message_key ?? `unreadable:${message.source_ref}`,
      conversation_key: prepared.kind === 'classified' ? prepared.conversation : parsed ? conversationOf(parsed) : null,
      sender: parsed?.from?.address ?? parsed?.from?.name ?? null,
      subject: parsed?.subject ? cutText(parsed.subject, 1_000) : null,
      received_at: message.received_at,
      status: prepared.kind === 'failed' ? 'failed' : 'done',
      action: prepared.kind === 'failed' ? 'failed' : 'recorded',
      category: classified?.category ?? null,
      needs_action: classified ? (classified.needs_action ? 1 : 0) : null,
      priority: classified?.priority ?? null,
      dedupe_status: classified?.dedupe.status ?? null,
      fingerprint: classified?.dedupe.fingerprint ?? null,
      classification: classified ? JSON.stringify(classified) : null,
      work_item_id: null,
      rule_index: null,
      error: prepared.kind === 'failed' ? cutText(prepared.reason, 2_000) : null,
      created_at: at,
    };
  }

  /** A note on the thread's item; false when the item is gone (deleted since). */
  async function addFollowUp(
    items: MailWorkItems,
    itemId: string,
    message: IncomingMessage,
    prepared: Extract<Prepared, { kind: 'classified' }>,
    at: string,
  ): Promise<boolean> {
    const body = prepared.parsed.graph.body;
    const summary =
      excerpt(prepareBody(body?.content ?? '', body?.contentType === 'html' ? 'html' : 'text', 4_000).text) ||
      '(no text)';
    const note = followUpNote(prepared.parsed, at, summary);
    const entry = threadEntry(prepared.parsed, prepared.result, message.source_ref, message.received_at, summary);
    // The follow-up is a comment of kind `email` on the item's timeline; `notes` stays
    // the human summary. A final item keeps its fields (the work service's rule); the comment
    // still lands (comments on final items are allowed).
    return items.followUp(
      itemId,
      INTAKE_ACTOR,
      at,
      (row) => (isFinal(row.status) ? {} : { payload: appendThreadEntry(row.payload, entry) }),
      note,
    );
  }

  async function decide(
    items: MailWorkItems,
    log: LogView,
    writes: BatchWrites,
    mailbox: MailboxRow,
    message: IncomingMessage,
    prepared: Extract<Prepared, { kind: 'classified' }>,
    row: IntakeMessageRow,
    at: string,
  ): Promise<void> {
    const { parsed, result } = prepared;
    const handled = log.handled(parsed.message_key, result.dedupe.fingerprint);
    if (handled) {
      Object.assign(row, { action: 'duplicate', work_item_id: handled.work_item_id });
      return;
    }
    const threadItem = log.threadItem(prepared.conversation, [parsed.message_key, ...relatedKeys(parsed)]);
    if (threadItem) {
      // A reply to a message of this same batch: its item must exist before the note goes on it.
      if (writes.items.some(({ item }) => item.id === threadItem)) await items.write(writes.items.splice(0));
      if (await addFollowUp(items, threadItem, message, prepared, at)) {
        Object.assign(row, { action: 'noted', work_item_id: threadItem });
        return;
      }
    }
    const decision: Decision = route(
      JSON.parse(mailbox.rules) as RoutingRule[],
      {
        category: result.category,
        needs_action: result.needs_action,
        priority: result.priority,
        sender: parsed.from?.address ?? null,
        subject: parsed.subject,
      },
      mailbox.project_id,
    );
    row.rule_index = decision.rule_index;
    if (decision.kind === 'record') return;
    const planned = items.plan(
      {
        type: decision.item.type,
        description: describeItem(parsed, result),
        priority: decision.item.priority,
        ...(decision.item.project_id !== null && { project_id: decision.item.project_id }),
        ...(decision.item.agent !== null && { agent: decision.item.agent }),
        payload: itemPayload(mailbox, parsed, result, message.source_ref, prepared.conversation, message.received_at),
      },
      INTAKE_ACTOR,
      at,
    );
    writes.items.push(planned);
    Object.assign(row, { action: 'created', work_item_id: planned.item.id });
  }

  /**
   * One message's outcome, decided on the batch's view of the log; null when it was already in the
   * log. A copy already handled does nothing; a message of a thread that has a work item becomes a
   * note on it; anything else goes by the routing rules.
   */
  async function decideOutcome(
    items: MailWorkItems,
    log: LogView,
    writes: BatchWrites,
    mailbox: MailboxRow,
    outcome: Outcome,
    at: string,
  ): Promise<MessageAction | null> {
    const { message, prepared } = outcome;
    if (message.upload_id !== undefined) writes.uploads.push(message.upload_id);
    // Logged since it was prepared (another pipeline, or a run this one had to write again).
    if (prepared.kind === 'seen' || log.has(message.source_ref)) return null;
    const row = logRow(mailbox, message, prepared, at);
    if (prepared.kind === 'copy') Object.assign(row, { action: 'duplicate', work_item_id: prepared.of.work_item_id });
    if (prepared.kind === 'classified') await decide(items, log, writes, mailbox, message, prepared, row, at);
    if (prepared.kind === 'reply') {
      const taken = await items.takeReply(prepared.reply, prepared.parsed, INTAKE_ACTOR, at);
      Object.assign(row, { action: taken.action, work_item_id: taken.work_item_id });
    }
    writes.rows.push(row);
    log.add(row);
    return row.action;
  }

  /**
   * Writes the outcomes of consecutive messages in one transaction, in order, with one move of
   * the cursor and counters: one commit (one fsync on SQLite) for a run of mail. The log is read
   * once for the whole run, and each table written with one statement.
   */
  async function commitOnce(
    mailbox: MailboxRow,
    owner: string,
    batch: readonly Outcome[],
  ): Promise<Array<MessageAction | null>> {
    return deps.work.commit(async (items, trx) => {
      const intake = deps.storeOn(trx);
      const at = now().toISOString();
      const log = createLogView(await intake.findLogged(mailbox.id, decisionQuery(batch)));
      const writes: BatchWrites = { items: [], rows: [], uploads: [] };
      const actions: Array<MessageAction | null> = [];
      const totals: Advance = { at, seen: 0, classified: 0, created: 0, noted: 0, failed: 0, backfill: 0 };
      for (const outcome of batch) {
        const { message, prepared } = outcome;
        const action = await decideOutcome(items, log, writes, mailbox, outcome, at);
        actions.push(action);
        if (message.uid !== undefined) totals.last_uid = Math.max(totals.last_uid ?? 0, message.uid);
        if (action === null) continue;
        totals.seen += 1;
        if (prepared.kind === 'classified') totals.classified += 1;
        if (action === 'created') totals.created += 1;
        if (action === 'noted') totals.noted += 1;
        if (action === 'failed') totals.failed += 1;
        if (message.backfill) totals.backfill += 1;
      }
      await items.write(writes.items);
      await intake.insertMessages(writes.rows);
      await intake.deleteUploads(writes.uploads);
      // Fenced: an instance that lost the mailbox to another writes nothing more for it.
      if (!(await intake.advance(mailbox.id, owner, totals))) throw new LeaseLost(mailbox.id);
      return actions;
    });
  }

  /**
   * One message in its own transaction. A conflict on the log's unique keys means the other
   * pipeline committed between this transaction's read and its write: read again, once. A
   * message the database refuses (isUnstorable) is recorded as failed with the reason, so the
   * mailbox or the import goes on with the next one instead of meeting it again forever.
   */
  async function commitAlone(
    mailbox: MailboxRow,
    owner: string,
    outcome: Outcome,
    again = true,
  ): Promise<Array<MessageAction | null>> {
    try {
      return await commitOnce(mailbox, owner, [outcome]);
    } catch (error) {
      if (isUniqueViolation(error) && again) return commitAlone(mailbox, owner, outcome, false);
      if (!isUnstorable(error)) throw error;
      const reason = `could not be stored: ${cleanText((error as Error).message)}`;
      deps.logger.warn(
        { mailbox: mailbox.id, source_ref: outcome.message.source_ref, reason },
        'message recorded as failed',
      );
      // Nothing of the message but the reason: whatever of it the database refused stays out.
      return commitOnce(mailbox, owner, [
        { message: outcome.message, prepared: { kind: 'failed', reason, parsed: null } },
      ]);
    }
  }

  /**
   * Writes the outcomes; answers the action taken for each (null when a message was already in
   * the log). A conflict on the log's unique keys means another pipeline (an upload and the IMAP
   * watcher, or a second instance) recorded a message or its work item first; a refused write
   * means one message of the batch cannot be stored. Either way the batch is written again one
   * message at a time, each decided afresh on what is in the log by then.
   * The work items or notes, the log entries and the mailbox's cursor and counters commit together
   * or not at all, and the log's unique keys (one entry per copy, one created item per message) make
   * a crash and a restart, or two pipelines meeting on one message, end with one outcome. A batch is decided on one read of the log and written with one statement per table,
   * so its round trips do not grow with its length.
   */
  async function commit(
    mailbox: MailboxRow,
    owner: string,
    batch: readonly Outcome[],
  ): Promise<Array<MessageAction | null>> {
    try {
      return await commitOnce(mailbox, owner, batch);
    } catch (error) {
      if (!isUniqueViolation(error) && !isUnstorable(error)) throw error;
    }
    // Each message's transaction reads the log afresh: one the other pipeline logged is passed
    // over, one whose item it created becomes a duplicate of it.
    const actions: Array<MessageAction | null> = [];
    for (const outcome of batch) actions.push(...(await commitAlone(mailbox, owner, outcome)));
    return actions;
  }

  return { prepare, commit };
}
