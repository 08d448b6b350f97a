import { useState } from 'preact/hooks';
import { ProblemMessage } from '../../components/problem-message.tsx';
import { api } from '../../lib/api.ts';
import { useProjects } from '../../lib/projects.ts';
import { useLoad } from '../../lib/use-load.ts';
import { useSubmit } from '../../lib/use-submit.ts';
import { ALL_EVENTS, type CreatedWebhook, parseTypes } from '../../lib/webhooks.ts';

// Adding an endpoint: where to send, which events (the names the service offers), and the filters.
// The answer carries the signing secret, which the page shows once (NewSecret) and never again.

export function AddWebhook(props: { onCreated: (created: CreatedWebhook) => void }) {
  const events = useLoad<string[]>(
    'webhook-events',
    async (signal) => (await api<{ events: string[] }>('GET', '/webhooks/events', undefined, signal)).data.events,
  );
  const projects = useProjects();
  const [url, setUrl] = useState('');
  const [chosen, setChosen] = useState<string[]>([]);
  const [project, setProject] = useState('');
  const [types, setTypes] = useState('');
  const [format, setFormat] = useState<'standard' | 'slack'>('standard');
  const [description, setDescription] = useState('');
  const { busy, problem, run } = useSubmit();
  const all = chosen.includes(ALL_EVENTS);
  const toggle = (name: string, on: boolean) =>
    setChosen((now) => (on ? [...now.filter((n) => n !== name), name] : now.filter((n) => n !== name)));

  return (
    <form
      class="card stack"
      aria-label="New webhook"
      onSubmit={async (e) => {
        e.preventDefault();
        await run(async () => {
          const typeList = parseTypes(types);
          const body = {
            url: url.trim(),
            events: all ? [ALL_EVENTS] : chosen,
            format,
            ...(project !== '' && { project_id: project }),
            ...(typeList.length > 0 && { types: typeList }),
            ...(description.trim() !== '' && { description: description.trim() }),
          };
          const created = (await api<CreatedWebhook>('POST', '/webhooks', body)).data;
          props.onCreated(created);
          setUrl('');
          setChosen([]);
          setProject('');
          setTypes('');
          setDescription('');
        });
      }}
    >
      <h2>Add a webhook</h2>
      <label>
        URL
        <input
          name="url"
          type="url"
          required
          maxLength={2048}
          placeholder="https://hooks.example.org/agentdesk"
          autoComplete="off"
          value={url}
          onInput={(e) => setUrl(e.currentTarget.value)}
        />
      </label>
      <fieldset class="webhook-events">
        <legend>Events</legend>
        <label class="inline-check all-events">
          <input type="checkbox" checked={all} onChange={(e) => toggle(ALL_EVENTS, e.currentTarget.checked)} />
          All events, those added later too
        </label>
        {events.error && <ProblemMessage problem={events.error} />}
        {events.data === null && !events.error && <p class="muted small">Loading the event names…</p>}
        <div class="event-choices">
          {events.data?.map((name) => (
            <label key={name} class="inline-check">
              <input
                type="checkbox"
                name="events"
                value={name}
                disabled={all}
                checked={all || chosen.includes(name)}
                onChange={(e) => toggle(name, e.currentTarget.checked)}
              />
              <code>{name}</code>
            </label>
          ))}
        </div>
      </fieldset>
      <div class="row wrap webhook-filters">
        <label class="grow">
          Project
          <select name="project_id" value={project} onChange={(e) => setProject(e.currentTarget.value)}>
            <option value="">Any project</option>
            {projects?.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
        <label class="grow">
          Work types (optional)
          <input
            name="types"
            placeholder="code_review, deploy"
            autoComplete="off"
            value={types}
            onInput={(e) => setTypes(e.currentTarget.value)}
          />
        </label>
        <label>
          Format
          <select
            name="format"
            value={format}
            onChange={(e) => setFormat(e.currentTarget.value as 'standard' | 'slack')}
          >
            <option value="standard">Standard Webhooks (JSON)</option>
            <option value="slack">Slack message</option>
          </select>
        </label>
      </div>
      <label>
        Description (optional)
        <input
          name="description"
          maxLength={500}
          autoComplete="off"
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
        />
      </label>
      <ProblemMessage problem={problem} />
      <div class="row end">
        <button type="submit" class="primary" disabled={busy || (!all && chosen.length === 0)}>
          Add webhook
        </button>
      </div>
    </form>
  );
}

/** A signing secret, this once: the receiver needs it to check each delivery's signature. */
export function NewSecret(props: { title: string; secret: string; note?: string; onDone: () => void }) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  return (
    <div class="card stack new-secret" role="status" aria-labelledby="new-webhook-secret-title">
      <h2 id="new-webhook-secret-title">{props.title}</h2>
      <p>This is the signing secret. Copy it now: it is shown only this once.</p>
      {props.note && <p class="muted small">{props.note}</p>}
      <div class="row wrap">
        <code class="secret" data-testid="webhook-secret">
          {props.secret}
        </code>
        <button
          type="button"
          class="primary"
          onClick={() =>
            navigator.clipboard.writeText(props.secret).then(
              () => setCopied('yes'),
              () => setCopied('no'),
            )
          }
        >
          Copy
        </button>
        <button type="button" onClick={props.onDone}>
          Done
        </button>
      </div>
      {copied === 'yes' && <p class="ok">Copied to the clipboard.</p>}
      {copied === 'no' && (
        <p class="muted">The browser refused the clipboard; select the secret and copy it by hand.</p>
      )}
    </div>
  );
}
