import { type Message, Role, type StreamResponse, type Task, TaskState } from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';

// The official SDK's client against a desk that listens, with a bearer token of the desk's.

/** fetch with the desk's bearer token on every request. */
export function withToken(token: string): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
}

/** The SDK's client over the binding named (JSON-RPC unless told), picked from the card as the SDK picks. */
export async function a2aClient(
  base: string,
  token: string,
  binding: 'JSONRPC' | 'HTTP+JSON' = 'JSONRPC',
): Promise<Client> {
  const fetchImpl = withToken(token);
  const transport =
    binding === 'JSONRPC' ? new JsonRpcTransportFactory({ fetchImpl }) : new RestTransportFactory({ fetchImpl });
  const factory = new ClientFactory({
    transports: [transport],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
  });
  return factory.createFromUrl(base);
}

export function userMessage(text: string, extra: Partial<Message> = {}): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    ...extra,
  };
}

/** Sends and answers at once (returnImmediately): the task as the desk made it. */
export async function send(client: Client, message: Message): Promise<Task> {
  const result = await client.sendMessage({
    tenant: '',
    message,
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true },
    metadata: undefined,
  });
  if (!('status' in result)) throw new Error('expected a task');
  return result;
}

/** Collects a stream's events as they come, so a test can wait for one. */
export function collect(stream: AsyncGenerator<StreamResponse>) {
  const events: StreamResponse[] = [];
  const done = (async () => {
    for await (const event of stream) events.push(event);
  })();
  return { events, done };
}

/** The state each event of a stream carries, in order. */
export function statesOf(events: StreamResponse[]): TaskState[] {
  return events.flatMap((event) => {
    const payload = event.payload;
    if (payload?.$case === 'task') return [payload.value.status!.state];
    if (payload?.$case === 'statusUpdate') return [payload.value.status!.state];
    return [];
  });
}
