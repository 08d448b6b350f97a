import { dropAll } from './databases.js';

/**
 * Runs a benchmark's `main`, then, after a failure or Ctrl-C too, drops its databases, runs `cleanup` and exits.
 */
export function runMain(main: () => Promise<void>, cleanup: () => void = () => {}): void {
  const interrupted = () => {
    void dropAll().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);

  main()
    .catch((error: unknown) => {
      process.stderr.write(
        `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exitCode = 1;
    })
    .finally(async () => {
      await dropAll();
      cleanup();
      // A failed phase may leave a sampler or a child behind; it must not keep the run alive.
      process.exit();
    });
}
