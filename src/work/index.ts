// work's entry: what the layers above and the composition root may import of it (wire vocabulary: contract.ts).

export type { ClaimableNews } from './agent-loop/claimable.js';
export { createClaimService } from './agent-loop/claims.js';
export { startLeaseSweeper, SWEEP_EVERY_MS } from './agent-loop/lease-sweeper.js';
export { NotCancelableByCreator, UnknownProjectReference, WorkItemNotFound } from './errors.js';
export { contiguousPrefix, createEventHub, registerEventRoutes, type EventHub } from './events/hub.js';
export { createEventLog } from './events/store/index.js';
export type { EventLog, StoredEvent } from './events/store/port.js';
export { applyLeaseEffect, planUpdate, requestedStatus } from './items/change-rules.js';
export { changeItem, createRecentItems, type Plan, type RecentItems } from './items/changes.js';
export { registerProjectRoutes, registerWorkRoutes } from './items/routes.js';
export {
  actorFor,
  actorOf,
  createWorkService,
  planItem,
  serializePayload,
  writePlannedItems,
  type PlannedItem,
  type ReviewGate,
} from './items/service.js';
export { flagOf, namesColumn, SYSTEM_ACTOR, toSummary, toWorkItem, type Actor } from './items/view.js';
export { createWorkCounters, registerWorkGauges } from './metrics/metrics.js';
export { NO_OBSERVER, type WorkObserver } from './metrics/observer.js';
export { registerPlanRoutes } from './plans/routes.js';
export { createPlanService } from './plans/service.js';
export { createProjectService } from './projects/service.js';
export { startStatsCompactor } from './stats/compactor.js';
export { registerStatsRoutes } from './stats/routes.js';
export { createStatsService } from './stats/service.js';
export { createStatsStore } from './stats/store/index.js';
export type { DependentNotes } from './store/dependencies-port.js';
export { createWorkStore } from './store/index.js';
export type { FinishedHook, HistoryEntryRow, ItemWithDispatches, WorkStore } from './store/port.js';
export type { DispatchRow, ProjectRow, WorkItemRow, WorkTables } from './store/tables.js';
