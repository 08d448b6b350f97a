// `npm run bench:classify`: POST /classify throughput and latency against a ceiling (a bare
// Fastify route that parses the same JSON and returns a fixed result), with the fake provider
// in its own process answering at once and with the offline rules provider; then the time to
// prepare a 5 MB HTML email and the prompt size of every fixture. One JSON line per figure.
//
// BENCH_SECONDS (default 10) sets each load run; DATABASE_URL picks the store (a temporary
// SQLite file by default).

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { buildClassifyApp } from '../src/classify/app.js';
import { normalizeEmail, type EmailInput } from '../src/classify/normalize.js';
import { buildPrompt } from '../src/classify/prompt.js';
import { prepareBody } from '../src/classify/text.js';
import { loadConfig } from '../src/shared/config.js';
import { openDatabase } from '../src/shared/db.js';
import type { HttpApp } from '../src/shared/http.js';
import { createLogger } from '../src/shared/logger.js';
import { startFakeLlm } from '../test/helpers/fake-llm.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 10;
const FIXTURES = join(process.cwd(), 'test', 'fixtures', 'email');

// Every request is a new email ([<id>] is replaced per request), so each one reaches the provider.
const BODY = JSON.stringify({
  email_data: {
    subject: 'Q3 budget approval [<id>]',
    body: '<p>Hi Alex,</p><p>Could you please review and approve the attached Q3 budget (q3-budget.xlsx) by Friday? Request [<id>].</p><p>Thanks,<br>Dana</p>',
  },
  id: 'bench-[<id>]',
  conversationId: 'bench-conv-[<id>]',
});

function emit(line: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ bench: 'classify', ...line })}\n`);
}

async function load(url: string, body: string): Promise<{ rps: number; p50: number; p99: number; non2xx: number; errors: number }> {
  const options = { url, method: 'POST', headers: { 'content-type': 'application/json' }, body, connections: CONNECTIONS, idReplacement: true };
  await autocannon({ ...options, duration: 2 }); // warm-up
  const result = await autocannon({ ...options, duration: SECONDS });
  return { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors + result.timeouts };
}

async function listen(app: { listen(options: { host: string; port: number }): Promise<string> }): Promise<string> {
  return app.listen({ host: '127.0.0.1', port: 0 });
}

/** The fake provider in a child process, so its work does not share the service's event loop. */
async function startFakeProviderProcess(): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, [process.argv[1]!, 'fake-provider'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8').trim()));
    child.once('exit', (code) => reject(new Error(`fake provider exited with ${code}`)));
  });
  return { url, stop: () => child.kill() };
}

async function buildService(env: Record<string, string>, databaseUrl: string): Promise<{ app: HttpApp; close(): Promise<void> }> {
  const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl, ...env });
  const logger = createLogger('silent');
  const database = await openDatabase(config.database, { logger });
  const app = await buildClassifyApp({ config, database, logger });
  return {
    app,
    async close() {
      await app.close();
      await database.close();
    },
  };
}

async function main(): Promise<void> {
  if (process.argv[2] === 'fake-provider') {
    const fake = await startFakeLlm();
    process.stdout.write(`${fake.openaiBaseUrl}\n`);
    return;
  }
  const folder = mkdtempSync(join(tmpdir(), 'agentdesk-bench-'));
  const databaseUrl = process.env.DATABASE_URL ?? `sqlite:${join(folder, 'bench.db')}`;
  const fake = await startFakeProviderProcess();
  try {
    const ceiling = Fastify();
    const fixed = { needs_action: false, category: 'fyi', priority: 'low', task_description: null, reasoning: 'fixed', confidence: 1 };
    ceiling.post('/classify', async (request) => (request.body ? fixed : fixed));
    const ceilingUrl = await listen(ceiling);
    const bare = await load(`${ceilingUrl}/classify`, BODY);
    emit({ case: 'ceiling_bare_fastify', requests_per_sec: bare.rps, p50_ms: bare.p50, p99_ms: bare.p99 });
    await ceiling.close();

    const cases: Array<[string, Record<string, string>]> = [
      ['fake_openai_provider', { LLM_PROVIDER: 'openai', LLM_API_KEY: 'bench-key', LLM_BASE_URL: fake.url }],
      ['rules_provider', { LLM_PROVIDER: 'rules' }],
    ];
    for (const [name, env] of cases) {
      const service = await buildService(env, databaseUrl);
      const url = await listen(service.app);
      const result = await load(`${url}/classify`, BODY);
      emit({
        case: name,
        store: databaseUrl.split(':')[0],
        requests_per_sec: result.rps,
        p50_ms: result.p50,
        p99_ms: result.p99,
        ratio_to_ceiling: Math.round((result.rps / bare.rps) * 100) / 100,
        non_2xx: result.non2xx,
        errors: result.errors,
      });
      await service.close();
    }
  } finally {
    fake.stop();
    rmSync(folder, { recursive: true, force: true });
  }

  const template = readFileSync(join(FIXTURES, 'html_04_postmark_trial_expiring.html'), 'utf8');
  const section = template.slice(template.indexOf('<table'), template.lastIndexOf('</body>'));
  let huge = '<html><body>';
  for (let index = 0; huge.length < 5 * 1024 * 1024; index += 1) huge += `<p>Section ${index}</p>${section}`;
  const timings: number[] = [];
  for (let run = 0; run < 7; run += 1) {
    const started = performance.now();
    prepareBody(huge, 'html', 6_000);
    timings.push(performance.now() - started);
  }
  timings.sort((a, b) => a - b);
  emit({ case: 'prepare_5mb_html', bytes: huge.length, median_ms: Math.round(timings[3]!), max_ms: Math.round(timings[6]!) });

  const files = [...readdirSync(FIXTURES).map((name) => name), ...readdirSync(join(FIXTURES, 'written')).map((name) => `written/${name}`)];
  for (const file of files.filter((name) => /\.(json|html)$/.test(name)).sort()) {
    const text = readFileSync(join(FIXTURES, file), 'utf8');
    const input = (file.endsWith('.json') ? JSON.parse(text) : { email_data: { subject: file, body: text } }) as EmailInput;
    const prompt = buildPrompt(normalizeEmail(input, 6_000));
    emit({ case: 'prompt_size', fixture: file, system_chars: prompt.system.length, user_chars: prompt.user.length });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
