import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import { publicScope } from '../auth/index.js';
import { ACCESS } from '../auth/contract.js';
import type { HttpApp } from '../shared/http/types.js';

// The UI is a static build (web/dist) served from this process, on the API's origin, so it
// needs no second server and no CORS. It routes with the URL hash, so only `/` and the hashed
// assets are files here; every other path stays the API's.

const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

function findWebDist(): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 5; depth += 1) {
    const candidate = join(dir, 'web', 'dist');
    if (existsSync(join(candidate, 'index.html'))) return candidate;
    dir = dirname(dir);
  }
  return null;
}

export async function registerWebUi(app: HttpApp, root: string | null = findWebDist()): Promise<void> {
  if (!root) {
    app.get('/', { config: { access: ACCESS.public }, schema: { hide: true } }, async (_request, reply) =>
      reply
        .type('text/plain; charset=utf-8')
        .send('The agentdesk web UI is not built. Run `npm run build:web`, or `npm start`, which builds it.\n'),
    );
    return;
  }
  // The page and its assets are public: the sign-in screen is part of them.
  await publicScope(app, (scope) => registerStatic(scope, root));
}

async function registerStatic(app: HttpApp, root: string): Promise<void> {
  await app.register(fastifyStatic, {
    root,
    prefix: '/',
    wildcard: false,
    index: ['index.html'],
    schemaHide: true,
    // The build writes .br and .gz copies of each text file (web/vite.config.ts).
    preCompressed: true,
    setHeaders(reply, servedPath) {
      const path = servedPath.replace(/\.(?:br|gz)$/, '');
      reply.header('x-content-type-options', 'nosniff');
      if (path.endsWith('.html')) {
        reply.header('cache-control', 'no-cache');
        reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
        reply.header('referrer-policy', 'no-referrer');
      } else if (path.includes(`${join('/', 'assets', '/')}`)) {
        // Vite puts a content hash in every asset name: it can be cached for good.
        reply.header('cache-control', 'public, max-age=31536000, immutable');
      }
    },
  });
}
