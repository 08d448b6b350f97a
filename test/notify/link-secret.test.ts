import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LinkSecretSealed, loadLinkSecret, createLinkTokens } from '../../src/notify/index.js';
import { createSecretBox } from '../../src/shared/secret-box.js';
import { ConfigError, loadConfig } from '../../src/shared/config/config.js';
import type { Database } from '../../src/shared/db/database.js';
import { type TestDatabase, createTestDatabase, openTestDatabase, storesUnderTest } from '../support/databases.js';

// The link secret: LINK_SECRET or its file when set, else made once and kept in the database, so
// instances opened on it at the same moment agree; and ANSWER_LINK_TTL's forms. Never echoed.

describe.each(await storesUnderTest())('the link secret kept in the database on %s', (kind) => {
  let testDatabase: TestDatabase;
  const opened: Database[] = [];

  beforeAll(async () => {
    testDatabase = await createTestDatabase(kind);
  });
  afterAll(async () => {
    for (const database of opened) await database.close();
    await testDatabase?.destroy();
  });

  it('two instances opening at once end with the same secret, which later starts read back', async () => {
    // SQLite has one writer and one file: opened one after the other, as two processes would be.
    const first = await openTestDatabase(testDatabase);
    opened.push(first);
    const second = kind === 'postgres' ? await openTestDatabase(testDatabase) : first;
    if (second !== first) opened.push(second);
    const [a, b] = await Promise.all([
      loadLinkSecret({ configured: null, database: first, box: null }),
      loadLinkSecret({ configured: null, database: second, box: null }),
    ]);
    expect(a.length).toBe(32);
    expect(b.equals(a)).toBe(true);
    expect((await loadLinkSecret({ configured: null, database: first, box: null })).equals(a)).toBe(true);
    // A link signed by one instance verifies at the other.
    const token = createLinkTokens(a, 600).sign({ question_id: crypto.randomUUID(), person: 'ada' });
    expect(createLinkTokens(b, 600).verify(token).ok).toBe(true);
  });

  it('LINK_SECRET, when set, is the key and nothing is read from the database', async () => {
    const configured = 'a configured secret of more than thirty-two characters';
    const key = await loadLinkSecret({ configured, database: opened[0]!, box: null });
    expect(key.toString('utf8')).toBe(configured);
  });
});

describe.each(await storesUnderTest())('the link secret under AGENTDESK_SECRET_KEY on %s', (kind) => {
  const box = createSecretBox('ab'.repeat(32));
  let testDatabase: TestDatabase;
  let database: Database;

  beforeAll(async () => {
    testDatabase = await createTestDatabase(kind);
    database = await openTestDatabase(testDatabase);
  });
  afterAll(async () => {
    await database?.close();
    await testDatabase?.destroy();
  });

  const stored = async () =>
    (
      await database.kysely
        .selectFrom('app_secrets')
        .select('value')
        .where('name', '=', 'link_secret')
        .executeTakeFirst()
    )?.value;

  it('a secret kept in clear by a server without the key is sealed at the next start with it, and links still verify', async () => {
    const clear = await loadLinkSecret({ configured: null, database, box: null });
    const token = createLinkTokens(clear, 600).sign({ question_id: crypto.randomUUID(), person: 'ada' });
    expect(await stored()).toBe(clear.toString('base64url'));

    const sealed = await loadLinkSecret({ configured: null, database, box });
    expect(sealed.equals(clear)).toBe(true);
    const row = await stored();
    expect(row).toMatch(/^v1\./);
    expect(row).not.toContain(clear.toString('base64url'));
    expect(createLinkTokens(sealed, 600).verify(token).ok).toBe(true);
    // Read back sealed on every later start.
    expect((await loadLinkSecret({ configured: null, database, box })).equals(clear)).toBe(true);
  });

  it('a server without the key refuses to start on a sealed secret, and says why without the secret', async () => {
    const secret = await loadLinkSecret({ configured: null, database, box });
    const refused = await loadLinkSecret({ configured: null, database, box: null }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(LinkSecretSealed);
    expect((refused as Error).message).toContain('AGENTDESK_SECRET_KEY');
    expect((refused as Error).message).not.toContain(secret.toString('base64url'));
  });

  it('a fresh database keeps the secret sealed from the first start', async () => {
    await database.kysely.deleteFrom('app_secrets').execute();
    const made = await loadLinkSecret({ configured: null, database, box });
    const row = await stored();
    expect(row).toMatch(/^v1\./);
    expect(row).not.toContain(made.toString('base64url'));
  });
});

describe('LINK_SECRET, LINK_SECRET_FILE and ANSWER_LINK_TTL', () => {
  const SECRET = 'correct horse battery staple, and then some more';

  it('defaults: no secret (the database keeps one), links work for 7 days', () => {
    expect(loadConfig({}).answerLinks).toEqual({ secret: null, ttlS: 7 * 86_400 });
  });

  it('reads the secret inline or from a file, never both, and never echoes it', async () => {
    expect(loadConfig({ LINK_SECRET: SECRET }).answerLinks.secret).toBe(SECRET);
    const folder = await mkdtemp(join(tmpdir(), 'agentdesk-link-secret-'));
    const file = join(folder, 'link-secret');
    await writeFile(file, `${SECRET}\n`);
    expect(loadConfig({ LINK_SECRET_FILE: file }).answerLinks.secret).toBe(SECRET);
    const refusals: Array<[Record<string, string>, string]> = [
      [{ LINK_SECRET: SECRET, LINK_SECRET_FILE: file }, 'LINK_SECRET'],
      [{ LINK_SECRET: 'short-secret-value' }, 'LINK_SECRET'],
      [{ LINK_SECRET_FILE: join(folder, 'missing') }, 'LINK_SECRET_FILE'],
    ];
    for (const [env, variable] of refusals) {
      let error: unknown;
      try {
        loadConfig(env);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).variable).toBe(variable);
      expect((error as Error).message).not.toContain(SECRET);
      expect((error as Error).message).not.toContain('short-secret-value');
    }
  });

  it('ANSWER_LINK_TTL takes seconds or a unit, within 60 s and 366 days', () => {
    const ttl = (value: string) => loadConfig({ ANSWER_LINK_TTL: value }).answerLinks.ttlS;
    expect(ttl('3600')).toBe(3_600);
    expect(ttl('90m')).toBe(5_400);
    expect(ttl('12h')).toBe(43_200);
    expect(ttl('7D')).toBe(604_800);
    for (const bad of ['59', '367d', '1w', 'soon', '-5', '1.5h']) {
      expect(() => ttl(bad), bad).toThrow(/ANSWER_LINK_TTL/);
    }
  });
});
