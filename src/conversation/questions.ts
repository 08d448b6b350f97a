import { randomId } from '../shared/db/ids.js';
import { type Principal, assertMayChangeItem, assertNotOwnReviewer, isHolder, isPerson } from '../auth/index.js';
import { assertMayAnswer } from './addressees.js';
import type { DatabaseHandle, UnitOfWork } from '../shared/db/schema.js';
import { ValidationError } from '../shared/errors.js';
import {
  applyLeaseEffect,
  planUpdate,
  requestedStatus,
  WorkItemNotFound,
  type Plan,
  type RecentItems,
  changeItem,
  type Actor,
  SYSTEM_ACTOR,
  NO_OBSERVER,
  type WorkObserver,
  type ReviewGate,
  actorFor,
  actorOf,
  serializePayload,
  type FinishedHook,
  type WorkStore,
  type WorkItemRow,
} from '../work/index.js';
import {
  CONVERSATION_MOVES,
  type ConversationMove,
  conversationMoveApplies,
  isFinal,
  type UpdateWorkItem,
} from '../work/contract.js';
import { decodePosition, encodePosition } from './cursor.js';
import {
  MayNotAsk,
  NotAskable,
  OpenQuestionExists,
  QuestionAlreadyAnswered,
  QuestionMoot,
  QuestionNotFound,
} from './errors.js';
import { CONVERSATION_EVENTS, eventDataOf, newComment, toComment, toInboxEntry, toQuestion } from './rows.js';
import {
  type Answer,
  type AnswerVia,
  type Ask,
  CONVERSATION_PAGE,
  type InboxEntry,
  type InboxQuery,
  type Question,
  type QuestionKind,
  REVIEW_OPTIONS,
} from './schemas.js';
import type { ConversationStatements } from './store/port.js';
import type { ConversationStatementsOn } from './store/index.js';
import type { QuestionRow } from './tables.js';
import { NOTHING_OPENED, type QuestionOpened } from './opened.js';
import type { QuestionWaits } from './waits.js';

// Asking a person, and the review gate: a question and its answer are each written in one
// transaction with the item's move (rows of lifecycle.ts, CONVERSATION_MOVES), a comment and an event.

const MAX_INSERT_TRIES = 5;
const REVIEW_QUESTION = 'Review the work: approve it, or return it saying why.';

export interface QuestionDeps {
  store: WorkStore;
  db: DatabaseHandle;
  statementsOn: ConversationStatementsOn;
  now: () => string;
  waits: QuestionWaits;
  recent?: RecentItems;
  observer?: WorkObserver;
  /** Told of each question and review inside the transaction that writes it (notify's outbox). */
  opened?: QuestionOpened;
}

export interface InboxPage {
  entries: InboxEntry[];
  next_cursor: string | null;
}

export type QuestionService = ReturnType<typeof createQuestionService>;

export function createQuestionService({
  store,
  db,
  statementsOn,
  now,
  waits,
  recent,
  observer = NO_OBSERVER,
  opened = NOTHING_OPENED,
}: QuestionDeps) {
  const top = statementsOn(db);

  /**
   * Writes a question (and its comment and event) in the transaction of `tx`, after the item's
   * change `move` was written; answers the open question that stood in the way, if any.
   */
  async function writeQuestion(
    trx: UnitOfWork,
    tx: WorkStore,
    row: WorkItemRow,
    actor: Actor,
    question: Pick<QuestionRow, 'kind' | 'question' | 'options' | 'blocked_item' | 'to_people'>,
    at: string,
  ): Promise<{ view: Question; committed: (() => void) | void }> {
    const conv: ConversationStatements = statementsOn(trx);
    // The deadline is fixed when asked: a later change of the project's answer_within_s moves no clock.
    const project = row.project_id === null ? undefined : await tx.findProject(row.project_id);
    const within = project?.answer_within_s ?? null;
    const written: QuestionRow = {
      id: randomId(),
      work_item_id: row.id,
      agent: row.assigned_agent,
      asked_by: actor.name,
      asked_role: actor.role,
      status: 'open',
      asked_at: at,
      answer: null,
      option: null,
      answered_by: null,
      answered_role: null,
      answered_at: null,
      answered_via: null,
      due_at: within === null ? null : new Date(Date.parse(at) + within * 1000).toISOString(),
      escalated_at: null,
      ...question,
    };
    // Another asker got there first: name its question, read on this transaction (a read on
    // the top-level database would wait for the connection this transaction holds). An open
    // question answered meanwhile no longer stands in the way: try again.
    for (let attempt = 1; !(await conv.insertQuestion(written)); attempt += 1) {
      const open = await conv.findOpenQuestion(row.id);
      if (open) throw new OpenQuestionExists(toQuestion(open, at));
      if (attempt >= MAX_INSERT_TRIES)
        throw new Error(
          `work item ${row.id}: its open question kept changing under ${MAX_INSERT_TRIES} attempts to ask`,
        );
    }
    const view = toQuestion(written, at);
    const comment = newComment(row.id, actor, 'question', question.question, [], at);
    await conv.insertComment(comment);
    await tx.appendEvent(CONVERSATION_EVENTS.asked, eventDataOf(view, row), at);
    await tx.appendEvent(CONVERSATION_EVENTS.commented, eventDataOf(toComment(comment), row), at);
    return { view, committed: await opened({ db: trx, store: tx, question: view, item: row }) };
  }

  /**
   * Moves the item (`ask`: in_progress → blocked, lease paused) with a `question` comment and
   * question.asked; the unique index allows one open question per item.
   */
  async function ask(id: string, input: Ask, principal: Principal | null): Promise<Question> {
    let actor = actorOf(principal);
    const open = await top.findOpenQuestion(id);
    if (open) throw new OpenQuestionExists(toQuestion(open, now()));
    const { view: question, committed } = await store.transaction(async (tx, trx) => {
      let blocked = false;
      let after: WorkItemRow | undefined;
      await changeItem(
        tx,
        id,
        now,
        undefined,
        (row) => (actor = actorFor(principal, undefined, row.assigned_agent)),
        ({ row }, at) => {
          if (isFinal(row.status)) throw new NotAskable(row.status, 'a final item waits for no answer');
          if (principal?.role === 'agent') {
            if (principal.agent === null || row.assigned_agent !== principal.agent)
              throw new MayNotAsk(principal.agent);
            if (row.status !== 'in_progress')
              throw new NotAskable(row.status, 'an agent asks about the item it is working on (in_progress)');
          }
          blocked = conversationMoveApplies('ask', row.status);
          const plan = movePlan('ask', row, blocked, at);
          after = { ...row, ...plan.set };
          return plan;
        },
      );
      const at = now();
      const options = input.options ? JSON.stringify(input.options) : null;
      return writeQuestion(
        trx,
        tx,
        after!,
        actor,
        {
          kind: 'question',
          question: input.question,
          options,
          blocked_item: blocked ? 1 : 0,
          to_people: input.to === undefined ? null : JSON.stringify(input.to),
        },
        at,
      );
    });
    recent?.take(id);
    committed?.();
    return question;
  }

  /**
   * Moves the item (`answer` or `return`: back to the same agent on a fresh lease; `approve`:
   * completed) with an `answer` comment and question.answered; the answer's guarded UPDATE lets
   * exactly one answer win.
   */
  async function answer(
    id: string,
    questionId: string,
    input: Answer,
    principal: Principal | null,
    via: AnswerVia = 'api',
  ): Promise<Question> {
    const { view, done } = await store.transaction((tx, trx) =>
      answerIn(tx, trx, id, questionId, input, principal, via),
    );
    done();
    return view;
  }

  /**
   * The answer's writes on an open transaction (a request's own, or mail intake's commit of a
   * reply); `done` wakes the waiters and must run once that transaction has committed.
   */
  async function answerIn(
    tx: WorkStore,
    trx: UnitOfWork,
    id: string,
    questionId: string,
    input: Answer,
    principal: Principal | null,
    via: AnswerVia,
  ): Promise<{ view: Question; done: () => void }> {
    const actor = actorOf(principal);
    const conv = statementsOn(trx);
    const found = await conv.findQuestion(id, questionId);
    if (!found) {
      if (!(await tx.findWorkItem(id))) throw new WorkItemNotFound(id);
      throw new QuestionNotFound(questionId);
    }
    if (principal !== null && !isPerson(principal)) {
      // created_by never changes: read without waiting for the item's lock.
      const item = await tx.findWorkItem(id);
      assertMayAnswer(principal, found, item?.created_by ?? '');
    }
    refuseClosed(found);
    if (found.kind === 'review') assertNotOwnReviewer(principal, found.agent);
    checkAnswer(found, input);
    const at = now();
    const answered = {
      answer: input.answer ?? null,
      option: input.option ?? null,
      answered_by: actor.name,
      answered_role: actor.role,
      answered_at: at,
      answered_via: via,
    };
    if (!(await conv.answerQuestion(found.id, answered))) {
      // Read on this transaction: never wait for a second connection while holding one.
      refuseClosed((await conv.findQuestion(id, questionId)) ?? { ...found, status: 'answered' });
    }
    const move = moveOfAnswer(found.kind, input.option);
    let after: WorkItemRow | undefined;
    let finished = false;
    await changeItem(
      tx,
      id,
      () => at,
      undefined,
      actor,
      ({ row }, now) => {
        const applies = found.blocked_item === 1 && conversationMoveApplies(move, row.status);
        const plan = movePlan(move, row, applies, now);
        plan.details = { question: { id: found.id, option: answered.option } };
        finished = applies && move === 'approve';
        after = { ...row, ...plan.set };
        return plan;
      },
    );
    const view = toQuestion({ ...found, ...answered, status: 'answered' }, at);
    const body =
      input.option !== undefined
        ? input.answer !== undefined
          ? `${input.option}: ${input.answer}`
          : input.option
        : input.answer!;
    const comment = newComment(id, actor, 'answer', body, [], at);
    await conv.insertComment(comment);
    await tx.appendEvent(CONVERSATION_EVENTS.answered, eventDataOf(view, after!), at);
    await tx.appendEvent(CONVERSATION_EVENTS.commented, eventDataOf(toComment(comment), after!), at);
    const type = after!.type;
    const done = () => {
      recent?.take(id);
      waits.closed([view.id]);
      if (finished) observer.finished(type, 'completed');
    };
    return { view, done };
  }

  /**
   * The question now, or once answered (or moot) within `waitS` seconds; `caller` names who
   * waits, for the limit of waits per caller. As it is when `signal` aborted the wait.
   */
  async function get(
    id: string,
    questionId: string,
    waitS: number,
    caller: string,
    signal?: AbortSignal,
  ): Promise<Question> {
    const found = await top.findQuestion(id, questionId);
    if (!found) {
      if (!(await store.findWorkItem(id))) throw new WorkItemNotFound(id);
      throw new QuestionNotFound(questionId);
    }
    if (found.status !== 'open' || waitS <= 0) return toQuestion(found, now());
    const answered = await waits.wait(found.id, waitS * 1000, caller, signal);
    return toQuestion(answered ?? found, now());
  }

  /** A question by its id alone (an answer link names no item); undefined when there is none. */
  async function find(questionId: string): Promise<Question | undefined> {
    const [row] = await top.findQuestions([questionId]);
    return row && toQuestion(row, now());
  }

  async function listForItem(id: string): Promise<Question[]> {
    const rows = await top.listItemQuestions(id);
    if (rows.length === 0 && !(await store.findWorkItem(id))) throw new WorkItemNotFound(id);
    const at = now();
    return rows.map((row) => toQuestion(row, at));
  }

  async function inbox(query: InboxQuery): Promise<InboxPage> {
    const status = query.status ?? 'open';
    const limit = query.limit ?? CONVERSATION_PAGE.default;
    const listing = `inbox-${status}`;
    const at = now();
    const after = query.cursor === undefined ? null : decodePosition(query.cursor, listing);
    const filter = {
      status,
      ...(query.project_id !== undefined && { project_id: query.project_id }),
      ...(query.agent !== undefined && { agent: query.agent }),
      ...(query.overdue !== undefined && { overdue: { is: query.overdue, at } }),
    };
    const rows = await top.inbox(filter, after, limit + 1);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      entries: page.map((row) => toInboxEntry(row, at)),
      next_cursor:
        rows.length > limit && last
          ? encodePosition(listing, { at: (status === 'open' ? last.asked_at : last.answered_at)!, id: last.id })
          : null,
    };
  }

  async function counts(): Promise<{ open: number }> {
    return { open: await top.countOpen() };
  }

  /**
   * The review gate the work service consults when a PATCH completes an item (service.ts): the
   * holder's completion of an item that needs review becomes a review question instead.
   */
  const reviewGate: ReviewGate = {
    requires(row, byHolder) {
      if (row.status !== 'in_progress' || !byHolder) return false;
      if (row.review_required !== null) return row.review_required === 1;
      return row.project_id === null ? false : { project_id: row.project_id };
    },
    async sendForReview(id, patch, principal, precondition) {
      // Set inside the transaction, run once it has committed.
      const opening: { committed?: (() => void) | void } = {};
      const item = await store.transaction(async (tx, trx) => {
        const requested = requestedStatus(patch);
        const { status: _status, outcome: _outcome, ...edits } = patch;
        const payload = patch.payload === undefined ? undefined : serializePayload(patch.payload);
        let sent = false;
        let after: WorkItemRow | undefined;
        let actor = actorOf(principal);
        const changed = await changeItem(
          tx,
          id,
          now,
          precondition,
          (row) => (actor = actorFor(principal, patch.agent, row.assigned_agent)),
          (current, at) => {
            assertMayChangeItem(principal, current.row.assigned_agent);
            const { row } = current;
            // Moved on since the gate looked: the completion is judged as any other.
            if (row.status !== 'in_progress' || !isHolder(principal, patch.agent, row.assigned_agent))
              return planUpdate(current, patch, requested, payload, at);
            const plan: Plan = planUpdate(current, edits as UpdateWorkItem, undefined, payload, at) ?? {
              action: 'send_for_review',
              set: {},
            };
            const move = movePlan('send_for_review', { ...row, ...plan.set }, true, at);
            plan.action = move.action;
            Object.assign(plan.set, move.set);
            sent = true;
            after = { ...row, ...plan.set };
            return plan;
          },
        );
        if (!sent) return changed;
        ({ committed: opening.committed } = await writeQuestion(
          trx,
          tx,
          after!,
          actor,
          {
            kind: 'review',
            question: REVIEW_QUESTION,
            options: JSON.stringify([REVIEW_OPTIONS.approve, REVIEW_OPTIONS.return]),
            blocked_item: 1,
            to_people: null,
          },
          now(),
        ));
        return { ...changed, comment_count: changed.comment_count + 1 };
      });
      recent?.take(id);
      opening.committed?.();
      return item;
    },
  };

  /**
   * The work store's FinishedHook: an item that reached a final status closes its open question
   * in the same transaction, marked moot, with a note on its timeline and a question.moot event;
   * its waiters are woken once that has committed.
   */
  const closeForFinished: FinishedHook = async (tx, trx, finished) => {
    const conv = statementsOn(trx);
    const closed = await conv.closeOpenQuestions(finished.map((item) => item.id));
    if (closed.length === 0) return;
    for (const question of closed) {
      const item = finished.find((f) => f.id.toLowerCase() === question.work_item_id.toLowerCase())!;
      const row = await tx.findWorkItem(question.work_item_id);
      if (!row) continue;
      const view = toQuestion(question, item.at);
      const note = `Closed unanswered: the work item was ${item.status} (by ${item.actor}) while this question was open.`;
      const comment = newComment(row.id, SYSTEM_ACTOR, 'note', note, [], item.at);
      await conv.insertComment(comment);
      await tx.appendEvent(CONVERSATION_EVENTS.moot, eventDataOf(view, row), item.at);
      await tx.appendEvent(CONVERSATION_EVENTS.commented, eventDataOf(toComment(comment), row), item.at);
    }
    return () => {
      // The change's copy of the item no longer has the note in its comment count.
      for (const question of closed) recent?.take(question.work_item_id);
      waits.closed(closed.map((question) => question.id));
    };
  };

  return { ask, answer, answerIn, get, find, listForItem, inbox, counts, reviewGate, closeForFinished };
}

/** The plan of a conversation move: its status and its lease when it applies, a history row either way. */
function movePlan(move: ConversationMove, row: WorkItemRow, applies: boolean, at: string): Plan {
  const plan: Plan = { action: move, set: {} };
  if (!applies) return plan;
  const { to, lease } = CONVERSATION_MOVES[move];
  plan.set.status = to;
  if (move === 'approve') {
    Object.assign(plan.set, { outcome: 'success', completed_at: at });
    plan.closeDispatch = { at, outcome: 'success', reason: 'completed' };
  }
  applyLeaseEffect(plan, row, lease, at);
  return plan;
}

function moveOfAnswer(kind: QuestionKind, option: string | undefined): ConversationMove {
  if (kind === 'question') return 'answer';
  return option === REVIEW_OPTIONS.approve ? 'approve' : 'return';
}

/** Answering a question no longer open: 409 saying whether it was answered or closed unanswered. */
function refuseClosed(question: QuestionRow): void {
  // Closed, so never overdue: the time given to the view decides nothing.
  if (question.status === 'moot') throw new QuestionMoot(toQuestion(question, question.asked_at));
  if (question.status === 'answered') throw new QuestionAlreadyAnswered(toQuestion(question, question.asked_at));
}

/** With options, `option` must be one of them; without, `answer` is required. A return says why. */
function checkAnswer(question: QuestionRow, input: Answer): void {
  const options = question.options === null ? null : (JSON.parse(question.options) as string[]);
  if (options === null) {
    if (input.option !== undefined)
      throw ValidationError.of('option', 'this question offers no options; answer it with "answer"');
    if (input.answer === undefined) throw ValidationError.of('answer', 'is required (this question offers no options)');
    return;
  }
  if (input.option === undefined)
    throw ValidationError.of('option', `is required: one of ${options.map((o) => JSON.stringify(o)).join(', ')}`);
  if (!options.includes(input.option)) {
    throw ValidationError.of(
      'option',
      `${JSON.stringify(input.option)} is not offered; one of ${options.map((o) => JSON.stringify(o)).join(', ')}`,
    );
  }
  if (question.kind === 'review' && input.option === REVIEW_OPTIONS.return && input.answer === undefined) {
    throw ValidationError.of('answer', 'is required to return the work: say why');
  }
}
