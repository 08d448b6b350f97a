import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

// The UI is served by the work service from web/dist, on the same origin as the API, so the dev
// server proxies the API paths to a locally running work service (WORK_URL).
const workUrl = process.env.WORK_URL ?? 'http://127.0.0.1:8080';
const apiPaths = ['/work', '/projects', '/events', '/ui-api', '/health', '/session', '/tokens'] as const;

export default defineConfig({
  root,
  base: './',
  plugins: [preact({ reactAliasesEnabled: false })],
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
