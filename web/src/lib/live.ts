import { useEffect, useRef, useState } from 'preact/hooks';
import type { Project, WorkItemSummary } from '../../../src/work/schemas.ts';

// One EventSource for the whole page. EventSource resumes with Last-Event-ID by itself after a
// dropped connection; when the browser gives up (the server answered with an error) we open a
// new one after a pause and tell the views to reload, since that stream starts from now.

export type LiveEvent =
  | { type: 'work.created'; data: WorkItemSummary }
  | { type: 'work.updated'; data: WorkItemSummary }
  | { type: 'work.deleted'; data: { id: string } }
  | { type: 'project.created'; data: Project }
  | { type: 'project.updated'; data: Project }
  | { type: 'resync' };

export type LiveState = 'connecting' | 'live' | 'offline';

const EVENT_TYPES = [
  'work.created',
  'work.updated',
  'work.deleted',
  'project.created',
  'project.updated',
] as const;

type Listener = (e: LiveEvent) => void;
const listeners = new Set<Listener>();
const stateListeners = new Set<(s: LiveState) => void>();
let state: LiveState = 'connecting';
let source: EventSource | null = null;
let retryTimer: ReturnType<typeof setTimeout> | undefined;
let hadError = false;

function setState(next: LiveState) {
  state = next;
  for (const l of stateListeners) l(next);
}

function emit(e: LiveEvent) {
  for (const l of listeners) l(e);
}

function connect(delayMs: number) {
  clearTimeout(retryTimer);
  retryTimer = setTimeout(() => {
    const es = new EventSource('events');
    source = es;
    setState('connecting');
    es.onopen = () => {
      setState('live');
      // After a gap the server replays what it still has; a reload covers what it no longer has.
      if (hadError) emit({ type: 'resync' });
      hadError = false;
    };
    es.onerror = () => {
      hadError = true;
      if (es.readyState === EventSource.CLOSED) {
        setState('offline');
        es.close();
        connect(Math.min(30_000, Math.max(1000, delayMs * 2)));
      } else {
        setState('connecting');
      }
    };
    for (const type of EVENT_TYPES) {
      es.addEventListener(type, (msg: MessageEvent<string>) => {
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
  const [s, setS] = useState(state);
  useEffect(() => {
    stateListeners.add(setS);
    setS(state);
    return () => {
      stateListeners.delete(setS);
    };
  }, []);
  return s;
}
