import { type AddressInfo, type Server, type Socket, createServer } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

// SMTP servers for the notify tests, on 127.0.0.1 over TCP: a real one (the smtp-server
// package) that accepts or refuses, one that accepts connections and never greets, and a port
// nobody listens on.

export interface ReceivedMail {
  raw: string;
  parsed: ParsedMail;
  to: string[];
}

export interface TestSmtpServer {
  port: number;
  received: ReceivedMail[];
  /** The next mail to arrive (or the first not yet taken). */
  next(): Promise<ReceivedMail>;
  /** While set, every recipient is refused with 550. */
  refusing: boolean;
  /** The passwords the clients signed in with, so a test can check one came through. */
  logins: Array<{ user: string; password: string }>;
  close(): Promise<void>;
}

export async function startSmtpServer(): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = [];
  let taken = 0;
  const waiting: Array<(mail: ReceivedMail) => void> = [];
  const state: Pick<TestSmtpServer, 'refusing' | 'logins'> = { refusing: false, logins: [] };
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: true,
    logger: false,
    onAuth(auth, _session, callback) {
      state.logins.push({ user: auth.username ?? '', password: auth.password ?? '' });
      callback(null, { user: auth.username });
    },
    onRcptTo(address, _session, callback) {
      if (state.refusing) {
        const error = Object.assign(new Error('mailbox unavailable'), { responseCode: 550 });
        return callback(error);
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        void simpleParser(raw).then((parsed) => {
          const mail = { raw, parsed, to: session.envelope.rcptTo.map((rcpt) => rcpt.address) };
          received.push(mail);
          const resolve = waiting.shift();
          if (resolve) {
            taken += 1;
            resolve(mail);
          }
          callback();
        });
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    received,
    get refusing() {
      return state.refusing;
    },
    set refusing(value: boolean) {
      state.refusing = value;
    },
    logins: state.logins,
    next() {
      if (taken < received.length) return Promise.resolve(received[taken++]!);
      return new Promise((resolve) => waiting.push(resolve));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A server that takes connections and never says a word: the client's greeting timeout decides. */
export interface SilentServer {
  port: number;
  /** Resolves when a client has connected (the first not yet taken). */
  connected(): Promise<Socket>;
  open: Set<Socket>;
  close(): Promise<void>;
}

export async function startSilentServer(): Promise<SilentServer> {
  const open = new Set<Socket>();
  const sockets: Socket[] = [];
  const waiting: Array<(socket: Socket) => void> = [];
  let taken = 0;
  const server: Server = createServer((socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => undefined);
    const resolve = waiting.shift();
    if (resolve) {
      taken += 1;
      resolve(socket);
    } else sockets.push(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    open,
    connected() {
      if (taken < sockets.length) return Promise.resolve(sockets[taken++]!);
      return new Promise((resolve) => waiting.push(resolve));
    },
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port on 127.0.0.1 that nobody listens on (it was free a moment ago). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
