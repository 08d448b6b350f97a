import { type IncomingMessage, request } from 'node:http';

export interface SseEvent {
  id: string | null;
  event: string;
  data: string;
}

export interface SseClient {
  status: number;
  events: SseEvent[];
  /** As EventSource keeps it: the last id the stream set, with or without an event. */
  lastEventId(): string | null;
  /** True once the server has ended or dropped the stream. */
  ended(): boolean;
  waitFor(predicate: (events: SseEvent[]) => boolean, timeoutMs?: number): Promise<SseEvent[]>;
  /** Starts reading a stream opened with `paused`. */
  resume(): void;
  close(): void;
}

export interface SseOptions {
  /**
   * Reads nothing until `resume()`: the socket's buffers fill and the server's writes stop
   * draining, as with a client on a slow link or a frozen tab.
   */
  paused?: boolean;
}

/** A minimal Server-Sent Events reader over a real HTTP connection, as a browser would hold. */
export function connectSse(
  url: string,
  headers: Record<string, string> = {},
  options: SseOptions = {},
): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const events: SseEvent[] = [];
    let lastEventId: string | null = null;
    let ended = false;
    const waiters = new Set<() => void>();
    const req = request(url, { headers: { accept: 'text/event-stream', ...headers } }, (response: IncomingMessage) => {
      let buffer = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let boundary = buffer.indexOf('\n\n');
        while (boundary !== -1) {
          const block = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          const event: SseEvent = { id: null, event: 'message', data: '' };
          let hasData = false;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) continue;
            const [field, ...rest] = line.split(':');
            const value = rest.join(':').replace(/^ /, '');
            if (field === 'id') {
              event.id = value;
              lastEventId = value;
            }
            if (field === 'event') event.event = value;
            if (field === 'data') {
              event.data += (hasData ? '\n' : '') + value;
              hasData = true;
            }
          }
          if (hasData) events.push(event);
          boundary = buffer.indexOf('\n\n');
        }
        for (const wake of waiters) wake();
      });
      response.on('close', () => {
        ended = true;
        for (const wake of waiters) wake();
      });
      if (options.paused) response.pause();
      resolve({
        status: response.statusCode ?? 0,
        events,
        lastEventId: () => lastEventId,
        ended: () => ended,
        waitFor(predicate, timeoutMs = 5_000) {
          return new Promise((done, fail) => {
            if (predicate(events)) return done(events);
            const timer = setTimeout(() => {
              waiters.delete(check);
              fail(new Error(`timed out waiting for events; got ${JSON.stringify(events.map((e) => e.event))}`));
            }, timeoutMs);
            const check = () => {
              if (!predicate(events)) return;
              clearTimeout(timer);
              waiters.delete(check);
              done(events);
            };
            waiters.add(check);
          });
        },
        resume: () => response.resume(),
        close: () => req.destroy(),
      });
    });
    req.on('error', (error) => {
      if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(error);
    });
    req.end();
  });
}
