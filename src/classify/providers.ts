// Which provider, model, key and host answer a request: the global settings, changed by the
// request's overrides under two rules. The server's key never goes to a host the caller chose,
// and a key is never sent to a provider it was not configured for.

import { DEFAULT_MODELS, type LlmConfig, type LlmProviderName } from '../shared/config/config.js';
import { ForbiddenError, ValidationError } from '../shared/errors.js';
import { createAnthropicClient, ANTHROPIC_DEFAULT_BASE_URL } from './llm/anthropic.js';
import type { FetchLike, LlmClient, LlmClientOptions } from './llm/client.js';
import { createOpenAiClient, OPENAI_DEFAULT_BASE_URL } from './llm/openai.js';
import type { ClassifyRequest } from './schemas.js';
import { type AllowList, checkBaseUrl, UnsafeBaseUrl, type HostResolver } from '../shared/net/ssrf.js';

export interface ProviderSettings {
  provider: LlmProviderName;
  model: string;
  temperature: number;
  /** Empty for the rules provider. */
  base_url: string;
  api_key: string | null;
  /** The caller brought its own key or host, so the shared client cannot serve it. */
  caller_credentials: boolean;
  /** The caller chose a host the operator did not list: its connections are checked as they open. */
  guard_connections: boolean;
}

const DEFAULT_BASE_URLS = { openai: OPENAI_DEFAULT_BASE_URL, anthropic: ANTHROPIC_DEFAULT_BASE_URL } as const;

export function hasOverrides(request: ClassifyRequest): boolean {
  return [request.provider, request.model, request.base_url, request.api_key, request.temperature].some(
    (value) => value !== undefined,
  );
}

export interface ResolveOptions {
  llm: LlmConfig;
  /** OUTBOUND_ALLOWED_HOSTS, read. */
  allow: AllowList;
  allowOverrides: boolean;
  resolveHost?: HostResolver;
}

export async function resolveSettings(request: ClassifyRequest, options: ResolveOptions): Promise<ProviderSettings> {
  const { llm } = options;
  if (hasOverrides(request) && !options.allowOverrides) {
    throw new ForbiddenError(
      'Per-request provider settings are turned off on this server (CLASSIFY_ALLOW_OVERRIDES=false)',
    );
  }
  if (request.base_url !== undefined && request.api_key === undefined) {
    throw new ValidationError([
      {
        field: 'api_key',
        message: 'is required with base_url: the server key is never sent to a host the caller chooses',
      },
    ]);
  }
  // One rule for what answers: a provider, model or base_url override asks for a language model,
  // and needs a key for its provider (the caller's, or the server's for the server's own
  // provider), else 422. Naming a model, key or host but no provider while the server runs
  // offline means an OpenAI-compatible server. Temperature only tunes whoever answers.
  const callerAsksForModel =
    request.model !== undefined || request.base_url !== undefined || request.api_key !== undefined;
  const provider: LlmProviderName =
    request.provider ?? (llm.provider === 'rules' && callerAsksForModel ? 'openai' : llm.provider);
  const sameProvider = provider === llm.provider;
  const temperature = request.temperature ?? llm.temperature;
  if (provider === 'rules') {
    return {
      provider,
      model: DEFAULT_MODELS.rules,
      temperature,
      base_url: '',
      api_key: null,
      caller_credentials: false,
      guard_connections: false,
    };
  }

  const apiKey = request.api_key ?? (sameProvider ? llm.apiKey : null);
  if (apiKey === null) {
    throw new ValidationError([
      {
        field: 'api_key',
        message: `is required: this server has no key for ${provider}, and a provider or model override needs one`,
      },
    ]);
  }
  let baseUrl = (sameProvider ? llm.baseUrl : null) ?? DEFAULT_BASE_URLS[provider];
  let guardConnections = false;
  if (request.base_url !== undefined) {
    try {
      const checked = await checkBaseUrl(request.base_url, options.allow, options.resolveHost);
      baseUrl = checked.toString().replace(/\/+$/, '');
      // Listed hosts too: the guard lets them reach private addresses, never link-local ones.
      guardConnections = true;
    } catch (error) {
      if (error instanceof UnsafeBaseUrl) throw new ValidationError([{ field: 'base_url', message: error.message }]);
      throw error;
    }
  }
  return {
    provider,
    model: request.model ?? (sameProvider ? llm.model : DEFAULT_MODELS[provider]),
    temperature,
    base_url: baseUrl,
    api_key: apiKey,
    caller_credentials: request.api_key !== undefined || request.base_url !== undefined,
    guard_connections: guardConnections,
  };
}

/** `fetch` is used only when the settings ask for guarded connections. */
export function createLlmClient(settings: ProviderSettings, guardedFetch?: FetchLike): LlmClient {
  if (settings.provider === 'rules' || settings.api_key === null) {
    throw new Error('the rules provider has no client');
  }
  if (settings.guard_connections && !guardedFetch) throw new Error('a guarded host needs the guarded fetch');
  const options: LlmClientOptions = {
    api_key: settings.api_key,
    base_url: settings.base_url,
    ...(settings.guard_connections ? { fetch: guardedFetch } : {}),
  };
  return settings.provider === 'openai' ? createOpenAiClient(options) : createAnthropicClient(options);
}

/** The host a request goes to, for logs: never the path or query, which could carry secrets. */
export function hostOf(settings: ProviderSettings): string | null {
  if (settings.base_url === '') return null;
  try {
    return new URL(settings.base_url).host;
  } catch {
    return null;
  }
}
