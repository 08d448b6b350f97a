// classify's entry: what the layers above and the composition root may import of it (wire vocabulary: contract.ts).

export { classifyDeadlineMs } from './deadline.js';
export { createDedupeStore } from './dedupe/store/index.js';
export type { Backoff } from './llm/retry.js';
export { createClassifyMetrics } from './metrics.js';
export { registerClassifyRoutes } from './routes.js';
export { createClassifyService, type ClassifyService } from './service.js';
export { createUsageReader } from './usage/report.js';
export { registerUsageRoute, UsageReportSchema } from './usage/routes.js';
export { createUsageStore } from './usage/store/index.js';
