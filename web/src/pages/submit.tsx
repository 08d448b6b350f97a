import { useState } from 'preact/hooks';
import { ProblemMessage } from '../components/problem-message.tsx';
import { api } from '../lib/api.ts';
import { useSubmit } from '../lib/use-submit.ts';
import { fromLocalInput } from '../lib/format.ts';
import { checkPayload } from '../lib/payload.ts';
import { useProjects } from '../lib/projects.ts';
import { href, navigate } from '../lib/router.ts';
import { USER_PATTERN } from '../lib/user.ts';
import type { WorkItemSummary } from '../../../src/work/api-contract.ts';
import { ATTEMPT_LIMITS, RETRY_DELAY_LIMITS } from '../../../src/work/agent-loop/limits.ts';
import { visibleBidi } from '../components/user-text.tsx';
import { PriorityOptions, TYPE_HINT, TYPE_PATTERN } from '../components/work-fields.tsx';
import { type ReviewChoice, ReviewField, reviewValue } from '../components/review-field.tsx';
import { RelationFields } from '../components/relation-fields.tsx';
import { PeopleField } from '../components/people-field.tsx';
import { parseNames } from '../lib/people.ts';
import { itemIdIn } from '../lib/relations.ts';

const COMMON_TYPES = ['code_review', 'bug_fix', 'infra_setup', 'email_task'] as const;

export function SubmitPage({ params }: { params: URLSearchParams }) {
  const projects = useProjects();
  const [type, setType] = useState('');
  const [description, setDescription] = useState('');
  const [priority, setPriority] = useState('3');
  const [agent, setAgent] = useState('');
  const [projectId, setProjectId] = useState(params.get('project_id') ?? '');
  const [payload, setPayload] = useState('');
  const [review, setReview] = useState<ReviewChoice>('');
  const [payloadError, setPayloadError] = useState<string | null>(null);
  const [runAfter, setRunAfter] = useState('');
  const [maxAttempts, setMaxAttempts] = useState('');
  const [retryDelay, setRetryDelay] = useState('');
  // "Add a sub-item" on an item page opens this form with the parent chosen.
  const [parentId, setParentId] = useState(itemIdIn(params.get('parent_id') ?? '') ?? '');
  const [dependsOn, setDependsOn] = useState<string[]>([]);
  const [watchers, setWatchers] = useState('');
  const { busy, problem, run } = useSubmit();

  const fieldError = (field: string) =>
    problem?.errors.find((e) => e.field === field || e.field === `/${field}`)?.message;

  const submit = async (e: Event) => {
    e.preventDefault();
    const checked = checkPayload(payload);
    if (!checked.ok) {
      setPayloadError(checked.message);
      document.getElementById('payload')?.focus();
      return;
    }
    setPayloadError(null);
    await run(async () => {
      const body: Record<string, unknown> = {
        type: type.trim(),
        description,
        priority: Number(priority),
      };
      if (agent.trim()) body.agent = agent.trim();
      if (projectId) body.project_id = projectId;
      if (review !== '') body.review_required = reviewValue(review);
      if (checked.value !== null) body.payload = checked.value;
      if (runAfter !== '') body.run_after = fromLocalInput(runAfter);
      if (maxAttempts.trim() !== '') body.max_attempts = Number(maxAttempts);
      if (retryDelay.trim() !== '') body.retry_delay_s = Number(retryDelay);
      if (parentId !== '') body.parent_id = parentId;
      if (dependsOn.length > 0) body.depends_on = dependsOn;
      if (parseNames(watchers).length > 0) body.watchers = parseNames(watchers);
      const r = await api<WorkItemSummary>('POST', '/work', body);
      navigate(href(`/items/${r.data.id}`));
    });
  };

  return (
    <section aria-labelledby="submit-title" class="narrow">
      <h1 id="submit-title">Submit work</h1>
      <form class="stack card" onSubmit={submit} noValidate={false}>
        <label>
          Type
          <input
            name="type"
            required
            list="known-types"
            pattern={TYPE_PATTERN}
            maxLength={64}
            title={TYPE_HINT}
            value={type}
            autoComplete="off"
            onInput={(e) => setType(e.currentTarget.value)}
            aria-invalid={fieldError('type') ? true : undefined}
          />
          <FieldHint message={fieldError('type')} />
        </label>
        <datalist id="known-types">
          {COMMON_TYPES.map((t) => (
            <option key={t} value={t} />
          ))}
        </datalist>
        <label>
          Description
          <textarea
            name="description"
            required
            rows={4}
            maxLength={10000}
            value={description}
            onInput={(e) => setDescription(e.currentTarget.value)}
            aria-invalid={fieldError('description') ? true : undefined}
          />
          <FieldHint message={fieldError('description')} />
        </label>
        <div class="row wrap">
          <div class="field">
            <label for="submit-priority">Priority</label>
            <select
              id="submit-priority"
              name="priority"
              value={priority}
              onChange={(e) => setPriority(e.currentTarget.value)}
            >
              <PriorityOptions />
            </select>
          </div>
          <label>
            Agent (dispatches at once)
            <input
              name="agent"
              pattern={USER_PATTERN}
              maxLength={64}
              title="Letters, digits and _ . @ -"
              value={agent}
              placeholder="leave queued"
              autoComplete="off"
              onInput={(e) => setAgent(e.currentTarget.value)}
              aria-invalid={fieldError('agent') ? true : undefined}
            />
            <FieldHint message={fieldError('agent')} />
          </label>
          <div class="field">
            <label for="submit-project">Project</label>
            <select
              id="submit-project"
              name="project_id"
              value={projectId}
              onChange={(e) => setProjectId(e.currentTarget.value)}
            >
              <option value="">none</option>
              {projects?.map((p) => (
                <option key={p.id} value={p.id}>
                  {visibleBidi(p.name)}
                </option>
              ))}
            </select>
            <FieldHint message={fieldError('project_id')} />
          </div>
          <ReviewField id="submit-review" value={review} onChange={setReview} />
        </div>
        <RelationFields
          idPrefix="submit"
          parentId={parentId}
          dependsOn={dependsOn}
          onParent={setParentId}
          onDependsOn={setDependsOn}
          errors={{ parent_id: fieldError('parent_id'), depends_on: fieldError('depends_on') }}
        />
        <div class="row wrap">
          <PeopleField
            id="submit-watchers"
            label="Watchers (optional)"
            hint="Told of this item's questions and reviews, beside the project's watchers"
            value={watchers}
            onChange={setWatchers}
          />
        </div>
        <label>
          Payload (JSON object, optional)
          <textarea
            id="payload"
            name="payload"
            rows={6}
            class="mono"
            spellcheck={false}
            placeholder={'{\n  "repo": "org/service",\n  "pr": 42\n}'}
            value={payload}
            onInput={(e) => {
              setPayload(e.currentTarget.value);
              if (payloadError) setPayloadError(null);
            }}
            onBlur={() => {
              const c = checkPayload(payload);
              setPayloadError(c.ok ? null : c.message);
            }}
            aria-invalid={payloadError || fieldError('payload') ? true : undefined}
            aria-describedby="payload-error"
          />
          <span id="payload-error" class="field-error" role={payloadError ? 'alert' : undefined}>
            {payloadError ?? fieldError('payload') ?? ''}
          </span>
        </label>
        <details class="advanced">
          <summary>Scheduling and retries</summary>
          <div class="row wrap">
            <label>
              Not claimable before (your local time)
              <input
                type="datetime-local"
                name="run_after"
                value={runAfter}
                onInput={(e) => setRunAfter(e.currentTarget.value)}
                aria-invalid={fieldError('run_after') ? true : undefined}
              />
              <FieldHint message={fieldError('run_after')} />
            </label>
            <label>
              Attempts at most
              <input
                type="number"
                name="max_attempts"
                min={ATTEMPT_LIMITS.min}
                max={ATTEMPT_LIMITS.max}
                step={1}
                placeholder={String(ATTEMPT_LIMITS.default)}
                value={maxAttempts}
                onInput={(e) => setMaxAttempts(e.currentTarget.value)}
                aria-invalid={fieldError('max_attempts') ? true : undefined}
              />
              <FieldHint message={fieldError('max_attempts')} />
            </label>
            <label>
              Retry delay (seconds)
              <input
                type="number"
                name="retry_delay_s"
                min={RETRY_DELAY_LIMITS.min}
                max={RETRY_DELAY_LIMITS.max}
                step={1}
                placeholder={String(RETRY_DELAY_LIMITS.default)}
                value={retryDelay}
                onInput={(e) => setRetryDelay(e.currentTarget.value)}
                aria-invalid={fieldError('retry_delay_s') ? true : undefined}
              />
              <FieldHint message={fieldError('retry_delay_s')} />
            </label>
          </div>
          <p class="muted small">
            A lease that runs out queues the item again after the retry delay, doubled for each further attempt (at most
            an hour); when the last attempt's lease runs out, it fails. Empty fields take the defaults shown.
          </p>
        </details>
        <ProblemMessage problem={problem} />
        <div class="row end">
          <button type="submit" class="primary" disabled={busy}>
            {busy ? 'Submitting…' : 'Submit'}
          </button>
        </div>
      </form>
    </section>
  );
}

function FieldHint({ message }: { message: string | undefined }) {
  return message ? <span class="field-error">{message}</span> : null;
}
