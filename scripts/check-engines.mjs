// CI calls this after `npm ci`: every package the service loads at run time must accept the
// oldest Node of each line that package.json's `engines` promises. npm only warns about a
// mismatch, and a dependency whose new major asks for Node 22 would otherwise slip in with a
// routine update. Development tools (devDependencies) are left out: they may need a newer Node.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';

const own = JSON.parse(readFileSync('package.json', 'utf8'));
const promised = own.engines.node;
// The lowest version of each `||` alternative: 20.19.0, 22.12.0 and 24.0.0 for our range.
const oldest = promised.split('||').map((part) => semver.minVersion(part.trim()).version);

const parseable = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { encoding: 'utf8' });
const directories = [...new Set(parseable.split('\n').filter(Boolean))];

const conflicts = [];
for (const directory of directories.slice(1)) {
  const manifest = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8'));
  const wanted = manifest.engines?.node;
  if (typeof wanted !== 'string') continue;
  const refused = oldest.filter((version) => !semver.satisfies(version, wanted));
  if (refused.length > 0)
    conflicts.push(`${manifest.name}@${manifest.version} wants node ${wanted}; refuses ${refused.join(', ')}`);
}

if (conflicts.length > 0) {
  console.error(`Runtime dependencies that do not run on every Node that engines (${promised}) promises:`);
  for (const conflict of conflicts) console.error(`  ${conflict}`);
  console.error('Pin an older line (package.json "overrides") or change engines.');
  process.exit(1);
}
console.log(`engines ${promised}: ${directories.length - 1} runtime packages accept Node ${oldest.join(', ')}`);
