// schedules' entry: what the layers above and the composition root may import of it (wire vocabulary: contract.ts).

export { GRACE_MS, MISSED_ROWS } from './catch-up.js';
export { ScheduleNameTaken, ScheduleNotFound } from './errors.js';
export { FIRING_LEASE_MS, type FiringResult } from './firing.js';
export type { ItemMaker } from './items.js';
export { localIso } from './rhythm.js';
export { registerScheduleRoutes } from './routes.js';
export { SCHEDULES_EVERY_MS, type SchedulesScheduler } from './scheduler.js';
export { createScheduleService, type ScheduleService } from './service.js';
export { createSchedules, type Schedules, type SchedulesDeps } from './setup.js';
