import { afterAll, describe, expect, it } from 'vitest';
import { type TestDatabase, createTestDatabase } from '../helpers/databases.js';
import { killAllServers, startWorkServer } from '../helpers/processes.js';

// Issue 8, defect 15: a person who runs `npm start` is told where to point the browser.

describe('start-up', () => {
  let database: TestDatabase | undefined;
  afterAll(async () => {
    await killAllServers();
    await database?.destroy();
  });

  it('logs an "open http://…/" line with the web UI address', async () => {
    database = await createTestDatabase('sqlite');
    // 0.0.0.0 is where it listens, not an address a browser can open.
    const server = await startWorkServer({ env: { DATABASE_URL: database.config.url, LOG_LEVEL: 'info', HOST: '0.0.0.0' } });
    const lines = server
      .stdout()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { msg: string; url?: string });
    const open = lines.find((line) => line.msg.startsWith('open http'));
    expect(open, server.stdout()).toBeDefined();
    expect(open!.msg).toBe(`open http://127.0.0.1:${server.port}/ in a browser for the web UI`);
    expect(open!.url).toBe(`http://127.0.0.1:${server.port}/`);
    expect(await server.stop()).toEqual({ code: 0, signal: null });
  });
});
