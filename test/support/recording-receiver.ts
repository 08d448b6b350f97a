import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

// A webhook receiver as another system runs one: a real HTTP server on 127.0.0.1 that keeps each
// delivery it is sent, answers what the test tells it to, and checks a signature with the official
// Standard Webhooks library when asked.

export interface Received {
  /** The path and query it was sent to. */
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface RecordingReceiver {
  /** http://127.0.0.1:<port>/hook */
  url: string;
  received: Received[];
  /** The status and body of the next answers (default 200 "ok"). */
  answer(status: number, body?: string): void;
  /** The delivery's parsed body when `secret` signed it; throws when it did not. */
  verify(delivery: Received, secret: string): unknown;
  close(): Promise<void>;
}

export async function startRecordingReceiver(): Promise<RecordingReceiver> {
  const received: Received[] = [];
  let reply = { status: 200, body: 'ok' };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers[name] = value;
      received.push({ url: req.url ?? '', headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(reply.status, { 'content-type': 'text/plain' }).end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    answer: (status, body = '') => void (reply = { status, body }),
    verify: (delivery, secret) => new Webhook(secret).verify(delivery.body, delivery.headers),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
