import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Type } from 'typebox';
import { ACCESS } from '../auth/contract.js';
import type { HttpApp } from '../shared/http/types.js';
import { problemResponses } from '../shared/http/schemas.js';

// What the Tokens page needs to print a ready-to-paste stdio MCP configuration: nothing puts `agentdesk` on the
// PATH of a fresh clone, so it names the CLI by its absolute path, which only the server knows.

export const McpSetupSchema = Type.Object(
  {
    node: Type.String({ description: 'The absolute path of the Node.js binary running this service' }),
    cli: Type.String({ description: 'The absolute path of the built CLI (dist/src/cli/main.js) of this install' }),
    cli_built: Type.Boolean({ description: 'False when the CLI is not built yet (run `npm run build`)' }),
  },
  { additionalProperties: false },
);

/** The folder of this install: the nearest one up from this module with agentdesk's package.json. */
function installRoot(): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth += 1) {
    try {
      if ((JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string }).name === 'agentdesk')
        return dir;
    } catch {
      // no package.json here: look one level up
    }
    dir = dirname(dir);
  }
  return null;
}

/** For admins only: an install path is no secret from an admin, but no business of anyone else's. */
export function registerMcpSetupRoute(app: HttpApp, path = '/ui-api/mcp-setup'): void {
  const root = installRoot() ?? process.cwd();
  const cli = join(root, 'dist', 'src', 'cli', 'main.js');
  app.get(
    path,
    {
      config: { access: ACCESS.admin },
      schema: {
        tags: ['ui'],
        operationId: 'getMcpSetup',
        summary: 'Where this install’s CLI is, for the stdio MCP configuration the Tokens page shows',
        response: { 200: McpSetupSchema, ...problemResponses() },
      },
    },
    async () => ({ node: process.execPath, cli, cli_built: existsSync(cli) }),
  );
}
