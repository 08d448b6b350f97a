import { fileURLToPath } from 'node:url';
import { type BenchServer, freePort, startNode } from '../lib/servers.js';

const CEILING_MAIN = fileURLToPath(new URL('./ceiling-server.js', import.meta.url));

/** The work ceiling (bench/work/ceiling-server.ts) on `databaseUrl`. */
export async function startCeiling(databaseUrl: string, poolSize: number): Promise<BenchServer> {
  const port = await freePort();
  return startNode(
    CEILING_MAIN,
    [],
    { CEILING_PORT: String(port), DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: String(poolSize) },
    port,
  );
}
