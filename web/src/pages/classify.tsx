import { useState } from 'preact/hooks';
import { ProblemMessage } from '../components/problem-message.tsx';
import { UserText } from '../components/user-text.tsx';
import { api } from '../lib/api.ts';
import { type Classification, emailSourceOf, emailTaskBody, PRIORITY_OF } from '../lib/email-task.ts';
import { href } from '../lib/router.ts';
import { can, useSession } from '../lib/session.ts';
import { useSubmit } from '../lib/use-submit.ts';
import type { WorkItemSummary } from '../../../src/work/api-contract.ts';

type Mode = 'simple' | 'graph';

export function ClassifyPage() {
  const [mode, setMode] = useState<Mode>('simple');
  const [subject, setSubject] = useState('');
  const [body, setBody] = useState('');
  const [graph, setGraph] = useState('');
  const [inputError, setInputError] = useState<string | null>(null);
  const { busy, problem, run } = useSubmit();
  const [result, setResult] = useState<{ request: Record<string, unknown>; c: Classification } | null>(null);

  const request = (): Record<string, unknown> | string => {
    if (mode === 'simple') {
      if (subject.trim() === '' && body.trim() === '') return 'Give the email a subject or a body.';
      return { email_data: { subject, body } };
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(graph);
    } catch (err) {
      return `Not valid JSON: ${err instanceof Error ? err.message : String(err)}`;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return 'A Graph message is a JSON object.';
    }
    return parsed as Record<string, unknown>;
  };

  const classify = async (e: Event) => {
    e.preventDefault();
    const req = request();
    if (typeof req === 'string') {
      setInputError(req);
      return;
    }
    setInputError(null);
    await run(
      async () => {
        const r = await api<Classification>('POST', '/ui-api/classify', req);
        setResult({ request: req, c: r.data });
      },
      () => setResult(null),
    );
  };

  return (
    <section aria-labelledby="classify-title">
      <h1 id="classify-title">Classify an email</h1>
      <div class="classify-grid">
        <form class="card stack" onSubmit={classify} aria-label="Email to classify">
          <fieldset class="segmented">
            <legend>Paste</legend>
            <label>
              <input
                type="radio"
                name="mode"
                value="simple"
                checked={mode === 'simple'}
                onChange={() => setMode('simple')}
              />
              Subject and body
            </label>
            <label>
              <input
                type="radio"
                name="mode"
                value="graph"
                checked={mode === 'graph'}
                onChange={() => setMode('graph')}
              />
              Graph message JSON
            </label>
          </fieldset>
          {mode === 'simple' ? (
            <>
              <label>
                Subject
                <input
                  name="subject"
                  value={subject}
                  autoComplete="off"
                  onInput={(e) => setSubject(e.currentTarget.value)}
                />
              </label>
              <label>
                Body (text or HTML)
                <textarea name="body" rows={10} value={body} onInput={(e) => setBody(e.currentTarget.value)} />
              </label>
            </>
          ) : (
            <label>
              Microsoft Graph message (JSON)
              <textarea
                name="graph"
                rows={14}
                class="mono"
                spellcheck={false}
                value={graph}
                placeholder={'{ "subject": "…", "body": { "contentType": "html", "content": "…" }, … }'}
                onInput={(e) => setGraph(e.currentTarget.value)}
              />
            </label>
          )}
          {inputError && (
            <p class="field-error" role="alert">
              {inputError}
            </p>
          )}
          <ProblemMessage problem={problem} />
          <div class="row end">
            <button type="submit" class="primary" disabled={busy}>
              {busy ? 'Classifying…' : 'Classify'}
            </button>
          </div>
        </form>
        <div aria-live="polite">
          {result && (
            <ClassificationResult key={result.c.details.dedupe_key ?? result.c.dedupe.fingerprint} {...result} />
          )}
        </div>
      </div>
    </section>
  );
}

function ClassificationResult({ request, c }: { request: Record<string, unknown>; c: Classification }) {
  const session = useSession();
  const [created, setCreated] = useState<WorkItemSummary | null>(null);
  const { busy, problem, run } = useSubmit();

  const createItem = async () => {
    await run(async () => {
      const r = await api<WorkItemSummary>('POST', '/work', emailTaskBody(c, emailSourceOf(request)));
      setCreated(r.data);
    });
  };

  const d = c.details;
  const list = (label: string, values: string[]) =>
    values.length > 0 && (
      <>
        <dt>{label}</dt>
        <dd>
          <ul class="plain">
            {values.map((v, i) => (
              <li key={i}>{v}</li>
            ))}
          </ul>
        </dd>
      </>
    );
  const text = (label: string, value: string | null) =>
    value && (
      <>
        <dt>{label}</dt>
        <dd class="prewrap">{value}</dd>
      </>
    );

  return (
    <section class="card stack" aria-labelledby="result-title">
      <h2 id="result-title">Classification</h2>
      <div class="row wrap">
        <span class={`badge ${c.needs_action ? 'badge-needs-action' : 'badge-no-action'}`}>
          {c.needs_action ? 'needs action' : 'no action'}
        </span>
        <span class="pill">{c.category}</span>
        <span class={`pill priority-${c.priority}`}>{c.priority} priority</span>
        <span class="pill">{Math.round(c.confidence * 100)}% confident</span>
        <span class="pill" title={`matched on ${c.dedupe.matched_on}, seen ${c.dedupe.seen_count}×`}>
          {c.dedupe.status}
          {c.dedupe.seen_count > 1 ? ` · seen ${c.dedupe.seen_count}×` : ''}
        </span>
      </div>
      {c.task_description && <p class="task">{c.task_description}</p>}
      <p class="muted">{c.reasoning}</p>
      {c.needs_action && can(session, 'submit') && (
        <div class="create-task">
          {created ? (
            <p class="ok" role="status">
              Work item created:{' '}
              <a href={href(`/items/${created.id}`)}>
                <UserText text={created.description} />
              </a>
            </p>
          ) : (
            <button type="button" class="primary" disabled={busy} onClick={createItem}>
              Create work item (email_task, priority {PRIORITY_OF[c.priority]})
            </button>
          )}
          <ProblemMessage problem={problem} />
        </div>
      )}
      <dl class="fields">
        {text('Summary', d.summary)}
        {text('Suggested title', d.suggested_title)}
        {text('Deadline', d.deadline)}
        {text('Suggested notes', d.suggested_notes)}
        {list('Next steps', d.next_steps)}
        {list('Key points', d.key_points)}
        {list('People', d.people)}
        {list('Organizations', d.organizations)}
        {list('Attachments', d.attachments_referenced)}
        {list('Signals', d.source_signals)}
        <dt>Dedupe</dt>
        <dd>
          {c.dedupe.status}, matched on {c.dedupe.matched_on}, seen {c.dedupe.seen_count}×
          <br />
          <code class="small break">{c.dedupe.fingerprint}</code>
        </dd>
      </dl>
    </section>
  );
}
