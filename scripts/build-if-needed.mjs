// `npm start` calls this: rebuild the server or the web UI only when a source is newer than
// what was built, so a second start is instant and a fresh clone still just works.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newest(paths) {
  let latest = 0;
  const visit = (path) => {
    if (!existsSync(path)) return;
    const stat = statSync(path);
    if (stat.isDirectory()) {
      for (const entry of readdirSync(path)) if (entry !== 'node_modules' && entry !== 'dist') visit(join(path, entry));
    } else {
      latest = Math.max(latest, stat.mtimeMs);
    }
  };
  paths.forEach(visit);
  return latest;
}

function builtAt(path) {
  return existsSync(path) ? statSync(path).mtimeMs : 0;
}

const run = (command) => execSync(command, { stdio: 'inherit' });

// A first start builds for half a minute with nothing else to show: say so, or it looks hung.
const say = (what) => process.stderr.write(`agentdesk: building ${what} (sources changed since the last build)…\n`);

if (
  newest(['src', 'migrations', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json']) >
  builtAt('dist/src/main.js')
) {
  say('the server');
  run('npm run --silent build:server');
}
if (existsSync('web/vite.config.ts') && newest(['web', 'src/work/api-contract.ts']) > builtAt('web/dist/index.html')) {
  say('the web UI');
  run('npm run --silent build:web');
}
