import Fastify from 'fastify';
import { FAKE_ANSWER } from '../test/helpers/fake-llm.js';

// The classify benchmark's ceiling: what this machine does for "accept the same JSON POST and
// answer a classification" with nothing of ours in the way. Bare Fastify, no schemas, no
// logging; the body is parsed (Fastify's JSON parser) and a fixed result of the real result's
// shape and size is sent back. Environment: CEILING_PORT.

const RESULT = {
  ...FAKE_ANSWER,
  details: { ...FAKE_ANSWER.details, dedupe_key: 'f'.repeat(64) },
  dedupe: {
    status: 'new',
    seen_count: 1,
    matched_on: 'none',
    message_id: 'bench-00000000-0000-0000-0000-000000000000-0',
    conversation_id: 'bench-conv-00000000-0000-0000-0000-000000000000-0',
    fingerprint: 'f'.repeat(64),
  },
};

async function main(): Promise<void> {
  const port = Number(process.env.CEILING_PORT ?? 8091);
  const app = Fastify({ logger: false, bodyLimit: 5 * 1024 * 1024 });
  app.get('/health', async () => ({ status: 'ok' }));
  // Fastify has parsed the body before the handler runs, as it does for the real route.
  app.post('/classify', async () => RESULT);
  await app.listen({ host: '127.0.0.1', port });
  const stop = async () => {
    await app.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}

main().catch((error: unknown) => {
  process.stderr.write(`classify ceiling server failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
