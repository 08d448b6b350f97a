import { once } from 'node:events';
import { type Server, type Socket, connect, createServer } from 'node:net';

/**
 * A TCP relay on 127.0.0.1 that a test can cut (every open connection is severed and new ones
 * are dropped on arrival) and restore, to play a database that goes away and comes back.
 */
export interface TcpProxy {
  readonly port: number;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let severed = false;

  const server: Server = createServer((client) => {
    if (severed) {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, targetHost);
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.once('close', () => open.delete(socket));
      // Either side failing ends both; the error itself is what the service should see.
      socket.once('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no TCP address');

  return {
    port: address.port,
    cut() {
      severed = true;
      for (const socket of open) socket.destroy();
    },
    restore() {
      severed = false;
    },
    async close() {
      severed = true;
      for (const socket of open) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}
