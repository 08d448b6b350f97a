import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DurableSqliteDialect } from '../../src/shared/db/sqlite-driver.js';

// The SQLite driver builds rows itself from better-sqlite3's arrays (half the cost of
// its own objects). These hold it to what better-sqlite3's objects are, on a real file, through
// the statement cache the service uses (one prepared statement per SQL text).

describe('rows read through the SQLite driver', () => {
  let folder: string;
  let raw: BetterSqlite3.Database;
  let reference: BetterSqlite3.Database;
  let kysely: Kysely<any>;

  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'agentdesk-rows-'));
    const file = join(folder, 'db.sqlite');
    raw = new BetterSqlite3(file);
    raw.pragma('journal_mode = WAL');
    raw.exec(`create table things (id integer primary key, name text not null, size real, blob blob, note text);
      insert into things (name, size, blob, note) values ('a', 1.5, x'00ff', null), ('b', null, null, 'n');`);
    reference = new BetterSqlite3(file, { readonly: true });
    const cache = new Map<string, BetterSqlite3.Statement>();
    const prepare = (text: string) => cache.get(text) ?? cache.set(text, raw.prepare(text)).get(text)!;
    kysely = new Kysely({ dialect: new DurableSqliteDialect({ database: raw, prepare, durable: async () => {} }) });
  });
  afterEach(async () => {
    await kysely.destroy();
    reference.close();
    rmSync(folder, { recursive: true, force: true });
  });

  const read = async (text: string) => (await sql.raw<Record<string, unknown>>(text).execute(kysely)).rows;
  const expected = (text: string) => reference.prepare(text).all();

  it("are better-sqlite3's own objects: every column, its type, nulls and blobs, in column order", async () => {
    const text = 'select * from things order by id';
    const rows = await read(text);
    expect(rows).toEqual(expected(text));
    expect(Object.keys(rows[0]!)).toEqual(['id', 'name', 'size', 'blob', 'note']);
    expect(Buffer.isBuffer(rows[0]!.blob)).toBe(true);
    // Twice through the same cached statement: the same again.
    expect(await read(text)).toEqual(rows);
  });

  it('keep the last value of a name given twice, and any alias, as better-sqlite3 does', async () => {
    const text = `select id, name as id, 'x"y' as "quote""d" from things order by things.id`;
    const rows = await read(text);
    expect(rows).toEqual(expected(text));
    expect(rows[0]!.id).toBe('a');
    expect(rows[0]!['quote"d']).toBe('x"y');
  });

  // better-sqlite3 itself differs here between builds (an own property on Node 24's, the
  // prototype's setter on Node 20's): ours is always an own property, and never a prototype.
  it('hold a column named __proto__ as an own property, whatever its value', async () => {
    const rows = await read(
      `select 1 as "__proto__", x'00ff' as blob_named, (select blob from things where id = 1) as "__proto__" from things where id = 1`,
    );
    expect(Object.hasOwn(rows[0]!, '__proto__')).toBe(true);
    expect(Buffer.isBuffer(rows[0]!['__proto__'])).toBe(true);
    expect(Object.getPrototypeOf(rows[0]!)).toBe(Object.prototype);
  });

  it('follow the schema when a table grows under a cached statement', async () => {
    const text = 'select * from things order by id';
    expect(Object.keys((await read(text))[0]!)).toHaveLength(5);
    raw.exec("alter table things add column colour text not null default 'red'");
    const rows = await read(text);
    expect(rows[0]).toMatchObject({ id: 1, name: 'a', colour: 'red' });
    expect(rows).toEqual(expected(text));
  });

  it('come back from RETURNING, and as objects from a stream of a statement read before', async () => {
    const returned = await read("update things set note = 'seen' where id = 2 returning id, note");
    expect(returned).toEqual([{ id: 2, note: 'seen' }]);
    const text = 'select id, name from things order by id';
    await read(text);
    const streamed: unknown[] = [];
    for await (const row of kysely.selectFrom('things').select(['id', 'name']).orderBy('id').stream())
      streamed.push(row);
    expect(streamed).toEqual([
      { id: 1, name: 'a' },
      { id: 2, name: 'b' },
    ]);
  });

  it('is none for a statement that matches nothing', async () => {
    expect(await read('select * from things where id = 99')).toEqual([]);
  });
});
