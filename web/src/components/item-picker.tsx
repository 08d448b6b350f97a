import { useEffect, useState } from 'preact/hooks';
import type { WorkItemSummary } from '../../../src/work/api-contract.ts';
import { api, withQuery } from '../lib/api.ts';
import { useSubmit } from '../lib/use-submit.ts';
import { itemIdIn } from '../lib/relations.ts';
import { ProblemMessage } from './problem-message.tsx';
import { StatusBadge } from './status-badge.tsx';
import { UserText } from './user-text.tsx';

// Picks work items for a parent or for dependencies: an id (or an item page's address) pasted, or
// words looked up in the descriptions and types of the most recent items.

/**
 * Recent items the look-up reads; their descriptions and types are matched in the page. The API
 * has no text search: one page is enough to find the steps of a plan being written, and an id always works.
 */
const SEARCHED = 200;
const RESULTS = 8;

type Picked = Pick<WorkItemSummary, 'id' | 'status' | 'description'>;

/** Descriptions of the chosen ids, read once each. */
const known = new Map<string, Picked>();

function useItems(ids: readonly string[]): Map<string, Picked> {
  const [, setTick] = useState(0);
  useEffect(() => {
    const missing = ids.filter((id) => !known.has(id));
    if (missing.length === 0) return;
    let live = true;
    void Promise.all(
      missing.map((id) =>
        api<WorkItemSummary>('GET', `/work/${encodeURIComponent(id)}`).then(
          (a) => known.set(id, a.data),
          () => undefined,
        ),
      ),
    ).then(() => live && setTick((t) => t + 1));
    return () => {
      live = false;
    };
  }, [ids.join(',')]);
  return known;
}

export function ItemPicker(props: {
  /** The input's id, for its label. */
  id: string;
  label: string;
  hint?: string;
  multiple: boolean;
  value: readonly string[];
  onChange: (ids: string[]) => void;
  /** Ids that may not be chosen (the item itself). */
  exclude?: readonly string[];
  error?: string | undefined;
}) {
  const [text, setText] = useState('');
  const [results, setResults] = useState<Picked[] | null>(null);
  const { busy, problem, run } = useSubmit();
  const items = useItems(props.value);
  const excluded = new Set([...(props.exclude ?? []), ...props.value]);

  const add = (item: Picked) => {
    known.set(item.id, item);
    props.onChange(props.multiple ? [...props.value, item.id] : [item.id]);
    setText('');
    setResults(null);
  };

  const find = async () => {
    const query = text.trim();
    if (query === '') return;
    await run(async () => {
      const id = itemIdIn(query);
      if (id !== null) {
        if (excluded.has(id)) {
          setResults([]);
          return;
        }
        add((await api<WorkItemSummary>('GET', `/work/${encodeURIComponent(id)}`)).data);
        return;
      }
      const words = query.toLowerCase().split(/\s+/);
      const page = (await api<WorkItemSummary[]>('GET', withQuery('/work', { limit: SEARCHED }))).data;
      setResults(
        page
          .filter((item) => !excluded.has(item.id))
          .filter((item) => words.every((w) => `${item.description} ${item.type}`.toLowerCase().includes(w)))
          .slice(0, RESULTS),
      );
    });
  };

  return (
    <div class="field item-picker">
      <label for={props.id}>{props.label}</label>
      {props.value.length > 0 && (
        <ul class="picked" aria-label={`${props.label}: chosen`}>
          {props.value.map((id) => {
            const item = items.get(id);
            return (
              <li key={id} data-id={id}>
                {item && <StatusBadge status={item.status} />}
                {item ? <UserText text={item.description} /> : <code>{id}</code>}
                <button
                  type="button"
                  class="subtle"
                  aria-label={`Remove ${item ? item.description : id}`}
                  onClick={() => props.onChange(props.value.filter((v) => v !== id))}
                >
                  ×
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {(props.multiple || props.value.length === 0) && (
        <div class="row">
          <input
            id={props.id}
            type="search"
            value={text}
            autoComplete="off"
            placeholder="an item id, or words of its description"
            aria-invalid={props.error ? true : undefined}
            onInput={(e) => setText(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                void find();
              }
            }}
          />
          <button type="button" disabled={busy || text.trim() === ''} onClick={() => void find()}>
            Find
          </button>
        </div>
      )}
      {props.hint && <span class="muted small">{props.hint}</span>}
      {props.error && <span class="field-error">{props.error}</span>}
      <ProblemMessage problem={problem} />
      {results !== null &&
        (results.length === 0 ? (
          <p class="muted small" role="status">
            No item found among the {SEARCHED} most recent; paste its id instead.
          </p>
        ) : (
          <ul class="picker-results" aria-label={`${props.label}: found`}>
            {results.map((item) => (
              <li key={item.id}>
                <button type="button" onClick={() => add(item)}>
                  <StatusBadge status={item.status} /> <UserText text={item.description} />
                </button>
              </li>
            ))}
          </ul>
        ))}
    </div>
  );
}
