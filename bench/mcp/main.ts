import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { freshDatabase, parseDbKind } from '../lib/databases.js';
import { runMain } from '../lib/run-main.js';
import { startWork } from '../lib/servers.js';

// `npm run bench:mcp [-- --db postgres --calls 1000]`: the p50 an MCP tool call (official SDK client, AUTH=tokens)
// adds to the plain HTTP request(s) it stands for, one of each in turn. get_work_item makes two API calls in
// parallel, so it is set against GET /work/{id} alone and against both.

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    calls: { type: 'string', default: '1000' },
    warmup: { type: 'string', default: '200' },
    /** A folder: the work server runs with --cpu-prof and leaves its profile there. */
    'cpu-prof': { type: 'string' },
  },
});

const kind = parseDbKind(args.db);
const CALLS = Number(args.calls);
const WARMUP = Number(args.warmup);
const TARGET_MS = 2;
const ADMIN_TOKEN = randomBytes(24).toString('hex');

// The SDK's HTTP client hands every fetch one AbortSignal, and undici lets go of its listener
// on that signal only when the request is garbage collected: thousands of calls in a tight loop
// outrun the collector and Node warns of a leak that is not one.
setMaxListeners(0);

function emit(line: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ bench: 'mcp', db: kind, ...line })}\n`);
}

function progress(message: string): void {
  process.stderr.write(`[bench:mcp ${kind}] ${message}\n`);
}

function median(times: number[]): number {
  const sorted = Float64Array.from(times).sort();
  return Math.round((sorted[Math.floor(sorted.length / 2)] ?? Number.NaN) * 1000) / 1000;
}

async function request(url: string, init: RequestInit): Promise<unknown> {
  const response = await fetch(url, init);
  const text = await response.text();
  if (response.status >= 400) throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${text}`);
  return text === '' ? undefined : JSON.parse(text);
}

type Timed = () => Promise<unknown>;

/**
 * Runs the contenders in turn, one call each, `CALLS` times: load that comes and goes on a
 * shared machine then falls on all of them alike. Answers the times of each.
 */
async function race(contenders: Record<string, Timed>): Promise<Record<string, number[]>> {
  const entries = Object.entries(contenders);
  const times: Record<string, number[]> = Object.fromEntries(entries.map(([name]) => [name, []]));
  for (let i = 0; i < WARMUP; i += 1) for (const [, run] of entries) await run();
  for (let i = 0; i < CALLS; i += 1) {
    for (const [name, run] of entries) {
      const start = performance.now();
      await run();
      times[name]!.push(performance.now() - start);
    }
  }
  return times;
}

async function main(): Promise<void> {
  const database = await freshDatabase(kind);
  const server = await startWork(database.url, 10, args['cpu-prof'], {
    AUTH: 'tokens',
    AGENTDESK_ADMIN_TOKEN: ADMIN_TOKEN,
  });
  try {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const created = (await request(`${server.url}/tokens`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name: 'bench-agent', role: 'agent', agent: 'bench-agent' }),
    })) as { token: string };
    const agent = { authorization: `Bearer ${created.token}` };
    await request(`${server.url}/work`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ type: 'bench', description: 'held' }),
    });
    const item = (await request(`${server.url}/work/claim`, {
      method: 'POST',
      headers: { ...agent, 'content-type': 'application/json' },
      body: JSON.stringify({ agent: 'bench-agent', lease_s: 3600 }),
    })) as { id: string };

    const client = new Client({ name: 'bench-mcp', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: agent } }),
    );
    // As a host does: the listing also arms the client's check of each answer against its output schema.
    await client.listTools();
    const tool = async (name: string, toolArgs: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: toolArgs })) as CallToolResult;
      if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
    };
    const get = (path: string) => request(`${server.url}${path}`, { headers: agent });

    progress(
      `${CALLS} calls of each, in turn, after ${WARMUP} warm-up calls; load average ${loadavg()[0]?.toFixed(1)}`,
    );
    const reads = await race({
      mcp_get_work_item: () => tool('get_work_item', { id: item.id }),
      http_get_item: () => get(`/work/${item.id}`),
      http_get_item_and_history: () =>
        Promise.all([get(`/work/${item.id}`), get(`/work/${item.id}/history`).catch(() => null)]),
    });
    const beats = await race({
      mcp_heartbeat: () => tool('heartbeat', { id: item.id, lease_s: 3600 }),
      http_heartbeat: () =>
        request(`${server.url}/work/${item.id}/heartbeat`, {
          method: 'POST',
          headers: { ...agent, 'content-type': 'application/json' },
          body: JSON.stringify({ agent: 'bench-agent', lease_s: 3600 }),
        }),
    });
    await client.close();

    const compare = (name: string, mcp: number[], http: number[], against: string) => {
      const difference = Math.round((median(mcp) - median(http)) * 1000) / 1000;
      emit({
        metric: `${name} p50 over ${against}`,
        mcp_p50_ms: median(mcp),
        http_p50_ms: median(http),
        difference_ms: difference,
        target_ms: TARGET_MS,
        met: difference <= TARGET_MS,
        calls: mcp.length,
        load_average: Math.round((loadavg()[0] ?? 0) * 10) / 10,
        cores: cpus().length,
      });
    };
    compare('get_work_item', reads.mcp_get_work_item!, reads.http_get_item!, 'GET /work/{id}');
    compare(
      'get_work_item',
      reads.mcp_get_work_item!,
      reads.http_get_item_and_history!,
      'GET /work/{id} and /history in parallel',
    );
    compare('heartbeat', beats.mcp_heartbeat!, beats.http_heartbeat!, 'POST /work/{id}/heartbeat');
  } finally {
    await server.stop();
    // At LOG_LEVEL=warn every line the server wrote is a warning or worse: shown, not hidden.
    if (server.outputLines() > 0) {
      emit({ metric: 'server warnings', lines: server.outputLines() });
      progress(`the server wrote:\n${server.ended() ?? ''}`);
    }
  }
}

runMain(main);
