// A real HTTP server on 127.0.0.1 that speaks the OpenAI Chat Completions and Anthropic
// Messages wire formats, so the official SDKs are exercised end to end. Each test scripts the
// replies in order; every request is recorded with its headers and parsed body. Each answer
// reports token usage as the real APIs do (about four characters a token), and the fake keeps
// its own count of the requests it received and the tokens it billed.

import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeReply =
  /** A valid answer in the API's format; `answer` replaces the default model answer. */
  /** `usage` fixes the tokens the answer reports (and the fake counts); by default about four characters a token. */
  | { kind: 'answer'; answer?: unknown; usage?: TokenCounts }
  /** An error status with an API-shaped error body, e.g. 429 with Retry-After, 500, 401. */
  | { kind: 'status'; status: number; headers?: Record<string, string>; message?: string }
  /** Never answers; the client has to time out. */
  | { kind: 'hang' }
  /** 200 with a body that is not JSON. */
  | { kind: 'malformed_body' }
  /** A well-formed envelope whose answer is not JSON (OpenAI) or not a tool call (Anthropic). */
  | { kind: 'malformed_answer' }
  /** Answers after a pause. */
  | { kind: 'delay'; ms: number; then: FakeReply }
  /** Holds the request until the test opens the latch: orders races without guessing at timing. */
  | { kind: 'held'; latch: Latch; then: FakeReply };

/** A gate a test opens when it is ready; `reached` resolves once a request waits at it. */
export interface Latch {
  reached: Promise<void>;
  open(): void;
  /** Used by the fake: a request has arrived and waits until `open`. */
  wait(): Promise<void>;
}

export function createLatch(): Latch {
  let arrive!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((resolve) => (arrive = resolve));
  const opened = new Promise<void>((resolve) => (release = resolve));
  return {
    reached,
    open: () => release(),
    wait: () => {
      arrive();
      return opened;
    },
  };
}

export type FakeApi = 'openai' | 'anthropic';

export interface RecordedRequest {
  api: FakeApi;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** Date.now() when the reply was sent; null until then (or forever, for a hang). */
  answered_at: number | null;
}

/** What the fake served: every request it received, and the tokens of the answers it billed. */
export interface FakeUsage {
  requests: number;
  input_tokens: number;
  output_tokens: number;
}

export interface FakeLlm {
  /** http://127.0.0.1:<port>, the Anthropic base URL. */
  url: string;
  /** `url` + /v1, the OpenAI base URL. */
  openaiBaseUrl: string;
  requests: RecordedRequest[];
  /** Requests received and not yet answered, now and at most so far (counted even when not recording). */
  open(): { now: number; max: number };
  /** Starts the "at most" of `open()` again from what is open now. */
  resetOpenMax(): void;
  /** Queues replies for the next requests; when the queue is empty the default answer is sent. */
  script(...replies: FakeReply[]): void;
  /** Drops the replies still queued. */
  clearScript(): void;
  setDefaultAnswer(answer: unknown): void;
  /** Chooses the default answer from the request's prompt text (null: the default answer). */
  setAnswerer(answerer: ((prompt: string) => unknown) | null): void;
  /** Chooses the reply from the prompt text when nothing is scripted (null: answer). */
  setReplier(replier: ((prompt: string) => FakeReply | null) | null): void;
  /** Its own count since start (or `resetUsage`), per API and together. */
  usage(api?: FakeApi): FakeUsage;
  resetUsage(): void;
  close(): Promise<void>;
}

export const FAKE_ANSWER = {
  needs_action: true,
  category: 'action_required',
  priority: 'high',
  task_description: 'Approve the Q3 budget by Friday',
  reasoning: 'The sender asks the reader to approve the budget before a deadline.',
  confidence: 0.92,
  details: {
    summary: 'Dana asks for approval of the Q3 budget by Friday.',
    suggested_title: 'Approve Q3 budget',
    suggested_notes: 'Budget spreadsheet attached.',
    deadline: 'Friday',
    people: ['Dana Swope'],
    organizations: ['Contoso'],
    attachments_referenced: ['q3-budget.xlsx'],
    next_steps: ['Review the spreadsheet', 'Reply with approval'],
    key_points: ['Budget needs approval by Friday'],
    source_signals: ['direct_request', 'deadline'],
  },
} as const;

export interface FakeLlmOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** False for long load runs: every recorded request would stay in memory. */
  record?: boolean;
}

export async function startFakeLlm({ port: listenPort = 0, record = true }: FakeLlmOptions = {}): Promise<FakeLlm> {
  const queue: FakeReply[] = [];
  const requests: RecordedRequest[] = [];
  let defaultAnswer: unknown = FAKE_ANSWER;
  const open = { now: 0, max: 0 };
  let answerer: ((prompt: string) => unknown) | null = null;
  let replier: ((prompt: string) => FakeReply | null) | null = null;
  const served: Record<FakeApi, FakeUsage> = { openai: emptyUsage(), anthropic: emptyUsage() };

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = (request.url ?? '/').split('?')[0]!;
      const api: FakeApi | null =
        path === '/v1/chat/completions' || path === '/chat/completions'
          ? 'openai'
          : path === '/v1/messages'
            ? 'anthropic'
            : null;
      if (request.method !== 'POST' || api === null) {
        response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
        return;
      }
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        // recorded as empty; the test will see it
      }
      const recorded: RecordedRequest = {
        api,
        method: request.method,
        path,
        headers: request.headers,
        body,
        answered_at: null,
      };
      if (record) requests.push(recorded);
      open.now += 1;
      open.max = Math.max(open.max, open.now);
      served[api].requests += 1;
      response.once('finish', () => {
        recorded.answered_at = Date.now();
        open.now -= 1;
      });
      const prompt = JSON.stringify(body.messages ?? []);
      const chosen = answerer?.(prompt) ?? null;
      const bill = (usage: { input_tokens: number; output_tokens: number }) => {
        served[api].input_tokens += usage.input_tokens;
        served[api].output_tokens += usage.output_tokens;
      };
      reply(
        { api, body, bill },
        queue.shift() ?? replier?.(prompt) ?? { kind: 'answer' },
        response,
        chosen ?? defaultAnswer,
      );
    });
  });

  await new Promise<void>((resolve) => server.listen(listenPort, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    requests,
    open: () => ({ ...open }),
    resetOpenMax: () => {
      open.max = open.now;
    },
    script: (...replies) => queue.push(...replies),
    clearScript: () => {
      queue.length = 0;
    },
    setDefaultAnswer: (answer) => {
      defaultAnswer = answer;
    },
    setAnswerer: (chosen) => {
      answerer = chosen;
    },
    setReplier: (chosen) => {
      replier = chosen;
    },
    usage: (api) => {
      if (api) return { ...served[api] };
      const { openai, anthropic } = served;
      return {
        requests: openai.requests + anthropic.requests,
        input_tokens: openai.input_tokens + anthropic.input_tokens,
        output_tokens: openai.output_tokens + anthropic.output_tokens,
      };
    },
    resetUsage: () => {
      served.openai = emptyUsage();
      served.anthropic = emptyUsage();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface TokenCounts {
  input_tokens: number;
  output_tokens: number;
}

interface Exchange {
  api: FakeApi;
  body: Record<string, unknown>;
  /** Adds the tokens of an answer sent to the fake's own count. */
  bill(usage: TokenCounts): void;
  /** The tokens this answer reports, when the step fixed them. */
  fixed?: TokenCounts;
}

function reply(exchange: Exchange, step: FakeReply, response: ServerResponse, answer: unknown): void {
  const { api } = exchange;
  switch (step.kind) {
    case 'hang':
      return;
    case 'delay':
      setTimeout(() => reply(exchange, step.then, response, answer), step.ms);
      return;
    case 'held':
      void step.latch.wait().then(() => reply(exchange, step.then, response, answer));
      return;
    case 'malformed_body':
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"id": "broken", "choices": [');
      return;
    case 'status':
      response
        .writeHead(step.status, { 'content-type': 'application/json', ...step.headers })
        .end(JSON.stringify(errorBody(api, step.status, step.message ?? `fake error ${step.status}`)));
      return;
    case 'malformed_answer':
      send(
        response,
        api === 'openai'
          ? openAiCompletion(exchange, 'Sure! Here is the classification: {category: action')
          : anthropicText(exchange),
      );
      return;
    case 'answer': {
      const billing = step.usage ? { ...exchange, fixed: step.usage } : exchange;
      send(
        response,
        api === 'openai'
          ? openAiCompletion(billing, JSON.stringify(step.answer ?? answer))
          : anthropicToolCall(billing, step.answer ?? answer),
      );
      return;
    }
    default: {
      const unreachable: never = step;
      throw new Error(`unknown fake reply ${JSON.stringify(unreachable)}`);
    }
  }
}

function emptyUsage(): FakeUsage {
  return { requests: 0, input_tokens: 0, output_tokens: 0 };
}

/** About four characters a token, as the providers' own rule of thumb has it; at least one. */
function tokensOf(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

/** The tokens an answer is billed for, counted by the fake as it sends them. */
function billed(exchange: Exchange, output: unknown): TokenCounts {
  const { body } = exchange;
  const usage = exchange.fixed ?? {
    input_tokens: tokensOf(
      JSON.stringify([body.system ?? '', body.messages ?? [], body.tools ?? body.response_format ?? null]),
    ),
    // A scripted answer may be absent (undefined): it is billed as one token, never a crash.
    output_tokens: tokensOf(typeof output === 'string' ? output : (JSON.stringify(output) ?? '')),
  };
  exchange.bill(usage);
  return usage;
}

function send(response: ServerResponse, payload: unknown): void {
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
}

function errorBody(api: FakeApi, status: number, message: string): unknown {
  const type =
    status === 401
      ? 'authentication_error'
      : status === 429
        ? 'rate_limit_error'
        : status >= 500
          ? 'api_error'
          : 'invalid_request_error';
  return api === 'openai'
    ? { error: { message, type, code: null, param: null } }
    : { type: 'error', error: { type, message } };
}

function openAiCompletion(exchange: Exchange, content: string): unknown {
  const { body } = exchange;
  const { input_tokens, output_tokens } = billed(exchange, content);
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    choices: [
      { index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop', logprobs: null },
    ],
    usage: {
      prompt_tokens: input_tokens,
      completion_tokens: output_tokens,
      total_tokens: input_tokens + output_tokens,
    },
  };
}

function anthropicToolCall(exchange: Exchange, input: unknown): unknown {
  const tools = (exchange.body.tools as Array<{ name: string }> | undefined) ?? [];
  return anthropicMessage(
    exchange,
    [{ type: 'tool_use', id: 'toolu_fake', name: tools[0]?.name ?? 'unknown', input }],
    'tool_use',
  );
}

function anthropicText(exchange: Exchange): unknown {
  return anthropicMessage(exchange, [{ type: 'text', text: 'I think this is probably an action item.' }], 'end_turn');
}

function anthropicMessage(exchange: Exchange, content: unknown[], stopReason: string): unknown {
  const { body } = exchange;
  const usage = billed(exchange, content);
  return {
    id: 'msg_fake',
    type: 'message',
    role: 'assistant',
    model: body.model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage,
  };
}
