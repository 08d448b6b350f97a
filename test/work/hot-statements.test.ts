import {
  type DatabaseConnection,
  type Driver,
  Kysely,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import { describe, expect, it } from 'vitest';
import { DEPENDENT_NOTES } from '../../src/conversation/store/dependent-notes.js';
import type { ClaimQuery, ItemChange } from '../../src/work/store/port.js';
import { candidatesQuery, changesQuery, postgresStatements } from '../../src/work/store/postgres.js';
import { sqliteStatements } from '../../src/work/store/sqlite.js';
import type { DatabaseSchema } from '../../src/shared/db/schema.js';

// The text of the agent loop's hot statements, on each database, kept in committed files under
// src/work/store/sql/: a change to the SQL of a claim, a lease expiry or a dependency's release
// shows in a diff and is reviewed as SQL. `npx vitest run -u <this file>` rewrites the files.

const SQL_DIR = '../../src/work/store/sql';
const NOW = '2026-11-23T00:00:00.000Z';
const AGENTS = ['agent-a', 'agent-b'];
const ID = '00000000-0000-4000-8000-000000000001';
const ACTOR = { name: 'agentdesk', role: 'system' };

const CLAIM_ALL: ClaimQuery = { types: null, project_id: null, now: NOW };
const CLAIM_FILTERED: ClaimQuery = { types: ['triage'], project_id: '0b9f8a52-2f0a-4e7e-9a39-3c8d1f1f2e10', now: NOW };

const CHANGES: Record<string, ItemChange> = {
  claim: {
    id: ID,
    from_version: 1,
    set: { status: 'in_progress', assigned_agent: 'agent-a', version: 2, updated_at: NOW },
    openDispatch: {
      id: ID,
      work_item_id: ID,
      agent: 'agent-a',
      dispatched_at: NOW,
      completed_at: null,
      outcome: null,
      reason: null,
    },
    event: { type: 'work.updated', data: '{}', at: NOW },
    history: { at: NOW, actor: 'agent-a', role: 'agent', action: 'claimed', changes: '{}' },
  },
  'lease-expiry': {
    id: ID,
    from_version: 3,
    set: { status: 'queued', assigned_agent: null, version: 4, updated_at: NOW },
    closeDispatch: { at: NOW, outcome: 'failed', reason: 'lease_expired' },
    event: { type: 'work.updated', data: '{}', at: NOW },
    history: { at: NOW, actor: 'agentdesk', role: 'system', action: 'lease_expired', changes: '{}' },
  } as ItemChange,
  'completion-releasing-dependents': {
    id: ID,
    from_version: 5,
    set: { status: 'completed', outcome: 'success', completed_at: NOW, version: 6, updated_at: NOW },
    closeDispatch: { at: NOW, outcome: 'success', reason: 'completed' },
    event: { type: 'work.updated', data: '{}', at: NOW },
    history: { at: NOW, actor: 'agent-a', role: 'agent', action: 'complete', changes: '{}' },
    dependents: { kind: 'release', event: 'work.updated', actor: ACTOR },
    from_link_version: 0,
  } as ItemChange,
  // The note is the conversation's comment, written in the change's statement (dependent-notes.ts).
  'failure-noting-dependents': {
    id: ID,
    from_version: 5,
    set: { status: 'failed', outcome: 'failed', completed_at: NOW, version: 6, updated_at: NOW },
    closeDispatch: { at: NOW, outcome: 'failed', reason: 'failed' },
    event: { type: 'work.updated', data: '{}', at: NOW },
    history: { at: NOW, actor: 'agent-a', role: 'agent', action: 'fail', changes: '{}' },
    dependents: {
      kind: 'note',
      event: 'work.updated',
      actor: ACTOR,
      note: 'A dependency failed.',
      unless: ['failed', 'cancelled'],
    },
    from_link_version: 0,
  } as ItemChange,
};

/** A SQLite Kysely that runs nothing: every statement is recorded and "changes" one row. */
function recordingSqlite(): { kysely: Kysely<DatabaseSchema>; statements: string[] } {
  const statements: string[] = [];
  const connection: DatabaseConnection = {
    async executeQuery<R>(query: { sql: string }): Promise<QueryResult<R>> {
      statements.push(query.sql);
      // A RETURNING statement answers one row, as an insert of the event log's does.
      return { rows: (/\breturning\b/i.test(query.sql) ? [{ id: 1 }] : []) as R[], numAffectedRows: 1n };
    },
    // eslint-disable-next-line require-yield
    async *streamQuery() {
      throw new Error('not streamed');
    },
  };
  const driver: Driver = {
    async init() {},
    async acquireConnection() {
      return connection;
    },
    async beginTransaction() {},
    async commitTransaction() {},
    async rollbackTransaction() {},
    async releaseConnection() {},
    async destroy() {},
  };
  const kysely = new Kysely<DatabaseSchema>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => driver,
      createIntrospector: (db) => new SqliteIntrospector(db),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  });
  return { kysely, statements };
}

function file(text: string | string[]): string {
  return `${(Array.isArray(text) ? text : [text]).map((statement) => statement.trim()).join(';\n\n')};\n`;
}

describe('the hot statements on PostgreSQL', () => {
  it.each([
    ['claim-read', CLAIM_ALL],
    ['claim-read-filtered', CLAIM_FILTERED],
  ] as const)('%s', async (name, query) => {
    await expect(file(candidatesQuery(query, AGENTS).text)).toMatchFileSnapshot(`${SQL_DIR}/postgres/${name}.sql`);
  });

  it('the next due time', async () => {
    const captured: string[] = [];
    const statements = postgresStatements(
      recordingSqlite().kysely,
      async <R>(statement: { text: string }) => {
        captured.push(statement.text);
        return [] as R[];
      },
      DEPENDENT_NOTES,
    );
    await statements.nextRunAfter(CLAIM_ALL);
    await expect(file(captured)).toMatchFileSnapshot(`${SQL_DIR}/postgres/next-run-after.sql`);
  });

  it.each(Object.keys(CHANGES))('%s', async (name) => {
    await expect(file(changesQuery([CHANGES[name]!], DEPENDENT_NOTES).text)).toMatchFileSnapshot(
      `${SQL_DIR}/postgres/${name}.sql`,
    );
  });
});

describe('the hot statements on SQLite', () => {
  it.each([
    ['claim-read', CLAIM_ALL],
    ['claim-read-filtered', CLAIM_FILTERED],
  ] as const)('%s', async (name, query) => {
    const { kysely, statements } = recordingSqlite();
    await sqliteStatements(kysely, DEPENDENT_NOTES).claimCandidates(query, AGENTS);
    expect(statements.length).toBeGreaterThan(0);
    await expect(file(statements)).toMatchFileSnapshot(`${SQL_DIR}/sqlite/${name}.sql`);
  });

  it('the next due time', async () => {
    const { kysely, statements } = recordingSqlite();
    await sqliteStatements(kysely, DEPENDENT_NOTES).nextRunAfter(CLAIM_ALL);
    await expect(file(statements)).toMatchFileSnapshot(`${SQL_DIR}/sqlite/next-run-after.sql`);
  });

  it.each(Object.keys(CHANGES))('%s', async (name) => {
    const { kysely, statements } = recordingSqlite();
    expect(await sqliteStatements(kysely, DEPENDENT_NOTES).applyChanges([CHANGES[name]!])).toEqual([true]);
    await expect(file(statements)).toMatchFileSnapshot(`${SQL_DIR}/sqlite/${name}.sql`);
  });
});
