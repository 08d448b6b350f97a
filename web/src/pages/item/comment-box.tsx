import { useState } from 'preact/hooks';
import { api } from '../../lib/api.ts';
import { useSubmit } from '../../lib/use-submit.ts';
import { commentsPath, isHttpUrl } from '../../lib/conversation.ts';
import { ProblemMessage } from '../../components/problem-message.tsx';

// A note on the item's timeline, with links (http or https only, as the service checks too).
// What was typed stays until the service has taken it.

const MAX_BODY = 16_384;
const MAX_LINKS = 20;

interface LinkDraft {
  url: string;
  title: string;
}

export function CommentBox({ itemId, onPosted }: { itemId: string; onPosted: () => void }) {
  const [body, setBody] = useState('');
  const [links, setLinks] = useState<LinkDraft[]>([]);
  const { busy, problem, run } = useSubmit();
  const [linkError, setLinkError] = useState<string | null>(null);

  const setLink = (i: number, key: keyof LinkDraft, value: string) =>
    setLinks((ls) => ls.map((l, j) => (j === i ? { ...l, [key]: value } : l)));

  const send = async (e: Event) => {
    e.preventDefault();
    const filled = links.filter((l) => l.url.trim() !== '');
    const bad = filled.find((l) => !isHttpUrl(l.url.trim()));
    if (bad) {
      setLinkError(`Only http and https links: ${bad.url.trim()}`);
      return;
    }
    setLinkError(null);
    await run(async () => {
      await api('POST', commentsPath(itemId), {
        body,
        kind: 'note',
        ...(filled.length > 0
          ? {
              links: filled.map((l) =>
                l.title.trim() === '' ? { url: l.url.trim() } : { url: l.url.trim(), title: l.title.trim() },
              ),
            }
          : {}),
      });
      setBody('');
      setLinks([]);
      onPosted();
    });
  };

  return (
    <form class="stack comment-box" aria-label="Add a comment" onSubmit={send}>
      <label>
        Comment (markdown is shown as text)
        <textarea
          name="comment"
          rows={3}
          required
          maxLength={MAX_BODY}
          value={body}
          onInput={(e) => setBody(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) e.currentTarget.form?.requestSubmit();
          }}
        />
      </label>
      {links.map((l, i) => (
        <div class="row wrap link-row" key={i}>
          <label class="grow">
            Link {i + 1} address
            <input
              type="url"
              name={`link-${i}`}
              value={l.url}
              placeholder="https://…"
              onInput={(e) => setLink(i, 'url', e.currentTarget.value)}
            />
          </label>
          <label class="grow">
            Title (optional)
            <input
              name={`link-title-${i}`}
              value={l.title}
              maxLength={200}
              onInput={(e) => setLink(i, 'title', e.currentTarget.value)}
            />
          </label>
          <button
            type="button"
            class="link"
            aria-label={`Remove link ${i + 1}`}
            onClick={() => setLinks((ls) => ls.filter((_, j) => j !== i))}
          >
            Remove
          </button>
        </div>
      ))}
      {linkError && (
        <p class="field-error" role="alert">
          {linkError}
        </p>
      )}
      <ProblemMessage problem={problem} />
      <div class="row between wrap">
        <button
          type="button"
          disabled={links.length >= MAX_LINKS}
          onClick={() => setLinks((ls) => [...ls, { url: '', title: '' }])}
        >
          Add link
        </button>
        <button type="submit" class="primary" disabled={busy || body.trim() === ''}>
          {busy ? 'Sending…' : 'Comment'}
        </button>
      </div>
    </form>
  );
}
