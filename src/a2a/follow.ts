import type { StreamResponse, Task } from '@a2a-js/sdk';
import { isFinalState, isSettledState } from './states.js';
import { stateKey } from './task-view.js';

// Following one task from the desk's event stream: each time the log may have grown (a commit
// here, another instance's notification, the hub's poll) the task is read again, and a change goes
// out. Reading the task, not the events: a client that reconnects starts from the task as it is.

/** Calls the listener whenever the desk's event log may have grown; returns the way to stop. */
export type Watch = (listener: () => void) => () => void;

export interface FollowOptions {
  watch: Watch;
  read: () => Promise<Task>;
  /** Ends the stream: the client left, or the server is closing. */
  stop: AbortSignal;
  /** Stop at INPUT_REQUIRED as well as at a final state (a blocking send). */
  untilSettled?: boolean;
}

/** Resolves at the next wake-up or when `stop` fires; false when stopped. */
function nextWake(woken: { flag: boolean; resolve: (() => void) | null }, stop: AbortSignal): Promise<boolean> {
  if (stop.aborted) return Promise.resolve(false);
  if (woken.flag) {
    woken.flag = false;
    return Promise.resolve(true);
  }
  return new Promise((resolve) => {
    const onStop = () => resolve(false);
    stop.addEventListener('abort', onStop, { once: true });
    woken.resolve = () => {
      stop.removeEventListener('abort', onStop);
      woken.flag = false;
      resolve(true);
    };
  });
}

/** The task first, then each change of its status, until it ends (or settles) or `stop` fires. */
export async function* followTask(options: FollowOptions, first?: Task): AsyncGenerator<Task> {
  const { watch, read, stop, untilSettled = false } = options;
  const woken = { flag: false, resolve: null as (() => void) | null };
  // Watching starts before the first read, so a change made during the read is not missed.
  const unwatch = watch(() => {
    woken.flag = true;
    const resolve = woken.resolve;
    woken.resolve = null;
    resolve?.();
  });
  const done = (task: Task) => {
    const state = task.status?.state;
    return state !== undefined && (untilSettled ? isSettledState(state) : isFinalState(state));
  };
  try {
    let task = first ?? (await read());
    yield task;
    let key = stateKey(task);
    while (!done(task) && (await nextWake(woken, stop))) {
      task = await read();
      if (stateKey(task) === key) continue;
      key = stateKey(task);
      yield task;
    }
  } finally {
    unwatch();
  }
}

/** A task as the stream's first event. */
export function taskEvent(task: Task): StreamResponse {
  return { payload: { $case: 'task', value: task } };
}

/** A later change: a status update, final when the task has ended. */
export function statusEvent(task: Task): StreamResponse {
  return {
    payload: {
      $case: 'statusUpdate',
      value: { taskId: task.id, contextId: task.contextId, status: task.status, metadata: task.metadata },
    },
  };
}

/** The outcome of a completed task, sent before its final status. */
export function artifactEvents(task: Task): StreamResponse[] {
  return task.artifacts.map((artifact) => ({
    payload: {
      $case: 'artifactUpdate',
      value: {
        taskId: task.id,
        contextId: task.contextId,
        artifact,
        append: false,
        lastChunk: true,
        metadata: undefined,
      },
    },
  }));
}
