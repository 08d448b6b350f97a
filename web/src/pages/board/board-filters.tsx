import { useEffect, useRef, useState } from 'preact/hooks';
import { type BoardFilters, PAGE_SIZES } from '../../lib/filters.ts';
import { fromLocalInput, statusLabel, toLocalInput } from '../../lib/format.ts';
import { useProjects } from '../../lib/projects.ts';
import { href } from '../../lib/router.ts';
import type { WorkStatus } from '../../../../src/work/api-contract.ts';
import { STATUSES } from '../../lib/statuses.ts';
import { visibleBidi } from '../../components/user-text.tsx';

/** The board's filter form. Lists apply at once; typed fields apply on Enter or "Apply". */
export function BoardFiltersForm(props: { filters: BoardFilters; onApply: (f: BoardFilters) => void }) {
  const [draft, setDraft] = useState(props.filters);
  // The latest draft, not the one of the last render: a list changed right after "Clear" must
  // not bring the cleared filters back before the form has re-rendered.
  const latest = useRef(props.filters);
  const update = (next: BoardFilters) => {
    latest.current = next;
    setDraft(next);
  };
  const projects = useProjects();
  const [wide] = useState(() => !window.matchMedia('(max-width: 640px)').matches);
  useEffect(() => update(props.filters), [props.filters]);

  const apply = (next: BoardFilters) => props.onApply({ ...next, cursor: '' });
  const set = <K extends keyof BoardFilters>(key: K, value: BoardFilters[K], now = false) => {
    const next = { ...latest.current, [key]: value };
    update(next);
    if (now) apply(next);
  };

  const active = [
    props.filters.status,
    props.filters.agent,
    props.filters.project_id,
    props.filters.type,
    props.filters.since,
    props.filters.parent_id,
    props.filters.ready,
  ].filter(Boolean).length;
  return (
    // On a phone the form folds away behind its summary; on wider screens the summary is hidden
    // and the box stays open.
    <details class="filters-box" open={wide}>
      <summary>Filters{active > 0 ? ` (${active} active)` : ''}</summary>
      <form
        class="filters"
        role="search"
        aria-label="Filter work items"
        onSubmit={(e) => {
          e.preventDefault();
          const current = latest.current;
          apply({ ...current, agent: current.agent.trim(), type: current.type.trim() });
        }}
      >
        <div class="field">
          <label for="filter-status">Status</label>
          <select
            id="filter-status"
            name="status"
            value={draft.status ?? ''}
            onChange={(e) => set('status', (e.currentTarget.value || null) as WorkStatus | null, true)}
          >
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {statusLabel(s)}
              </option>
            ))}
          </select>
        </div>
        <label>
          Agent
          <input
            name="agent"
            value={draft.agent}
            placeholder="any"
            autoComplete="off"
            onInput={(e) => set('agent', e.currentTarget.value)}
          />
        </label>
        <div class="field">
          <label for="filter-project">Project</label>
          <select
            id="filter-project"
            name="project_id"
            value={draft.project_id}
            onChange={(e) => set('project_id', e.currentTarget.value, true)}
          >
            <option value="">any</option>
            {projects?.map((p) => (
              <option key={p.id} value={p.id}>
                {visibleBidi(p.name)}
              </option>
            ))}
            {draft.project_id && !projects?.some((p) => p.id === draft.project_id) && (
              <option value={draft.project_id}>{draft.project_id}</option>
            )}
          </select>
        </div>
        <label>
          Type
          <input
            name="type"
            value={draft.type}
            placeholder="any"
            autoComplete="off"
            onInput={(e) => set('type', e.currentTarget.value)}
          />
        </label>
        <label>
          Created after
          <input
            name="since"
            type="datetime-local"
            value={draft.since ? toLocalInput(draft.since) : ''}
            onChange={(e) => set('since', fromLocalInput(e.currentTarget.value), true)}
          />
        </label>
        <div class="field">
          <label for="filter-sort">Order</label>
          <select
            id="filter-sort"
            name="sort"
            value={draft.sort}
            onChange={(e) => set('sort', e.currentTarget.value === 'priority' ? 'priority' : 'newest', true)}
          >
            <option value="newest">newest first</option>
            <option value="priority">queue order</option>
          </select>
        </div>
        <div class="field">
          <label for="filter-limit">Per page</label>
          <select
            id="filter-limit"
            name="limit"
            value={String(draft.limit)}
            onChange={(e) => set('limit', Number(e.currentTarget.value), true)}
          >
            {(PAGE_SIZES as readonly number[])
              .concat((PAGE_SIZES as readonly number[]).includes(draft.limit) ? [] : [draft.limit])
              .map((n) => (
                <option key={n} value={String(n)}>
                  {n}
                </option>
              ))}
          </select>
        </div>
        <label class="inline-check small">
          <input
            type="checkbox"
            name="ready"
            checked={draft.ready}
            onChange={(e) => set('ready', e.currentTarget.checked, true)}
          />
          Ready to claim only
        </label>
        {draft.parent_id && (
          <p class="filter-parent small">
            Sub-items of{' '}
            <a href={href(`/items/${draft.parent_id}`)}>
              <code>{draft.parent_id.slice(0, 8)}</code>
            </a>{' '}
            <button
              type="button"
              class="subtle"
              aria-label="Show all items, not only these sub-items"
              onClick={() => set('parent_id', '', true)}
            >
              ×
            </button>
          </p>
        )}
        <div class="filter-buttons">
          <button type="submit" class="primary">
            Apply
          </button>
          <button
            type="button"
            onClick={() => {
              const cleared = {
                ...latest.current,
                status: null,
                agent: '',
                project_id: '',
                type: '',
                since: '',
                parent_id: '',
                ready: false,
                cursor: '',
              };
              update(cleared);
              apply(cleared);
            }}
          >
            Clear
          </button>
        </div>
      </form>
    </details>
  );
}
