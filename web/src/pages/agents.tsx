import { useEffect, useRef } from 'preact/hooks';
import { LoopMarks } from '../components/loop-fields.tsx';
import { ProblemMessage } from '../components/problem-message.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { api, withQuery } from '../lib/api.ts';
import { formatAgo, statusLabel } from '../lib/format.ts';
import { useLive } from '../lib/live.ts';
import { href } from '../lib/router.ts';
import { useLoad } from '../lib/use-load.ts';
import type { WorkStatus, WorkItemSummary } from '../../../src/work/api-contract.ts';
import { UserText } from '../components/user-text.tsx';

const ACTIVE = ['in_progress', 'blocked', 'dispatched'] as const satisfies readonly WorkStatus[];
const PER_STATUS = 500;
const RELOAD_MS = 1000;
const SHOWN_PER_AGENT = 8;

interface AgentWork {
  agent: string;
  items: WorkItemSummary[];
}

interface Loaded {
  agents: AgentWork[];
  truncated: boolean;
}

// There is no agents resource: an agent is whoever holds active work, so the page reads the
// three active statuses and groups them.
async function loadAgents(signal: AbortSignal): Promise<Loaded> {
  const pages = await Promise.all(
    ACTIVE.map((status) =>
      api<WorkItemSummary[]>(
        'GET',
        withQuery('/work', { status, limit: PER_STATUS, sort: 'priority' }),
        undefined,
        signal,
      ),
    ),
  );
  const byAgent = new Map<string, WorkItemSummary[]>();
  for (const page of pages) {
    for (const item of page.data) {
      const agent = item.assigned_agent ?? '(unassigned)';
      const list = byAgent.get(agent) ?? [];
      list.push(item);
      byAgent.set(agent, list);
    }
  }
  const agents = [...byAgent]
    .map(([agent, items]) => ({ agent, items }))
    .sort((a, b) => a.agent.localeCompare(b.agent));
  return { agents, truncated: pages.some((p) => p.nextCursor !== null) };
}

export function AgentsPage() {
  const data = useLoad('agents', loadAgents);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  useLive((e) => {
    if (!e.type.startsWith('work.') && e.type !== 'resync') return;
    if (timer.current !== undefined) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      data.reload();
    }, RELOAD_MS);
  });

  return (
    <section aria-labelledby="agents-title">
      <h1 id="agents-title">Agents</h1>
      <p class="muted">Work each agent holds now: dispatched, in progress and blocked.</p>
      <ProblemMessage problem={data.error} />
      {data.data?.truncated && <p class="notice">Showing the first {PER_STATUS} items of each status.</p>}
      {data.data === null ? (
        !data.error && <p class="muted">Loading…</p>
      ) : data.data.agents.length === 0 ? (
        <p class="empty">No agent holds any work right now.</p>
      ) : (
        <ul class="agent-grid">
          {data.data.agents.map((a) => (
            <li key={a.agent} class="card agent-card">
              <AgentCard work={a} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function AgentCard({ work }: { work: AgentWork }) {
  const count = (s: WorkStatus) => work.items.filter((i) => i.status === s).length;
  const ordered = ACTIVE.flatMap((s) => work.items.filter((i) => i.status === s));
  return (
    <article aria-label={`Agent ${work.agent}`}>
      <header class="row between">
        <h2 class="agent-name">
          <a href={href('/', { agent: work.agent })}>{work.agent}</a>
        </h2>
        <span class="muted small">{ACTIVE.map((s) => `${count(s)} ${statusLabel(s)}`).join(' · ')}</span>
      </header>
      <ul class="agent-items">
        {ordered.slice(0, SHOWN_PER_AGENT).map((i) => (
          <li key={i.id}>
            <a href={href(`/items/${i.id}`)} class="agent-item-link">
              <UserText text={i.description} />
            </a>
            <span class="agent-item-meta">
              <StatusBadge status={i.status} />
              <LoopMarks item={i} />
              <span class="muted small">
                P{i.priority} · <code>{i.type}</code> · {formatAgo(i.updated_at)}
              </span>
            </span>
          </li>
        ))}
      </ul>
      {ordered.length > SHOWN_PER_AGENT && (
        <p class="small">
          <a href={href('/', { agent: work.agent })}>{ordered.length - SHOWN_PER_AGENT} more on the board →</a>
        </p>
      )}
    </article>
  );
}
