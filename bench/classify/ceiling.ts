import { fileURLToPath } from 'node:url';
import { type BenchServer, freePort, startNode } from '../lib/servers.js';

const CLASSIFY_CEILING_MAIN = fileURLToPath(new URL('./classify-ceiling-server.js', import.meta.url));

/** The classify ceiling, asking the fake provider at `llmBaseUrl` (its OpenAI base URL). */
export async function startClassifyCeiling(llmBaseUrl: string): Promise<BenchServer> {
  const port = await freePort();
  return startNode(CLASSIFY_CEILING_MAIN, [], { CEILING_PORT: String(port), CEILING_LLM_BASE_URL: llmBaseUrl }, port);
}
