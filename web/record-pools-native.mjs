// record-pools-native.mjs -- records what the native pool fan-out benchmark
// (bench/pool_fanout.c, the native half of `npm run bench:pools`) measures
// with 3 returning threads, for the page to show beside its live figures,
// labelled as native and recorded: ns per return for the shared pool, the
// lock-free pool and no pool, with what, where and when. Writes
// web/recorded/pools-native.json.
//   npm run bench:pools   (builds build-bench/bench/bench_pool_fanout), then
//   node web/record-pools-native.mjs [path/to/bench_pool_fanout] [out.json]
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { availableParallelism, arch } from 'node:os';
import { fileURLToPath } from 'node:url';

const bin = process.argv[2] || fileURLToPath(new URL('../build-bench/bench/bench_pool_fanout', import.meta.url));
const out = process.argv[3] || new URL('./recorded/pools-native.json', import.meta.url);
const text = execFileSync(bin, { env: { ...process.env, SP_FANOUT_THREADS: '3' }, encoding: 'utf8' });
const names = { shared: 'shared', lockfree: 'lockfree', 'no pool': 'nopool' };
const ns = {};
for (const line of text.split('\n')) {
  const m = /^\s*(?:3\s+)?(shared|lockfree|no pool)\s+[\d.]+\s+([\d.]+)\s/.exec(line);
  if (m) ns[names[m[1]]] = Number(m[2]);
}
if (Object.keys(ns).length !== 3) throw new Error(`could not read the three rows from ${bin}:\n${text}`);
const day = new Date().toISOString().slice(0, 10);
const data = { ns, consumers: 3, what: `native (${arch()}, ${availableParallelism()} cores, ${day}), bench/pool_fanout.c, the native half of npm run bench:pools` };
writeFileSync(out, `${JSON.stringify(data, null, 1)}\n`);
console.error(`wrote ${out}: ${JSON.stringify(ns)}`);
