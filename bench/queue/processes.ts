import { execFile, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { track } from '../lib/servers.js';
import type { AnchorResult, AnchorSpec } from './queue-anchors.js';
import type { QueueClientOptions, QueueClientReply, QueueClientRequest } from './queue-client.js';

const QUEUE_CLIENT_MAIN = fileURLToPath(new URL('./queue-client.js', import.meta.url));
const QUEUE_ANCHORS_MAIN = fileURLToPath(new URL('./queue-anchors.js', import.meta.url));
const execFileAsync = promisify(execFile);

/** One queue anchor (pg-boss, graphile-worker) run in a process of its own, as a server would be. */
export async function runAnchor(spec: AnchorSpec): Promise<AnchorResult> {
  const { stdout } = await execFileAsync(process.execPath, [QUEUE_ANCHORS_MAIN, JSON.stringify(spec)], {
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as AnchorResult;
}

export interface QueueClient {
  /** Runs one phase in the client process and answers when it is over. */
  run(request: QueueClientRequest): Promise<QueueClientReply>;
  stop(): Promise<void>;
}

/** The agents of bench:queue (bench/queue/queue-client.ts) in a process of their own, kept for the whole run on one server. */
export function startQueueClient(options: QueueClientOptions): QueueClient {
  const child = fork(QUEUE_CLIENT_MAIN, [JSON.stringify(options)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exit = track(child);
  return {
    run(request) {
      return new Promise((resolve, reject) => {
        if (!child.connected) return reject(new Error(`the queue client is gone before ${request.phase}`));
        const onExit = (code: number | null) =>
          reject(new Error(`the queue client exited with ${code} during ${request.phase}`));
        child.once('exit', onExit);
        child.once('message', (reply: QueueClientReply) => {
          child.off('exit', onExit);
          resolve(reply);
        });
        child.send(request);
      });
    },
    async stop() {
      if (child.connected) child.disconnect();
      await exit;
    },
  };
}
