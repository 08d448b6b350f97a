import { useState } from 'preact/hooks';
import type { HistoryEntry, WorkItem } from '../../../../src/work/api-contract.ts';
import { api, toProblem } from '../../lib/api.ts';
import {
  type Comment,
  commentsPath,
  isReview,
  linkHost,
  mayComment,
  mayDeleteComment,
  type Question,
  readComments,
  REVIEW,
} from '../../lib/conversation.ts';
import { formatDateTime } from '../../lib/format.ts';
import { useLive } from '../../lib/live.ts';
import { useProjects } from '../../lib/projects.ts';
import { useSession } from '../../lib/session.ts';
import { useLoad } from '../../lib/use-load.ts';
import { useSubmit } from '../../lib/use-submit.ts';
import { CommentBox } from './comment-box.tsx';
import { HistoryLine } from './item-history.tsx';
import { ExternalLink, LinkedText } from '../../components/linked-text.tsx';
import { ProblemMessage } from '../../components/problem-message.tsx';
import { UserText } from '../../components/user-text.tsx';
import { CONVERSATION_EVENTS } from '../../lib/event-names.ts';

// The item's one timeline: what people and agents said (comments, questions, answers) and what
// happened to it (the history's moves and edits), interleaved by time, oldest first.

type Entry = { at: string; kind: 'change'; change: HistoryEntry } | { at: string; kind: 'comment'; comment: Comment };

const COMMENT_VERBS: Record<string, string> = {
  note: 'commented',
  progress: 'reported progress',
  email: 'wrote by email',
  question: 'asked',
  answer: 'answered',
};

/** A question or answer comment that belongs to a review reads as the review it is. */
const REVIEW_VERBS = {
  asked: 'sent the work for review',
  approve: 'approved the work',
  return: 'returned the work',
} as const;

/** How an answer came, when not through the desk itself. */
const VIA_WORDS: Record<string, string> = { email: 'by email reply', link: 'with an email link' };

/**
 * The verb of each question or answer comment of a review, and how each answer came (`via`): the
 * service writes a question and its comment (and an answer and its comment) at one instant, by
 * one person, so the item's questions say which comments were a review's and how it was answered.
 */
function questionVerbs(questions: readonly Question[], comments: Comment[]): Map<string, string> {
  const key = (at: string | null, who: string | null) => `${at === null ? NaN : Date.parse(at)} ${who ?? ''}`;
  const asked = new Map<string, string>();
  const answered = new Map<string, string>();
  for (const q of questions) {
    if (isReview(q)) asked.set(key(q.asked_at, q.asked_by), REVIEW_VERBS.asked);
    if (q.answered_at === null) continue;
    const verb =
      isReview(q) && (q.option === REVIEW.approve || q.option === REVIEW.return) ? REVIEW_VERBS[q.option] : 'answered';
    const via = q.via === null ? undefined : VIA_WORDS[q.via];
    if (verb !== 'answered' || via !== undefined)
      answered.set(key(q.answered_at, q.answered_by), via === undefined ? verb : `${verb} ${via}`);
  }
  const verbs = new Map<string, string>();
  for (const c of comments) {
    const verb = (c.kind === 'question' ? asked : c.kind === 'answer' ? answered : null)?.get(
      key(c.created_at, c.author),
    );
    if (verb) verbs.set(c.id, verb);
  }
  return verbs;
}

/**
 * Comments come in pages of 200; while later pages are unread (`more`), history after the last
 * comment read is held back too, so the order shown is always the true one. Lease renewals are
 * counted, not listed: a long job renews its lease hundreds of times.
 */
function merge(history: HistoryEntry[], comments: Comment[], more: boolean): { entries: Entry[]; renewals: number } {
  const last = comments[comments.length - 1]?.created_at;
  const cut = more && last !== undefined ? Date.parse(last) : Infinity;
  const shown = history.filter((h) => h.action !== 'heartbeat' && Date.parse(h.at) <= cut);
  const entries: Entry[] = [
    ...shown.map((change): Entry => ({ at: change.at, kind: 'change', change })),
    ...comments.map((comment): Entry => ({ at: comment.created_at, kind: 'comment', comment })),
  ];
  // Stable: at one instant the change (the move) reads before the comment that explains it.
  entries.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  return { entries, renewals: history.filter((h) => h.action === 'heartbeat').length };
}

/**
 * Where a link goes, beside it: after a title (the author's words), and after an address whose
 * host is written in another script (shown as punycode, so a look-alike does not pass).
 */
function LinkHost({ link }: { link: Comment['links'][number] }) {
  const host = linkHost(link.url);
  if (host === null || (link.title === undefined && link.url.includes(host))) return null;
  return <span class="link-host"> ({host})</span>;
}

/** `questions` are the page's read of the item's questions (only to tell a review's comments). */
export function ItemTimeline({
  item,
  questions,
  deleted,
}: {
  item: WorkItem;
  questions: readonly Question[];
  deleted: boolean;
}) {
  const session = useSession();
  const projects = useProjects();
  const [pages, setPages] = useState(1);
  // Comments do not move the item's version: a comment event reads the timeline again.
  const [tick, setTick] = useState(0);
  const { problem, run } = useSubmit();
  const id = item.id;
  const data = useLoad(`${id}#${item.version}#${tick}#${pages}`, async (signal) => {
    // The moves still show when the comments cannot be read, and the other way round.
    const [history, comments] = await Promise.all([
      api<HistoryEntry[]>('GET', `/work/${encodeURIComponent(id)}/history`, undefined, signal).then(
        (r) => ({ list: r.data, problem: null }),
        (err: unknown) => ({ list: [] as HistoryEntry[], problem: toProblem(err) }),
      ),
      readComments(id, pages, signal).then(
        (r) => ({ ...r, problem: null }),
        (err: unknown) => ({ comments: [] as Comment[], more: false, problem: toProblem(err) }),
      ),
    ]);
    if (signal.aborted) throw new DOMException('aborted', 'AbortError');
    return {
      history: history.list,
      comments: comments.comments,
      more: comments.more,
      problems: [history.problem, comments.problem],
    };
  });
  useLive((e) => {
    if (
      ((e.type === CONVERSATION_EVENTS.commented ||
        e.type === CONVERSATION_EVENTS.asked ||
        e.type === CONVERSATION_EVENTS.answered ||
        e.type === CONVERSATION_EVENTS.moot) &&
        e.data.work_item_id === id) ||
      e.type === 'resync'
    ) {
      setTick((t) => t + 1);
    }
  });

  const remove = async (c: Comment) => {
    await run(async () => {
      await api('DELETE', `${commentsPath(id)}/${encodeURIComponent(c.id)}`);
      setTick((t) => t + 1);
    });
  };

  const mayDelete = !deleted && mayDeleteComment(session);
  let body;
  if (data.error && !data.data) body = <p class="muted">The timeline could not be read: {data.error.detail}</p>;
  else if (!data.data) body = <p class="muted">Loading…</p>;
  else {
    const { entries, renewals } = merge(data.data.history, data.data.comments, data.data.more);
    const verbs = questionVerbs(questions, data.data.comments);
    const [historyProblem, commentsProblem] = data.data.problems;
    body = (
      <>
        {historyProblem && <p class="muted">The history could not be read: {historyProblem.detail}</p>}
        {commentsProblem && <p class="muted">The comments could not be read: {commentsProblem.detail}</p>}
        <ol class="conversation" aria-label="Timeline, oldest first">
          {entries.map((e) =>
            e.kind === 'change' ? (
              <li key={`h${e.change.id}`} class="change" data-kind="change" data-action={e.change.action}>
                <HistoryLine entry={e.change} projects={projects} />
              </li>
            ) : (
              <CommentEntry
                key={`c${e.comment.id}`}
                comment={e.comment}
                verb={verbs.get(e.comment.id) ?? COMMENT_VERBS[e.comment.kind] ?? e.comment.kind}
                onDelete={mayDelete ? () => void remove(e.comment) : null}
              />
            ),
          )}
        </ol>
        {data.data.more && (
          <button type="button" onClick={() => setPages((p) => p + 1)} disabled={data.loading}>
            Show later entries
          </button>
        )}
        {renewals > 0 && (
          <p class="muted small">{renewals === 1 ? '1 lease renewal' : `${renewals} lease renewals`} not listed.</p>
        )}
      </>
    );
  }

  return (
    <section aria-labelledby="timeline-title" class="card stack">
      <h2 id="timeline-title">Timeline</h2>
      {body}
      <ProblemMessage problem={problem} />
      {!deleted && mayComment(session, item) && <CommentBox itemId={id} onPosted={() => setTick((t) => t + 1)} />}
    </section>
  );
}

function CommentEntry({
  comment: c,
  verb,
  onDelete,
}: {
  comment: Comment;
  verb: string;
  onDelete: (() => void) | null;
}) {
  const [confirming, setConfirming] = useState(false);
  return (
    <li class={`comment comment-${c.kind}`} data-kind="comment" data-comment-kind={c.kind}>
      <div class="comment-head">
        <span>
          <strong>
            <UserText text={c.author} />
          </strong>{' '}
          <span class="muted">({c.role})</span> {verb}{' '}
          <time class="muted small" dateTime={c.created_at}>
            {formatDateTime(c.created_at)}
          </time>
        </span>
        {onDelete &&
          (confirming ? (
            <span class="row comment-delete">
              <button type="button" class="danger solid" onClick={onDelete}>
                Delete comment
              </button>
              <button type="button" onClick={() => setConfirming(false)}>
                Keep
              </button>
            </span>
          ) : (
            <button
              type="button"
              class="link comment-delete"
              onClick={() => setConfirming(true)}
              aria-label={`Delete the comment by ${c.author}`}
            >
              Delete…
            </button>
          ))}
      </div>
      <div class="comment-body">
        <LinkedText text={c.body} />
      </div>
      {c.links.length > 0 && (
        <ul class="comment-links" aria-label="Links">
          {c.links.map((l, i) => (
            <li key={i}>
              <ExternalLink url={l.url}>{l.title ?? l.url}</ExternalLink>
              <LinkHost link={l} />
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}
