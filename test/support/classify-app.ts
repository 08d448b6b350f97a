// Builds the classification app on a fresh test database, with captured logs and fast retries.

import { type TestApp, captureLogs, startTestApp } from './apps.js';
import type { StoreKind } from './databases.js';
import { buildClassifyApp } from '../../src/services/classify.js';
import type { HostResolver } from '../../src/shared/net/ssrf.js';
import type { FakeLlm } from './fake-llm.js';

export const SERVER_KEY = 'sk-server-key-4f1c9a7e2b';
export const CALLER_KEY = 'sk-caller-key-8d2e6b0a13';

/** The settings that point a service at `fake` through OpenAI's wire format, with the server's key. */
export function openAiFake(fake: FakeLlm): Record<string, string> {
  return { LLM_PROVIDER: 'openai', LLM_API_KEY: SERVER_KEY, LLM_BASE_URL: fake.openaiBaseUrl };
}

/** Public-looking names the tests use, resolved without DNS. */
export const TEST_HOSTS: Record<string, string[]> = {
  'llm.public.example': ['93.184.216.34'],
  'metadata.internal.example': ['169.254.169.254'],
  'intranet.example': ['10.1.2.3'],
  'mixed.example': ['93.184.216.34', '192.168.1.10'],
  'v6-loopback.example': ['::1'],
  // 127.0.0.2: a loopback address the tests' allow-lists do not hold.
  'mapped.example': ['::ffff:7f00:2'],
  localhost: ['127.0.0.1'],
  'documentation.example': ['203.0.113.9'],
};

export const testResolver: HostResolver = async (hostname) => {
  const addresses = TEST_HOSTS[hostname];
  if (!addresses) throw new Error(`ENOTFOUND ${hostname}`);
  return addresses;
};

/** `resolveHost` replaces the fixed test answers, for tests that script answers over time. */
export function startClassifyApp(
  kind: StoreKind,
  env: Record<string, string> = {},
  resolveHost: HostResolver = testResolver,
): Promise<TestApp> {
  return startTestApp(kind, { LOG_LEVEL: 'debug', ...env }, captureLogs('debug'), (parts) =>
    buildClassifyApp({
      ...parts,
      resolveHost,
      backoff: { base_delay_ms: 5, max_delay_ms: 20, retry_after_cap_ms: 50 },
    }),
  );
}
