import { useEffect, useState } from 'preact/hooks';
import { api } from './api.ts';
import { onLive } from './live.ts';
import { createStore } from './store.ts';
import { CONVERSATION_EVENTS } from './event-names.ts';

// How many questions and reviews wait for a person: the menu's badge. One count for the page,
// read from GET /questions/counts while someone who answers is signed in, and read again when
// the live stream says a question was asked or answered (a burst of them costs one read).

const COALESCE_MS = 150;

const count = createStore<number | null>(null);
let users = 0;
let timer: ReturnType<typeof setTimeout> | undefined;
let inflight = false;
let again = false;
const publish = count.set;

async function read(): Promise<void> {
  if (inflight) {
    // an event during the read may not be in its answer: read once more when it ends
    again = true;
    return;
  }
  inflight = true;
  try {
    const r = await api<{ open: number }>('GET', '/questions/counts');
    if (users > 0) publish(r.data.open);
  } catch {
    // the badge keeps its last number; the next event or resync tries again
  } finally {
    inflight = false;
    if (again && users > 0) {
      again = false;
      void read();
    }
  }
}

/** Reads the count again soon (a question was asked or answered, here or elsewhere). */
export function refreshNeedsYou(): void {
  if (users === 0 || timer !== undefined) return;
  timer = setTimeout(() => {
    timer = undefined;
    void read();
  }, COALESCE_MS);
}

onLive((e) => {
  if (
    e.type === CONVERSATION_EVENTS.asked ||
    e.type === CONVERSATION_EVENTS.answered ||
    e.type === CONVERSATION_EVENTS.moot ||
    e.type === 'resync'
  )
    refreshNeedsYou();
});

/** The open count, null until read; `enabled` false (a caller who answers nothing) reads nothing. */
export function useNeedsYouCount(enabled: boolean): number | null {
  const [n, setN] = useState(enabled ? count.get() : null);
  useEffect(() => {
    if (!enabled) return undefined;
    const stop = count.subscribe(setN);
    users += 1;
    void read();
    return () => {
      stop();
      users -= 1;
      if (users === 0) publish(null);
    };
  }, [enabled]);
  return enabled ? n : null;
}
