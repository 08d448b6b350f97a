import { defineConfig } from 'vitest/config';

// `npm run test:perf`: the tests that judge speed against a budget (test/support/perf.ts). Run
// them on a machine that is otherwise idle; `npm test` runs the same files without the budgets.
export default defineConfig({
  test: {
    include: ['test/perf/**/*.test.ts', 'test/process/slow-provider.test.ts', 'test/classify/text.test.ts'],
    env: { AGENTDESK_PERF: '1' },
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // One at a time: a budget is judged with the machine to itself.
    maxWorkers: 1,
    fileParallelism: false,
  },
});
