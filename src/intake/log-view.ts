// The intake log as a batch of messages sees it: the entries one lookup found (the store's
// findLogged), plus those the batch itself writes, added as it decides them, so each message of a
// batch sees the ones before it exactly as if each had been committed alone.

import type { LoggedMessage } from './store/port.js';

/**
 * The questions the pipeline asks of the log; each picks among the entries the way its query did
 * when it was one statement per message (earliest first, or the thread's item).
 */
export interface LogView {
  /** This copy (source_ref) is logged already. */
  has(sourceRef: string): boolean;
  /** The earliest handled message with the same bytes. */
  copyOf(sourceHash: string): LoggedMessage | undefined;
  /** The earliest handled message with the same content (fingerprint), else the same key. */
  handled(messageKey: string, fingerprint: string | null): LoggedMessage | undefined;
  /** The conversation of the earliest logged message named by `keys` that has one. */
  conversation(keys: readonly string[]): string | undefined;
  /** The thread's work item: the one created for it, else the newest noted; newest first. */
  threadItem(conversationKey: string | null, relatedKeys: readonly string[]): string | undefined;
  add(entry: LoggedMessage): void;
}

function earliest(
  entries: Iterable<LoggedMessage>,
  accept: (entry: LoggedMessage) => boolean,
): LoggedMessage | undefined {
  let best: LoggedMessage | undefined;
  for (const entry of entries) {
    if (accept(entry) && (best === undefined || entry.created_at < best.created_at)) best = entry;
  }
  return best;
}

export function createLogView(found: readonly LoggedMessage[]): LogView {
  const entries: LoggedMessage[] = [...found];
  const sources = new Set(found.map((entry) => entry.source_ref));

  return {
    has: (sourceRef) => sources.has(sourceRef),

    copyOf: (sourceHash) => earliest(entries, (entry) => entry.status === 'done' && entry.source_hash === sourceHash),

    handled: (messageKey, fingerprint) =>
      earliest(
        entries,
        (entry) =>
          entry.status === 'done' &&
          (fingerprint === null ? entry.message_key === messageKey : entry.fingerprint === fingerprint),
      ),

    conversation(keys) {
      const wanted = new Set(keys);
      return (
        earliest(entries, (entry) => entry.conversation_key !== null && wanted.has(entry.message_key))
          ?.conversation_key ?? undefined
      );
    },

    threadItem(conversationKey, relatedKeys) {
      const related = new Set(relatedKeys);
      let best: LoggedMessage | undefined;
      for (const entry of entries) {
        if (entry.work_item_id === null) continue;
        if (
          !(conversationKey !== null && entry.conversation_key === conversationKey) &&
          !related.has(entry.message_key)
        )
          continue;
        // The item made for the thread before any note on it; among equals the newest.
        const rank = (candidate: LoggedMessage) => (candidate.action === 'created' ? 0 : 1);
        if (
          best === undefined ||
          rank(entry) < rank(best) ||
          (rank(entry) === rank(best) && entry.created_at >= best.created_at)
        )
          best = entry;
      }
      return best?.work_item_id ?? undefined;
    },

    add(entry) {
      entries.push(entry);
      sources.add(entry.source_ref);
    },
  };
}
