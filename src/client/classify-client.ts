import type { Static } from 'typebox';
import type { ClassifyRequest, ClassifyResultSchema } from '../classify/contract.js';
import { type CallOptions, type ClientOptions, createRequester } from './http.js';

// The classification service is its own process on its own port (AGENTDESK_CLASSIFY_URL);
// the same request core, errors and identity headers serve it.

export type ClassifyResult = Static<typeof ClassifyResultSchema>;

export function createClassifyClient(options: ClientOptions) {
  const request = createRequester(options);
  return {
    async classify(email: ClassifyRequest, call: CallOptions = {}): Promise<ClassifyResult> {
      return (await request<ClassifyResult>('POST', '/classify', { body: email, ...call })).body;
    },
  };
}

export type ClassifyClient = ReturnType<typeof createClassifyClient>;
