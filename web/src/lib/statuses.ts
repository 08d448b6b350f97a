// The service's own list (a module without imports, so nothing else is bundled with it).
export { WORK_STATUSES as STATUSES } from '../../../src/work/items/statuses.ts';
