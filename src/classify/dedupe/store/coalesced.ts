// Coalescing around a store that takes batches (PostgreSQL): claims, and answers' writes, that arrive while a
// batch of their kind runs go together in the next, one statement each (shared/db/coalesce.ts). This only
// forms batches that touch each row once (BatchDedupeStore); the store runs what it is given.

import { createCoalescer } from '../../../shared/db/coalesce.js';
import type { BatchDedupeStore, ClaimRequest, DedupeStore, SaveRequest } from './port.js';

export function coalesceDedupeStore(store: BatchDedupeStore): DedupeStore {
  const claim = createCoalescer({
    keyOf: () => 'claim',
    conflictOf: (request: ClaimRequest) => [
      `t ${request.thread_key}`,
      `r ${request.record_key}`,
      `f ${request.fingerprint_key}`,
    ],
    run: (requests: ClaimRequest[]) => store.claimMany(requests),
  });
  const save = createCoalescer({
    keyOf: () => 'save',
    conflictOf: (request: SaveRequest) => request.record_key,
    run: (requests: SaveRequest[]) => store.saveMany(requests),
  });
  return {
    transaction: (work) => store.transaction(work),
    claim,
    saveResult: (record_key, fingerprint, classification, now, usage) =>
      save({ record_key, fingerprint, classification, now, usage }),
    replaceFingerprint: (...args) => store.replaceFingerprint(...args),
    claimFingerprint: (...args) => store.claimFingerprint(...args),
    moveFingerprint: (...args) => store.moveFingerprint(...args),
    findMessage: (recordKey) => store.findMessage(recordKey),
    reclaim: (...args) => store.reclaim(...args),
    recordUsage: (usage) => store.recordUsage(usage),
    purgeBefore: (before) => store.purgeBefore(before),
  };
}
