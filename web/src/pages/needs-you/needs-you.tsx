import { useEffect, useRef, useState } from 'preact/hooks';
import { OpenQuestion } from '../../components/open-question.tsx';
import { ProblemMessage } from '../../components/problem-message.tsx';
import { readReviewWork, type ReviewWork, ReviewWorkSummary } from './review-work.tsx';
import { UserText, visibleBidi } from '../../components/user-text.tsx';
import { api, withQuery } from '../../lib/api.ts';
import { type InboxEntry, isOwnReview, isReview, mayAnswer } from '../../lib/conversation.ts';
import { formatDateTime, formatDuration } from '../../lib/format.ts';
import { useLive } from '../../lib/live.ts';
import { refreshNeedsYou } from '../../lib/needs-you.ts';
import { projectName, useProjects } from '../../lib/projects.ts';
import { href, navigate } from '../../lib/router.ts';
import { useSession } from '../../lib/session.ts';
import { useLoad } from '../../lib/use-load.ts';
import { USER_PATTERN } from '../../lib/user.ts';
import { CONVERSATION_EVENTS } from '../../lib/event-names.ts';

// Needs you: what agents are waiting on a person for, the questions and the reviews, oldest
// first, each answerable where it stands. "Answered" shows the latest answers, newest first.
// The list follows the live stream; the waits shown tick once every half minute.

const PAGE = 50;
const TICK_MS = 30_000;

interface Page {
  questions: InboxEntry[];
  next: string | null;
  /** What each open review is about, by question id; null when it could not be read. */
  work: Map<string, ReviewWork | null>;
}

export function NeedsYouPage({ params }: { params: URLSearchParams }) {
  const session = useSession();
  const projects = useProjects();
  const answered = params.get('status') === 'answered';
  const projectId = params.get('project_id') ?? '';
  const agent = params.get('agent') ?? '';
  // Only open questions can be overdue (past their project's answer time).
  const overdueOnly = !answered && params.get('overdue') === 'true';
  // The filters a link to the other list keeps.
  const kept: Record<string, string> = { ...(projectId ? { project_id: projectId } : {}), ...(agent ? { agent } : {}) };
  const [pages, setPages] = useState(1);
  const key = withQuery('/questions', {
    status: answered ? 'answered' : 'open',
    project_id: projectId,
    agent,
    overdue: overdueOnly ? 'true' : '',
    limit: PAGE,
  });
  const list = useLoad<Page>(`${key}#${pages}`, async (signal) => {
    const questions: InboxEntry[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < pages; i += 1) {
      const r: { data: InboxEntry[]; nextCursor: string | null } = await api<InboxEntry[]>(
        'GET',
        withQuery(key, { cursor }),
        undefined,
        signal,
      );
      questions.push(...r.data);
      cursor = r.nextCursor;
      if (cursor === null) break;
    }
    // Read before the list shows, so the cards do not grow one by one as their work arrives.
    const reviews = answered ? [] : questions.filter(isReview);
    const read = await Promise.all(reviews.map((q) => readReviewWork(q.item.id, signal).catch(() => null)));
    return { questions, next: cursor, work: new Map(reviews.map((q, i) => [q.id, read[i] ?? null])) };
  });
  useEffect(() => setPages(1), [key]);
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), TICK_MS);
    return () => clearInterval(t);
  }, []);
  // The place in the list of an entry just answered here: its card goes, so focus moves to the
  // entry now in its place (else the one before, else the heading), not to the page's start.
  const answeredAt = useRef<number | null>(null);
  useEffect(() => {
    const at = answeredAt.current;
    if (at === null || list.loading) return;
    answeredAt.current = null;
    const links = document.querySelectorAll<HTMLElement>('.needs-list > li .needs-item');
    (links[Math.min(at, links.length - 1)] ?? document.getElementById('needs-you-title'))?.focus();
  }, [list.data, list.loading]);
  useLive((e) => {
    if (
      e.type === CONVERSATION_EVENTS.asked ||
      e.type === CONVERSATION_EVENTS.answered ||
      e.type === CONVERSATION_EVENTS.moot ||
      e.type === 'resync'
    )
      list.reload();
  });
  const go = (next: Record<string, string>) => {
    const p = new URLSearchParams({
      ...(answered ? { status: 'answered' } : {}),
      ...kept,
      ...(overdueOnly ? { overdue: 'true' } : {}),
      ...next,
    });
    for (const [k, v] of [...p.entries()]) if (v === '') p.delete(k);
    navigate(href('/needs-you', p));
  };
  const answers = mayAnswer(session);
  const qs = list.data?.questions ?? null;

  return (
    <section aria-labelledby="needs-you-title">
      <div class="page-head wrap">
        <h1 id="needs-you-title" tabIndex={-1}>
          Needs you
        </h1>
        <nav class="row segmented-links" aria-label="Which questions">
          <a href={href('/needs-you', kept)} aria-current={!answered ? 'page' : undefined}>
            Open
          </a>
          <a href={href('/needs-you', { status: 'answered', ...kept })} aria-current={answered ? 'page' : undefined}>
            Answered
          </a>
        </nav>
      </div>
      <div class="row wrap needs-filters">
        <div class="field">
          <label for="needs-project">Project</label>
          <select id="needs-project" value={projectId} onChange={(e) => go({ project_id: e.currentTarget.value })}>
            <option value="">all</option>
            {projects?.map((p) => (
              <option key={p.id} value={p.id}>
                {visibleBidi(p.name)}
              </option>
            ))}
          </select>
        </div>
        <form
          class="inline-form"
          aria-label="Agent filter"
          onSubmit={(e) => {
            e.preventDefault();
            go({ agent: (new FormData(e.currentTarget).get('agent') as string | null)?.trim() ?? '' });
          }}
        >
          <label>
            Agent
            <input
              key={agent}
              name="agent"
              defaultValue={agent}
              pattern={USER_PATTERN}
              maxLength={64}
              placeholder="any"
              autoComplete="off"
            />
          </label>
          <button type="submit">Filter</button>
        </form>
        {!answered && (
          <label class="inline-check">
            <input
              type="checkbox"
              checked={overdueOnly}
              onChange={(e) => go({ overdue: e.currentTarget.checked ? 'true' : '' })}
            />
            Overdue only
          </label>
        )}
      </div>
      <ProblemMessage problem={list.error} />
      {qs === null ? (
        !list.error && <p class="muted">Loading…</p>
      ) : qs.length === 0 ? (
        <p class="empty">{answered ? 'No answers yet.' : 'Nothing waits for a person.'}</p>
      ) : (
        <ol
          class="needs-list"
          aria-label={answered ? 'Answered questions, newest first' : 'Waiting for a person, oldest first'}
        >
          {qs.map((q, index) => {
            const item = q.item;
            const project = projectName(projects, item.project_id);
            return (
              <li
                key={q.id}
                class="card needs-entry"
                data-question-id={q.id}
                data-kind={isReview(q) ? 'review' : 'question'}
              >
                <div class="needs-head">
                  <a class="needs-item" href={href(`/items/${item.id}`)}>
                    <UserText text={item.description} />
                  </a>
                  <p class="muted small needs-meta">
                    {isReview(q) ? 'Review' : 'Question'} from <UserText text={q.asked_by} />
                    {project && (
                      <>
                        {' · project '}
                        <UserText text={project} />
                      </>
                    )}
                    {` · priority ${item.priority}`}
                    {answered ? (
                      <>
                        {' · answered by '}
                        <UserText text={q.answered_by ?? '—'} /> {q.answered_at ? formatDateTime(q.answered_at) : ''}
                      </>
                    ) : (
                      <span class="waited" title={`Asked ${formatDateTime(q.asked_at)}`}>
                        {` · waiting ${formatDuration(now - Date.parse(q.asked_at))}`}
                      </span>
                    )}
                    {!answered && q.overdue && (
                      <>
                        {' '}
                        <span class="pill overdue" title={q.due_at ? `Due ${formatDateTime(q.due_at)}` : undefined}>
                          overdue
                        </span>
                      </>
                    )}
                  </p>
                </div>
                {answered ? (
                  <div class="stack tight">
                    <p class="prewrap">
                      <UserText text={q.question} />
                    </p>
                    <p>
                      <strong>Answer:</strong>{' '}
                      <UserText text={[q.option, q.answer].filter((x) => x).join(' — ') || '—'} />
                    </p>
                  </div>
                ) : (
                  <>
                    {isReview(q) && <ReviewOf work={list.data?.work.get(q.id) ?? null} itemId={item.id} />}
                    <OpenQuestion
                      question={q}
                      subject={item.description}
                      mayAnswer={answers}
                      ownWork={isOwnReview(session, q)}
                      compact
                      now={now}
                      onAnswered={() => {
                        answeredAt.current = index;
                        list.reload();
                        refreshNeedsYou();
                      }}
                    />
                  </>
                )}
              </li>
            );
          })}
        </ol>
      )}
      {list.data?.next && (
        <nav class="pager" aria-label="Pages">
          <button type="button" disabled={list.loading} onClick={() => setPages((p) => p + 1)}>
            Show more
          </button>
        </nav>
      )}
    </section>
  );
}

function ReviewOf({ work, itemId }: { work: ReviewWork | null; itemId: string }) {
  if (work) return <ReviewWorkSummary work={work} />;
  return (
    <p class="muted small">
      The work could not be read here: <a href={href(`/items/${itemId}`)}>see the item</a>.
    </p>
  );
}
