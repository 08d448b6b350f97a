// a2a's entry: what the composition root may import of it.

export { createCards } from './card.js';
export { registerA2aRoutes } from './routes.js';
export { createA2aStore } from './store/index.js';
export { createPushBody, createPushConfigs, startPushSweep, type PushEndpoints } from './push.js';
