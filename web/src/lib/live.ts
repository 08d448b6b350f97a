import { useEffect, useRef } from 'preact/hooks';
import type { Project, WorkItemSummary } from '../../../src/work/api-contract.ts';
import type { Comment, Question } from './conversation.ts';
import { CONVERSATION_EVENTS, PROJECT_EVENTS, STREAM_EVENTS, WORK_EVENTS } from './event-names.ts';
import { createStore, useStore } from './store.ts';

// One EventSource for the whole page. After a dropped connection EventSource reconnects by itself
// and sends Last-Event-ID, so the server replays what was missed; where it cannot, the views
// reload instead ("resync").

export type LiveEvent =
  | { type: typeof WORK_EVENTS.created; data: WorkItemSummary }
  | { type: typeof WORK_EVENTS.updated; data: WorkItemSummary }
  | { type: typeof WORK_EVENTS.deleted; data: { id: string } }
  | { type: typeof PROJECT_EVENTS.created; data: Project }
  | { type: typeof PROJECT_EVENTS.updated; data: Project }
  | { type: typeof CONVERSATION_EVENTS.asked; data: Question }
  | { type: typeof CONVERSATION_EVENTS.answered; data: Question }
  | { type: typeof CONVERSATION_EVENTS.moot; data: Question }
  | { type: typeof CONVERSATION_EVENTS.commented; data: Comment }
  | { type: 'resync' };

export type LiveState = 'connecting' | 'live' | 'offline';

const EVENT_TYPES = [
  WORK_EVENTS.created,
  WORK_EVENTS.updated,
  WORK_EVENTS.deleted,
  PROJECT_EVENTS.created,
  PROJECT_EVENTS.updated,
  CONVERSATION_EVENTS.asked,
  CONVERSATION_EVENTS.answered,
  CONVERSATION_EVENTS.moot,
  CONVERSATION_EVENTS.commented,
] as const;

type Listener = (e: LiveEvent) => void;
const listeners = new Set<Listener>();
const liveState = createStore<LiveState>('connecting');
let source: EventSource | null = null;
let retryTimer: ReturnType<typeof setTimeout> | undefined;
let lastEventId: string | null = null;
let interrupted = false;
let reopened = false;

const setState = liveState.set;

function emit(e: LiveEvent) {
  for (const l of listeners) l(e);
}

function connect(delayMs: number) {
  clearTimeout(retryTimer);
  retryTimer = setTimeout(() => {
    // A new EventSource cannot be given the Last-Event-ID header, so the last id goes in the query.
    const es = new EventSource(
      lastEventId === null ? 'events' : `events?last_event_id=${encodeURIComponent(lastEventId)}`,
    );
    source = es;
    setState('connecting');
    es.onopen = () => {
      if (source !== es) return; // closed by stopLive
      setState('live');
      // What resuming cannot cover: no event had arrived yet (no id to resume from), or the browser
      // gave up and this is a new EventSource (the gap may be longer than the server keeps events).
      if (interrupted && (reopened || lastEventId === null)) emit({ type: 'resync' });
      interrupted = false;
      reopened = false;
    };
    es.onerror = () => {
      if (source !== es) return;
      interrupted = true;
      if (es.readyState === EventSource.CLOSED) {
        setState('offline');
        es.close();
        reopened = true;
        connect(Math.min(30_000, Math.max(1000, delayMs * 2)));
      } else {
        setState('connecting');
      }
    };
    // Our last id is one the server's log never reached (its database was replaced): what the views
    // hold belongs to another log, so they reload, and the stream goes on from there.
    es.addEventListener(STREAM_EVENTS.reset, (msg: MessageEvent<string>) => {
      if (msg.lastEventId !== '') lastEventId = msg.lastEventId;
      emit({ type: 'resync' });
    });
    for (const type of EVENT_TYPES) {
      es.addEventListener(type, (msg: MessageEvent<string>) => {
        if (msg.lastEventId !== '') lastEventId = msg.lastEventId;
        try {
          emit({ type, data: JSON.parse(msg.data) } as LiveEvent);
        } catch {
          // a malformed event is dropped; the next one or a resync brings the view back in line
        }
      });
    }
  }, delayMs);
}

export function startLive(): void {
  if (source === null && retryTimer === undefined) connect(0);
}

/** Closes the stream (signed out): nothing more arrives until startLive. */
export function stopLive(): void {
  clearTimeout(retryTimer);
  retryTimer = undefined;
  source?.close();
  source = null;
  lastEventId = null;
  interrupted = false;
  reopened = false;
  setState('connecting');
}

/** Calls `listener` for every live event until the returned function is called. */
export function onLive(listener: Listener): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

/** Calls `onEvent` for every live event while the component is mounted. */
export function useLive(onEvent: Listener): void {
  const ref = useRef(onEvent);
  ref.current = onEvent;
  useEffect(() => {
    const l: Listener = (e) => ref.current(e);
    listeners.add(l);
    return () => {
      listeners.delete(l);
    };
  }, []);
}

export function useLiveState(): LiveState {
  return useStore(liveState);
}
