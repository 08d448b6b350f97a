// A real HTTP server on 127.0.0.1 that speaks the OpenAI Chat Completions and Anthropic
// Messages wire formats, so the official SDKs are exercised end to end. Each test scripts the
// replies in order; every request is recorded with its headers and parsed body.

import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeReply =
  /** A valid answer in the API's format; `answer` replaces the default model answer, `usage` the reported tokens (1 and 1). */
  | { kind: 'answer'; answer?: unknown; usage?: FakeUsage }
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

/** The tokens a reply reports, sent in each API's own fields (prompt_tokens… or input_tokens…). */
export interface FakeUsage {
  input_tokens: number;
  output_tokens: number;
}

const DEFAULT_USAGE: FakeUsage = { input_tokens: 1, output_tokens: 1 };

export interface RecordedRequest {
  api: FakeApi;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** Date.now() when the reply was sent; null until then (or forever, for a hang). */
  answered_at: number | null;
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

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = (request.url ?? '/').split('?')[0]!;
      const api: FakeApi | null =
        path === '/v1/chat/completions' || path === '/chat/completions' ? 'openai' : path === '/v1/messages' ? 'anthropic' : null;
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
      const recorded: RecordedRequest = { api, method: request.method, path, headers: request.headers, body, answered_at: null };
      if (record) requests.push(recorded);
      open.now += 1;
      open.max = Math.max(open.max, open.now);
      response.once('finish', () => {
        recorded.answered_at = Date.now();
        open.now -= 1;
      });
      const prompt = JSON.stringify(body.messages ?? []);
      const chosen = answerer?.(prompt) ?? null;
      reply(api, body, queue.shift() ?? replier?.(prompt) ?? { kind: 'answer' }, response, chosen ?? defaultAnswer);
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
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function reply(api: FakeApi, body: Record<string, unknown>, step: FakeReply, response: ServerResponse, answer: unknown): void {
  switch (step.kind) {
    case 'hang':
      return;
    case 'delay':
      setTimeout(() => reply(api, body, step.then, response, answer), step.ms);
      return;
    case 'held':
      void step.latch.wait().then(() => reply(api, body, step.then, response, answer));
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
      send(response, api === 'openai' ? openAiCompletion(body, 'Sure! Here is the classification: {category: action', DEFAULT_USAGE) : anthropicText(body));
      return;
    case 'answer': {
      const usage = step.usage ?? DEFAULT_USAGE;
      send(
        response,
        api === 'openai' ? openAiCompletion(body, JSON.stringify(step.answer ?? answer), usage) : anthropicToolCall(body, step.answer ?? answer, usage),
      );
      return;
    }
    default: {
      const unreachable: never = step;
      throw new Error(`unknown fake reply ${JSON.stringify(unreachable)}`);
    }
  }
}

function send(response: ServerResponse, payload: unknown): void {
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
}

function errorBody(api: FakeApi, status: number, message: string): unknown {
  const type = status === 401 ? 'authentication_error' : status === 429 ? 'rate_limit_error' : status >= 500 ? 'api_error' : 'invalid_request_error';
  return api === 'openai' ? { error: { message, type, code: null, param: null } } : { type: 'error', error: { type, message } };
}

function openAiCompletion(body: Record<string, unknown>, content: string, usage: FakeUsage): unknown {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop', logprobs: null }],
    usage: { prompt_tokens: usage.input_tokens, completion_tokens: usage.output_tokens, total_tokens: usage.input_tokens + usage.output_tokens },
  };
}

function anthropicToolCall(body: Record<string, unknown>, input: unknown, usage: FakeUsage): unknown {
  const tools = (body.tools as Array<{ name: string }> | undefined) ?? [];
  return anthropicMessage(body, [{ type: 'tool_use', id: 'toolu_fake', name: tools[0]?.name ?? 'unknown', input }], 'tool_use', usage);
}

function anthropicText(body: Record<string, unknown>): unknown {
  return anthropicMessage(body, [{ type: 'text', text: 'I think this is probably an action item.' }], 'end_turn', DEFAULT_USAGE);
}

function anthropicMessage(body: Record<string, unknown>, content: unknown[], stopReason: string, usage: FakeUsage): unknown {
  return {
    id: 'msg_fake',
    type: 'message',
    role: 'assistant',
    model: body.model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { input_tokens: usage.input_tokens, output_tokens: usage.output_tokens },
  };
}
