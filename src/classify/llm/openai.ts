// OpenAI Chat Completions with strict JSON-schema output; OpenAI-compatible servers (Ollama,
// vLLM, LM Studio) serve the same endpoint. Retries are ours, so the SDK makes exactly one.

import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { ANSWER_JSON_SCHEMA, ANSWER_SCHEMA_NAME } from './answer.js';
import { LlmInvalidAnswer, type LlmClient, type LlmClientOptions, type LlmRequest } from './client.js';
import { parseAnswerText, toFailure } from './sdk-errors.js';
import { tokenCount } from '../usage/records.js';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

const SDK_ERRORS = { APIError, APIConnectionError, APIConnectionTimeoutError, APIUserAbortError };

export function createOpenAiClient(options: LlmClientOptions): LlmClient {
  // Every option the SDK would otherwise take from the environment is given here, so no
  // OPENAI_* variable can add a credential or move the host behind our back.
  const sdk = new OpenAI({
    apiKey: options.api_key,
    baseURL: options.base_url,
    adminAPIKey: null,
    organization: null,
    project: null,
    webhookSecret: null,
    maxRetries: 0,
    logLevel: 'off',
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });

  return {
    provider: 'openai',
    async complete(request: LlmRequest): Promise<unknown> {
      let completion: OpenAI.Chat.Completions.ChatCompletion;
      try {
        completion = await sdk.chat.completions.create(
          {
            model: request.model,
            temperature: request.temperature,
            messages: [
              { role: 'system', content: request.system },
              { role: 'user', content: request.user },
            ],
            response_format: {
              type: 'json_schema',
              json_schema: { name: ANSWER_SCHEMA_NAME, strict: true, schema: ANSWER_JSON_SCHEMA },
            },
          },
          { timeout: request.timeout_ms, signal: request.signal, maxRetries: 0 },
        );
      } catch (error) {
        throw toFailure(error, SDK_ERRORS);
      }
      if (completion.usage) {
        request.onUsage?.({
          input_tokens: tokenCount(completion.usage.prompt_tokens),
          output_tokens: tokenCount(completion.usage.completion_tokens),
        });
      }
      const choice = completion.choices?.[0];
      if (!choice) throw new LlmInvalidAnswer(['the response has no choices']);
      if (choice.message?.refusal) throw new LlmInvalidAnswer(['the model refused to answer']);
      if (choice.finish_reason === 'length') throw new LlmInvalidAnswer(['the answer was cut off']);
      return parseAnswerText(choice.message?.content);
    },
  };
}
