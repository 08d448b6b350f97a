import Fastify from 'fastify';
import OpenAI from 'openai';
import { ANSWER_JSON_SCHEMA, ANSWER_SCHEMA_NAME } from '../../src/classify/llm/answer.js';
import { buildSystemPrompt } from '../../src/classify/prompt.js';

// The ceiling of bench:classify: bare Fastify (no schemas, logging, database or email parsing) making the service's
// official-SDK call, same client options, model, system prompt and response format, to the same fake provider.
// Environment: CEILING_PORT, CEILING_LLM_BASE_URL (the fake's OpenAI base URL).

const SYSTEM_PROMPT = buildSystemPrompt();
const MODEL = 'gpt-4.1-mini';

async function main(): Promise<void> {
  const port = Number(process.env.CEILING_PORT ?? 8091);
  const baseURL = process.env.CEILING_LLM_BASE_URL;
  if (!baseURL) throw new Error('CEILING_LLM_BASE_URL is required');
  // As src/classify/llm/openai.ts builds it: our retries, so the SDK makes exactly one attempt.
  const sdk = new OpenAI({
    apiKey: 'bench-key',
    baseURL,
    adminAPIKey: null,
    organization: null,
    project: null,
    webhookSecret: null,
    maxRetries: 0,
    logLevel: 'off',
  });
  const app = Fastify({ logger: false, bodyLimit: 5 * 1024 * 1024 });
  app.get('/health', async () => ({ status: 'ok' }));
  app.post('/classify', async (request) => {
    const completion = await sdk.chat.completions.create(
      {
        model: MODEL,
        temperature: 0,
        messages: [
          { role: 'system', content: SYSTEM_PROMPT },
          { role: 'user', content: `Classify this email.\n\n${JSON.stringify(request.body)}` },
        ],
        response_format: {
          type: 'json_schema',
          json_schema: { name: ANSWER_SCHEMA_NAME, strict: true, schema: ANSWER_JSON_SCHEMA },
        },
      },
      { timeout: 30_000, maxRetries: 0 },
    );
    return JSON.parse(completion.choices[0]?.message.content ?? 'null') as unknown;
  });
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
