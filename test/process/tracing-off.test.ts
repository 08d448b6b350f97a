import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeCollector, type FakeCollector } from '../support/fake-collector.js';
import { type ServiceName, killAllServers, startWorkServer } from '../support/processes.js';

// With OTEL_EXPORTER_OTLP_ENDPOINT unset, the built service must not load OpenTelemetry at all.
// A module hook (node --import) notes every module the process resolves whose URL names
// OpenTelemetry or our adapter; the same probe with tracing on is the control that shows it
// sees them. The Anthropic SDK imports @opentelemetry/api (the API alone, which does nothing
// without an SDK) whatever we do, so that one package is allowed.
// Needs dist/ (`npm run build:server`).

const TRACING_MODULE = /@opentelemetry\/|@fastify\/otel|tracing-otel\.js/;
const ALLOWED = /\/node_modules\/@opentelemetry\/api\//;

let folder: string;
let collector: FakeCollector;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'agentdesk-probe-'));
  collector = await startFakeCollector();
});
afterAll(async () => {
  await killAllServers();
  await collector.close();
  rmSync(folder, { recursive: true, force: true });
});

function probe(name: string): { register: string; log: string } {
  const log = join(folder, `${name}.log`);
  writeFileSync(log, '');
  const hooks = join(folder, `${name}-hooks.mjs`);
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (${TRACING_MODULE}.test(result.url)) appendFileSync(${JSON.stringify(log)}, result.url + '\\n');
  return result;
}
`,
  );
  const register = join(folder, `${name}-register.mjs`);
  writeFileSync(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  return { register, log };
}

/** Starts `service` under the probe, makes a request that reaches the database, stops it; the modules seen. */
async function modulesLoaded(service: ServiceName, env: Record<string, string>, name: string): Promise<string[]> {
  const { register, log } = probe(name);
  const server = await startWorkServer({
    service,
    // The module hooks run on a thread of their own and slow start-up on a busy machine.
    startTimeoutMs: 60_000,
    env: { DATABASE_URL: `sqlite:${join(folder, `${name}.db`)}`, LLM_PROVIDER: 'rules', ...env },
    wrap: (launch) => ({ command: launch.command, args: ['--import', register, ...launch.args] }),
  });
  const response =
    service === 'work'
      ? await fetch(`${server.url}/work`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"type":"probe","description":"d"}',
        })
      : await fetch(`${server.url}/classify`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"email_data":{"subject":"s","body":"b"}}',
        });
  expect(response.status).toBeLessThan(300);
  await server.stop();
  return [...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean))];
}

describe.each(['work', 'classify'] as const)('the %s service', (service) => {
  it('with OTEL_EXPORTER_OTLP_ENDPOINT unset loads no OpenTelemetry SDK, exporter or instrumentation', async () => {
    const loaded = await modulesLoaded(service, {}, `${service}-off`);
    expect(loaded.filter((url) => !ALLOWED.test(url))).toEqual([]);
  }, 90_000);

  it('with it set loads them (the probe sees what it is looking for) and exports spans', async () => {
    const loaded = await modulesLoaded(service, { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url }, `${service}-on`);
    expect(loaded.some((url) => url.includes('/@fastify/otel/'))).toBe(true);
    expect(loaded.some((url) => url.includes('/@opentelemetry/sdk-trace-base/'))).toBe(true);
    expect(loaded.some((url) => url.endsWith('/tracing-otel.js'))).toBe(true);
    expect(collector.spans.some((span) => span.resource['agentdesk.service'] === service)).toBe(true);
  }, 90_000);
});
