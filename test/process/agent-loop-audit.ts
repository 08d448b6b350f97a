import type { Kysely } from 'kysely';
import { type Database, openDatabase } from '../../src/shared/db/database.js';
import { createLogger } from '../../src/shared/observability/logger.js';
import type { TestDatabase } from '../support/databases.js';

// The agent loop's invariants read straight from the database the servers share, so a process
// test does not take the API's word for what was stored: one open dispatch entry per held item,
// naming its agent; no lease and no open entry on a queued or finished item.

export interface AuditedItem {
  id: string;
  status: string;
  assigned_agent: string | null;
  attempts: number;
  version: number;
  lease_expires_at: string | null;
  outcome: string | null;
}

export interface AuditedDispatch {
  id: string;
  work_item_id: string;
  agent: string;
  dispatched_at: string;
  completed_at: string | null;
  outcome: string | null;
  reason: string | null;
}

export interface Audit {
  items: Map<string, AuditedItem>;
  /** Every dispatch entry of the audited items, by item, in the order they were opened. */
  dispatches: Map<string, AuditedDispatch[]>;
}

/** Opens the servers' database for reading; the servers ran the migrations already. */
export function openForAudit(test: TestDatabase): Promise<Database> {
  return openDatabase(test.config, { logger: createLogger('silent'), migrate: false });
}

/** The items of one type (or one creator) and their dispatch entries, as stored. */
export async function auditItems(database: Database, where: { type: string } | { created_by: string }): Promise<Audit> {
  const [column, value] =
    'type' in where ? (['type', where.type] as const) : (['created_by', where.created_by] as const);
  const db = database.kysely as Kysely<any>;
  const rows: AuditedItem[] = await db
    .selectFrom('work_items')
    .select(['id', 'status', 'assigned_agent', 'attempts', 'version', 'lease_expires_at', 'outcome'])
    .where(column, '=', value)
    .execute();
  const log: AuditedDispatch[] = await db
    .selectFrom('dispatch_log')
    .innerJoin('work_items', 'work_items.id', 'dispatch_log.work_item_id')
    .select([
      'dispatch_log.id',
      'dispatch_log.work_item_id',
      'dispatch_log.agent',
      'dispatch_log.dispatched_at',
      'dispatch_log.completed_at',
      'dispatch_log.outcome',
      'dispatch_log.reason',
    ])
    .where(`work_items.${column}`, '=', value)
    .orderBy('dispatch_log.dispatched_at')
    .orderBy('dispatch_log.id')
    .execute();
  const dispatches = new Map<string, AuditedDispatch[]>(rows.map((row) => [row.id, []]));
  for (const entry of log) dispatches.get(entry.work_item_id)?.push(entry);
  return {
    items: new Map(
      rows.map((row) => [row.id, { ...row, attempts: Number(row.attempts), version: Number(row.version) }]),
    ),
    dispatches,
  };
}

const HELD = ['dispatched', 'in_progress', 'blocked'];

/**
 * Everything in the audit that breaks the claim invariants; empty when none. A queued item has
 * no open entry, no agent and no lease; a held item exactly one open entry, naming its agent.
 */
export function claimViolations({ items, dispatches }: Audit): string[] {
  const problems: string[] = [];
  for (const item of items.values()) {
    const log = dispatches.get(item.id) ?? [];
    const open = log.filter((entry) => entry.completed_at === null);
    const fail = (message: string) => problems.push(`${item.id} (${item.status}): ${message}`);
    if (open.length > 1) fail(`${open.length} open dispatch entries`);
    if (HELD.includes(item.status)) {
      if (open.length !== 1) fail(`held with ${open.length} open dispatch entries`);
      else if (open[0]?.agent !== item.assigned_agent)
        fail(`assigned to ${item.assigned_agent}, open entry names ${open[0]?.agent}`);
    } else if (open.length > 0) {
      fail('not held, yet a dispatch entry is open');
    }
    if (item.status === 'queued') {
      if (item.assigned_agent !== null) fail(`queued yet assigned to ${item.assigned_agent}`);
      if (item.lease_expires_at !== null) fail(`queued yet leased until ${item.lease_expires_at}`);
    }
    if (item.status === 'in_progress' && item.lease_expires_at === null) fail('in progress without a lease');
    for (const entry of log) {
      if ((entry.completed_at === null) !== (entry.outcome === null)) fail(`dispatch ${entry.id} half closed`);
    }
  }
  return problems;
}

export interface Reply<T = any> {
  /** 0 when no HTTP response came back (the server died mid-request). */
  status: number;
  body: T;
  headers: Headers;
  error?: string;
  /** When the answer (or the failure) arrived, by this process's clock. */
  at: number;
}

/** A JSON request with headers of its own; a network failure is an answer with status 0. */
export async function send<T = any>(
  baseUrl: string,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  timeoutMs = 30_000,
): Promise<Reply<T>> {
  try {
    const response = await fetch(baseUrl + path, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? null : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // not JSON: kept as text for the assertion message
    }
    return { status: response.status, body: parsed as T, headers: response.headers, at: Date.now() };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    return {
      status: 0,
      body: undefined as T,
      headers: new Headers(),
      error: cause?.code ?? (error as Error).name,
      at: Date.now(),
    };
  }
}
