import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { runMain } from './run-main.js';

// `node dist/bench/lib/profile-top.js <file.cpuprofile> [--top 25] [--after-ms N] [--inclusive]`: where a V8 CPU
// profile spent its time: the busy share, self time by origin (ours, each package, Node, GC), the top functions.
// V8 samples wall time: a native call that blocks (writev waking its peer) counts more than its CPU.

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
    /** Skips the profile's start (start-up, warm-up, the submits), so one phase's window can be read. */
    'after-ms': { type: 'string', default: '0' },
    /** Functions by their total time, callees' too: what a route, a hook or a serializer costs as a whole. */
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
