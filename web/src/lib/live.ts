import { useEffect, useRef } from 'preact/hooks';
import type { Project, WorkItemSummary } from '../../../src/work/api-contract.ts';
import type { Comment, Question } from './conversation.ts';
import { CONVERSATION_EVENTS, PROJECT_EVENTS, STREAM_EVENTS, WORK_EVENTS } from './event-names.ts';
import { createStore, useStore } from './store.ts';

// One EventSource for the whole page. After a dropped connection EventSource reconnects by
// itself and sends Last-Event-ID, so the server replays what was missed. Two cases it cannot
// cover make the views reload instead ("resync"): no event had arrived yet (there is no id to
// resume from), and the browser gave up (the server answered with an error), after which we open
// a new EventSource ourselves, passing the last id in the query string since a new EventSource
// cannot be given the header, and the gap may be longer than the server keeps events. The server
// also says "reset" when our last id is one its log never reached (its database was replaced):
// what the views hold belongs to another log, so they reload, and the stream goes on from there.

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
    const es = new EventSource(
      lastEventId === null ? 'events' : `events?last_event_id=${encodeURIComponent(lastEventId)}`,
    );
    source = es;
    setState('connecting');
    es.onopen = () => {
      if (source !== es) return; // closed by stopLive
      setState('live');
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
