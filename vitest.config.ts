import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // test/perf holds tests that are budgets and nothing else: `npm run test:perf` runs them.
    exclude: ['node_modules/**', 'dist/**', 'web/**', 'test/perf/**'],
    // Fails a test whose code queried the top-level database inside a transaction (helpers/connection-guard.ts).
    setupFiles: ['test/setup/connection-guard.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Process-level and browser tests start real servers; two cores do not gain from more.
    maxWorkers: 2,
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
