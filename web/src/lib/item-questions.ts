import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from './api.ts';
import { type Question, questionsPath } from './conversation.ts';
import { useLive } from './live.ts';
import { type Loaded, useLoad } from './use-load.ts';
import { CONVERSATION_EVENTS } from './event-names.ts';

// An item's questions, read once for its whole page: the open question's card at the top and the
// timeline (which tells a review's comments by them) share this one read. It starts with the
// item's own read, so the page can show both at once and the card never pushes the page down.

/**
 * The questions of item `id`, read again when one is asked or answered (here or elsewhere) and
 * when the item's `version` moves past the one first shown (a final item closes its question).
 */
export function useItemQuestions(id: string, version: number | undefined): Loaded<Question[]> {
  const [tick, setTick] = useState(0);
  const seen = useRef<number | undefined>(undefined);
  useEffect(() => {
    if (version === undefined) return;
    if (seen.current !== undefined && version > seen.current) setTick((t) => t + 1);
    if (seen.current === undefined || version > seen.current) seen.current = version;
  }, [version]);
  useLive((e) => {
    if (
      ((e.type === CONVERSATION_EVENTS.asked ||
        e.type === CONVERSATION_EVENTS.answered ||
        e.type === CONVERSATION_EVENTS.moot) &&
        e.data.work_item_id === id) ||
      e.type === 'resync'
    ) {
      setTick((t) => t + 1);
    }
  });
  const path = questionsPath(id);
  return useLoad<Question[]>(
    `${path}#${tick}`,
    async (signal) => (await api<Question[]>('GET', path, undefined, signal)).data,
  );
}
