import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import preact from '@preact/preset-vite';
import { defineConfig, type Plugin } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

// The UI is served by the work service from web/dist, on the same origin as the API, so the dev
// server proxies the API paths to a locally running work service (WORK_URL).
const workUrl = process.env.WORK_URL ?? 'http://127.0.0.1:8080';
const apiPaths = ['/work', '/projects', '/questions', '/events', '/ui-api', '/health', '/session', '/tokens'] as const;

const COMPRESSIBLE = /\.(?:js|css|html|svg|json)$/;

/**
 * Writes a brotli and a gzip copy beside each text file of the build, once, at the highest
 * levels: the work service serves them as they are (@fastify/static `preCompressed`), so the
 * dashboard's first paint does not wait for 150 kB of script and no request pays to compress.
 */
function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'agentdesk-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      const visit = (dir: string): void => {
        for (const entry of readdirSync(dir, { withFileTypes: true })) {
          const path = join(dir, entry.name);
          if (entry.isDirectory()) visit(path);
          else if (COMPRESSIBLE.test(entry.name)) {
            const raw = readFileSync(path);
            const br = brotliCompressSync(raw, {
              params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length },
            });
            const gz = gzipSync(raw, { level: 9 });
            if (br.length < raw.length) writeFileSync(`${path}.br`, br);
            if (gz.length < raw.length) writeFileSync(`${path}.gz`, gz);
          }
        }
      };
      visit(outDir);
    },
  };
}

export default defineConfig({
  root,
  base: './',
  plugins: [preact({ reactAliasesEnabled: false }), precompress()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // Every supported browser has modulepreload; the polyfill would only add bytes.
    modulePreload: { polyfill: false },
  },
  server: {
    proxy: Object.fromEntries(apiPaths.map((p) => [p, { target: workUrl, changeOrigin: false }])),
  },
});
