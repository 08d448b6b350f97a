import { runServices } from './run-services.js';

// Usage: node dist/src/main.js [all|work|classify]   (what `npm start` runs; `agentdesk serve` runs the same)
await runServices(process.argv[2] ?? 'all', process.env);
