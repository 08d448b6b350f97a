// Anthropic Messages with a forced tool: the tool's input schema is the answer schema, so the
// answer arrives as the tool call's input. Retries are ours, so the SDK makes exactly one.

import Anthropic, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '@anthropic-ai/sdk';
import { ANSWER_JSON_SCHEMA } from './answer.js';
import { LlmInvalidAnswer, type LlmClient, type LlmClientOptions, type LlmRequest } from './client.js';
import { toFailure } from './sdk-errors.js';
import { tokenCount } from '../usage/records.js';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
export const ANSWER_TOOL_NAME = 'record_classification';
const MAX_OUTPUT_TOKENS = 2_048;

const SDK_ERRORS = { APIError, APIConnectionError, APIConnectionTimeoutError, APIUserAbortError };

// The SDK types the schema loosely; ours is a deeply readonly literal of the same shape.
const INPUT_SCHEMA = structuredClone(ANSWER_JSON_SCHEMA) as unknown as Anthropic.Messages.Tool.InputSchema;

export function createAnthropicClient(options: LlmClientOptions): LlmClient {
  // An explicit apiKey makes the SDK skip ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN and its
  // profile files; an explicit baseURL makes it skip ANTHROPIC_BASE_URL.
  const sdk = new Anthropic({
    apiKey: options.api_key,
    baseURL: options.base_url,
    webhookKey: null,
    // The SDK traces itself through any tracer provider registered globally and sends our
    // traceparent to Anthropic; our own span covers the call (classify/llm/provider-span.ts).
    openTelemetry: false,
    maxRetries: 0,
    logLevel: 'off',
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });

  return {
    provider: 'anthropic',
    async complete(request: LlmRequest): Promise<unknown> {
      let message: Anthropic.Messages.Message;
      try {
        message = await sdk.messages.create(
          {
            model: request.model,
            max_tokens: MAX_OUTPUT_TOKENS,
            // No temperature: Anthropic deprecated it, SDK 1.x no longer has the field, and
            // models after Opus 4.6 reject any value with a 400. The forced tool keeps answers
            // structured without it.
            system: request.system,
            messages: [{ role: 'user', content: request.user }],
            tools: [
              {
                name: ANSWER_TOOL_NAME,
                description: 'Record the classification of the email.',
                input_schema: INPUT_SCHEMA,
              },
            ],
            tool_choice: { type: 'tool', name: ANSWER_TOOL_NAME },
          },
          { timeout: request.timeout_ms, signal: request.signal, maxRetries: 0 },
        );
      } catch (error) {
        throw toFailure(error, SDK_ERRORS);
      }
      if (message.usage) {
        // Cache reads and writes are billed at other rates; counted as input here, an estimate.
        const { input_tokens, output_tokens, cache_creation_input_tokens, cache_read_input_tokens } = message.usage;
        request.onUsage?.({
          input_tokens:
            tokenCount(input_tokens) + tokenCount(cache_creation_input_tokens) + tokenCount(cache_read_input_tokens),
          output_tokens: tokenCount(output_tokens),
        });
      }
      if (message.stop_reason === 'max_tokens') throw new LlmInvalidAnswer(['the answer was cut off']);
      const call = message.content?.find((block) => block.type === 'tool_use' && block.name === ANSWER_TOOL_NAME);
      if (!call || call.type !== 'tool_use') throw new LlmInvalidAnswer(['the model did not call the answer tool']);
      return call.input;
    },
  };
}
