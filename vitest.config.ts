import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['node_modules/**', 'dist/**', 'web/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Process-level and browser tests start real servers; two cores do not gain from more.
    maxWorkers: 2,
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
