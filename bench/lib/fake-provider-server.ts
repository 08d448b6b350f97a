import { startFakeLlm } from '../../test/support/fake-llm.js';

// The tests' fake provider as a process of its own for the classify benchmark, answering every
// request at once with the default answer. It records nothing: a load run sends far too many
// requests to keep. Environment: FAKE_LLM_PORT.

async function main(): Promise<void> {
  const fake = await startFakeLlm({ port: Number(process.env.FAKE_LLM_PORT ?? 0), record: false });
  const stop = async () => {
    await fake.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}

main().catch((error: unknown) => {
  process.stderr.write(`fake provider failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
