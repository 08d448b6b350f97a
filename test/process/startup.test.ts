import { afterAll, describe, expect, it, vi } from 'vitest';
import { type TestDatabase, createTestDatabase } from '../support/databases.js';
import { killAllServers, startDesk, startWorkServer } from '../support/processes.js';

// A person who runs `npm start` is told where to point the browser.

describe('start-up', () => {
  let database: TestDatabase | undefined;
  afterAll(async () => {
    await killAllServers();
    await database?.destroy();
  });

  it('logs an "open http://…/" line with the web UI address', async () => {
    database = await createTestDatabase('sqlite');
    // 0.0.0.0 is where it listens, not an address a browser can open.
    const server = await startWorkServer({
      env: { DATABASE_URL: database.config.url, LOG_LEVEL: 'info', HOST: '0.0.0.0' },
    });
    const lines = server
      .stdout()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { msg: string; url?: string });
    const open = lines.find((line) => line.msg.startsWith('open http'));
    expect(open, server.stdout()).toBeDefined();
    expect(open!.msg).toBe(`open http://127.0.0.1:${server.port}/ in a browser for the web UI`);
    expect(open!.url).toBe(`http://127.0.0.1:${server.port}/`);
    // Fastify's own "listening" lines (one per address of a wildcard host) name the service; no second line of ours.
    const listening = lines.filter((line) => line.msg.includes('listening'));
    expect(listening.length).toBeGreaterThan(0);
    for (const line of listening) expect(line.msg).toMatch(new RegExp(`^work listening at http://.+:${server.port}$`));
    expect(await server.stop()).toEqual({ code: 0, signal: null });
  });

  // A person at a terminal read JSON lines, one per health check, with the address
  // buried in one of them. LOG_FORMAT=pretty is what `auto` picks on a terminal.
  it('for a person: a banner with both URLs, the store and the auth mode, readable lines, no health checks', async () => {
    const store = await createTestDatabase('sqlite');
    try {
      const desk = await startDesk({ env: { DATABASE_URL: store.config.url, LOG_FORMAT: 'pretty' } });
      for (let n = 0; n < 3; n += 1) expect((await fetch(`${desk.url}/health`)).status).toBe(200);
      expect((await fetch(`${desk.url}/work`)).status).toBe(200);
      await vi.waitFor(() => {
        expect(desk.stdout()).toContain('agentdesk is running');
        expect(desk.stdout()).toMatch(/INFO +request .*url=\/work /);
      });
      const out = desk.stdout();
      expect(out).toMatch(new RegExp(`web UI and work API +${desk.url}/\n`));
      // The classifier has no page of its own: the banner links to its API viewer, which answers.
      expect(out).toMatch(new RegExp(`classifier API +${desk.classifyUrl}/docs\n`));
      expect((await fetch(`${desk.classifyUrl}/docs`)).status).toBe(200);
      expect(out).toContain(`store                SQLite file ${store.config.url.slice('sqlite:'.length)}`);
      expect(out).toMatch(/auth +off: /);
      // No SMTP_URL: the banner says no mail goes out.
      expect(out).toMatch(/mail +off: no SMTP_URL and MAIL_FROM/);
      // On the loopback address, one "listening" line per service.
      const listening = out.split('\n').filter((line) => line.includes('listening'));
      expect(listening, out).toHaveLength(2);
      expect(listening).toEqual(
        expect.arrayContaining([
          expect.stringMatching(new RegExp(`work listening at ${desk.url}$`)),
          expect.stringMatching(new RegExp(`classify listening at ${desk.classifyUrl}$`)),
        ]),
      );
      expect(out.split('\n').filter((line) => line.startsWith('{'))).toEqual([]);
      expect(out).not.toMatch(/url=\/health/);
      expect(await desk.stop()).toEqual({ code: 0, signal: null });
    } finally {
      await store.destroy();
    }
  });
});
