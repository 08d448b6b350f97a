import type { WorkItem } from '../../../../src/work/api-contract.ts';
import { api } from '../../lib/api.ts';
import { type Comment, readComments } from '../../lib/conversation.ts';
import { formatDateTime } from '../../lib/format.ts';
import { href } from '../../lib/router.ts';
import { ExternalLink, LinkedText } from '../../components/linked-text.tsx';
import { UserText } from '../../components/user-text.tsx';

// What a reviewer on "Needs you" judges the work by, beside Approve and Return: the outcome the
// agent reported, its notes, its latest progress and the links it left. Read with the list, so a
// card never grows under the reader's pointer; the item page has the whole timeline.

/** Comment pages read for one review (200 each): the progress of all but the chattiest items. */
const COMMENT_PAGES = 3;
const PROGRESS_SHOWN = 3;
const LINKS_SHOWN = 6;

export interface ReviewWork {
  item: WorkItem;
  /** The latest progress comments, oldest of them first. */
  progress: Comment[];
  /** Links from every comment read, newest first, each address once. */
  links: { url: string; title: string | null }[];
  /** Comments past the pages read: the card says the item page has the rest. */
  more: boolean;
}

export async function readReviewWork(itemId: string, signal: AbortSignal): Promise<ReviewWork> {
  const [item, { comments, more }] = await Promise.all([
    api<WorkItem>('GET', `/work/${encodeURIComponent(itemId)}`, undefined, signal).then((r) => r.data),
    readComments(itemId, COMMENT_PAGES, signal),
  ]);
  const progress = comments.filter((c) => c.kind === 'progress').slice(-PROGRESS_SHOWN);
  const links: ReviewWork['links'] = [];
  const seen = new Set<string>();
  for (const c of [...comments].reverse()) {
    for (const l of c.links) {
      if (seen.has(l.url) || links.length >= LINKS_SHOWN) continue;
      seen.add(l.url);
      links.push({ url: l.url, title: l.title ?? null });
    }
  }
  return { item, progress, links, more };
}

export function ReviewWorkSummary({ work }: { work: ReviewWork }) {
  const { item, progress, links } = work;
  return (
    <div class="review-work">
      <dl class="review-facts">
        <dt>Outcome</dt>
        <dd>
          <span class="pill">success</span>{' '}
          <span class="muted small">reported by {item.assigned_agent ?? 'the agent'}; Approve completes the item</span>
        </dd>
        <dt>Notes</dt>
        <dd>
          {item.notes ? (
            <p class="review-notes">
              <LinkedText text={item.notes} />
            </p>
          ) : (
            <span class="muted">No notes.</span>
          )}
        </dd>
        <dt>Latest progress</dt>
        <dd>
          {progress.length === 0 ? (
            <span class="muted">No progress reported{work.more ? ' in the first comments read' : ''}.</span>
          ) : (
            <ol class="review-progress">
              {progress.map((c) => (
                <li key={c.id}>
                  <span class="muted small">
                    <UserText text={c.author} />, <time dateTime={c.created_at}>{formatDateTime(c.created_at)}</time>
                  </span>
                  <p class="review-progress-body">
                    <LinkedText text={c.body} />
                  </p>
                </li>
              ))}
            </ol>
          )}
        </dd>
        {links.length > 0 && (
          <>
            <dt>Links</dt>
            <dd>
              <ul class="comment-links review-links">
                {links.map((l) => (
                  <li key={l.url}>
                    <ExternalLink url={l.url}>{l.title ?? l.url}</ExternalLink>
                  </li>
                ))}
              </ul>
            </dd>
          </>
        )}
      </dl>
      {work.more && (
        <p class="muted small">
          Later comments are on <a href={href(`/items/${item.id}`)}>the item’s page</a>.
        </p>
      )}
    </div>
  );
}
