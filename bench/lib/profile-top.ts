import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { runMain } from './run-main.js';

// `node dist/bench/lib/profile-top.js <file.cpuprofile> [--top 25] [--after-ms N]`: what a V8 CPU
// profile (a server run with --cpu-prof, as `bench:queue -- --cpu-prof DIR` does) spent its time
// in. Prints JSON lines: the busy share of the window, self time by where the code comes from
// (agentdesk's own, each package, Node's internals, GC), and the top functions by self time.
// `--after-ms` skips the start of the profile (start-up, warm-up, the submits), so a window of
// one phase can be read. `--inclusive` lists functions by their total time (their callees' too)
// instead, which is how to see what a route, a hook or a serializer costs as a whole.
// Caution: V8 samples wall time, so a native call that blocks or is preempted (writev to a
// loopback socket, which wakes the peer) counts here more than it costs in CPU; /proc's
// utime and stime (bench:queue) are the CPU figures.

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: 'string', default: '25' },
    'after-ms': { type: 'string', default: '0' },
    inclusive: { type: 'boolean', default: false },
  },
});

/** Where a frame's code comes from: a package, agentdesk's own source, Node, or V8's bookkeeping. */
function originOf(url: string, name: string): string {
  if (url === '') return name.startsWith('(') ? name : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return 'node';
  const own = /\/dist\/(src\/[^/]+)/.exec(url);
  return own ? `agentdesk ${own[1]}` : url;
}

async function main(): Promise<void> {
  const file = positionals[0];
  if (!file) throw new Error('usage: profile-top <file.cpuprofile> [--top N] [--after-ms N]');
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const afterUs = Number(args['after-ms']) * 1_000;
  const self = new Map<number, number>();
  let at = 0;
  let windowUs = 0;
  for (let i = 0; i < profile.samples.length; i += 1) {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at < afterUs) continue;
    windowUs += delta;
    self.set(profile.samples[i]!, (self.get(profile.samples[i]!) ?? 0) + delta);
  }
  const frameName = (node: ProfileNode) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url === '' ? '' : ` ${url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${lineNumber + 1}`;
    return `${functionName || '(anonymous)'}${where}`;
  };
  if (args.inclusive) {
    const parent = new Map<number, number>();
    for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
    const total = new Map<string, number>();
    let busyUs = 0;
    for (const [id, us] of self) {
      if (byId.get(id)!.callFrame.functionName === '(idle)') continue;
      busyUs += us;
      const names = new Set<string>();
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) names.add(frameName(byId.get(at)!));
      for (const name of names) total.set(name, (total.get(name) ?? 0) + us);
    }
    for (const [frame, us] of [...total].sort((a, b) => b[1] - a[1]).slice(0, Number(args.top))) {
      process.stdout.write(
        `${JSON.stringify({ frame, total_ms: Math.round(us / 1_000), pct_of_busy: Math.round((1000 * us) / Math.max(busyUs, 1)) / 10 })}\n`,
      );
    }
    return;
  }
  const byOrigin = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let idle = 0;
  for (const [id, us] of self) {
    const { functionName, url } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') {
      idle += us;
      continue;
    }
    const origin = originOf(url, functionName);
    byOrigin.set(origin, (byOrigin.get(origin) ?? 0) + us);
    const key = frameName(byId.get(id)!);
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  }
  const busy = windowUs - idle;
  const pct = (us: number) => Math.round((1000 * us) / Math.max(busy, 1)) / 10;
  const print = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);
  print({
    window_ms: Math.round(windowUs / 1_000),
    busy_ms: Math.round(busy / 1_000),
    busy_pct: Math.round((1000 * busy) / Math.max(windowUs, 1)) / 10,
  });
  for (const [origin, us] of [...byOrigin].sort((a, b) => b[1] - a[1]).slice(0, 15))
    print({ origin, self_ms: Math.round(us / 1_000), pct_of_busy: pct(us) });
  for (const [frame, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, Number(args.top))) {
    print({ frame, self_ms: Math.round(us / 1_000), pct_of_busy: pct(us) });
  }
}

runMain(main);
