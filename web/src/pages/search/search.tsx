import { useEffect, useRef, useState } from 'preact/hooks';
import { ProblemMessage } from '../../components/problem-message.tsx';
import { StatusBadge } from '../../components/status-badge.tsx';
import { api, type ApiProblem, toProblem, withQuery } from '../../lib/api.ts';
import { projectName, useProjects } from '../../lib/projects.ts';
import { href, navigate } from '../../lib/router.ts';
import { filters, passage, withoutToken } from '../../lib/search-query.ts';
import type { SearchResult } from '../../../../src/search/schemas.ts';

// Search: the query as the address (`#/search?q=…&sort=newest`), so a search can be shared and
// reloaded; the filters in it shown as chips that take themselves out of the query.

function go(q: string, newest: boolean): void {
  navigate(href('/search', { q, ...(newest ? { sort: 'newest' } : {}) }));
}

export function SearchPage({ params }: { params: URLSearchParams }) {
  const q = params.get('q') ?? '';
  const newest = params.get('sort') === 'newest';
  const [draft, setDraft] = useState(q);
  const [results, setResults] = useState<SearchResult[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [loading, setLoading] = useState(false);
  const projects = useProjects();
  // A page of an older query arriving after the query changed is dropped, not appended.
  const asked = useRef('');
  asked.current = `${q}\n${newest}`;

  const fetchPage = (after: string | null, signal?: AbortSignal) =>
    api<SearchResult[]>(
      'GET',
      withQuery('/search', { q, sort: newest ? 'newest' : undefined, cursor: after }),
      undefined,
      signal,
    );

  useEffect(() => {
    setDraft(q);
    setResults(null);
    setCursor(null);
    setProblem(null);
    if (q.trim() === '') return undefined;
    const ctl = new AbortController();
    setLoading(true);
    fetchPage(null, ctl.signal).then(
      (r) => {
        setResults(r.data);
        setCursor(r.nextCursor);
        setLoading(false);
      },
      (err: unknown) => {
        if (ctl.signal.aborted) return;
        setProblem(toProblem(err));
        setLoading(false);
      },
    );
    return () => ctl.abort();
  }, [q, newest]);

  const more = () => {
    const key = asked.current;
    setLoading(true);
    fetchPage(cursor).then(
      (r) => {
        if (asked.current !== key) return;
        setResults((prev) => [...(prev ?? []), ...r.data]);
        setCursor(r.nextCursor);
        setLoading(false);
      },
      (err: unknown) => {
        if (asked.current !== key) return;
        setProblem(toProblem(err));
        setLoading(false);
      },
    );
  };

  const chips = filters(q);
  return (
    <section class="search-page">
      <h1>Search</h1>
      <form
        role="search"
        aria-label="Search items"
        class="search-form"
        onSubmit={(e) => {
          e.preventDefault();
          go(draft.trim(), newest);
        }}
      >
        <input
          type="search"
          aria-label="Search query"
          value={draft}
          onInput={(e) => setDraft(e.currentTarget.value)}
          placeholder="invoice 7731 status:blocked"
        />
        <button type="submit">Search</button>
        <label class="inline-check">
          <input type="checkbox" checked={newest} onChange={(e) => go(q, e.currentTarget.checked)} />
          Newest first
        </label>
      </form>
      {chips.length > 0 && (
        <ul class="chips" aria-label="Filters">
          {chips.map((c) => (
            <li key={`${c.start}`} class="chip">
              <span>
                {c.text.startsWith('-') ? 'not ' : ''}
                {c.key}: {c.value}
              </span>
              <button
                type="button"
                aria-label={`Remove filter ${c.text}`}
                onClick={() => go(withoutToken(q, c), newest)}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <ProblemMessage problem={problem} />
      {q.trim() === '' && (
        <p class="muted">Type words or filters (status:, type:, project:, is:open…) and press Enter.</p>
      )}
      {results !== null && results.length === 0 && <p class="empty">No items match “{q}”.</p>}
      {results !== null && results.length > 0 && (
        <ol class="search-results" aria-label="Results">
          {results.map((r) => (
            <li key={r.item.id} data-item={r.item.id}>
              <div class="search-head">
                <a href={href(`/items/${encodeURIComponent(r.item.id)}`)}>{r.item.description}</a>
                <StatusBadge status={r.item.status} />
              </div>
              <div class="muted search-meta">
                <span>{r.item.type}</span>
                {r.item.project_id !== null && <span>{projectName(projects, r.item.project_id) ?? 'a project'}</span>}
                {r.matched_in.length > 0 && <span>matched in {r.matched_in.join(', ')}</span>}
              </div>
              {r.highlight !== null && (
                <p class="passage" data-field={r.highlight.field}>
                  {passage(r.highlight.html).map((p, i) => (p.marked ? <mark key={i}>{p.text}</mark> : p.text))}
                </p>
              )}
            </li>
          ))}
        </ol>
      )}
      {loading && <p class="muted">Searching…</p>}
      {cursor !== null && !loading && (
        <button type="button" onClick={more}>
          More results
        </button>
      )}
    </section>
  );
}
