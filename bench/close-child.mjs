// close-child.mjs -- one run of the close() check, in a process of its own
// (bench/close-loop.mjs and tests/js/close.test.js start it).
// Owns: nothing shared. Usage: node close-child.mjs THREADS MODE [LINGER_MS]:
// MODE 'sync' (a few encode calls, close() at once: the workers may not
// even have started), 'settled' (encodeAsync calls awaited, then close()),
// 'early' (encodeAsync calls, close() in the same turn) or 'inflight'
// (close() a turn later, tasks running on workers and queued). The process
// then lives on LINGER_MS (default 400: idle workers wake every 100 ms,
// which is when a freed one crashed). Exits 0 and prints one JSON line when
// every call resolved or rejected with CLOSED and no rejection went
// unhandled; a worker's crash exits non-zero.
import { createScratchpack } from '../js/index.js';

const threads = Number(process.argv[2] ?? 2);
const mode = process.argv[3] ?? 'settled';
let unhandled = 0;
process.on('unhandledRejection', (e) => { unhandled++; console.error('unhandled rejection:', e); });

const sp = await createScratchpack({ threads });
// A small object and array (encoded here) and two arrays big enough for
// the workers (js/tasks.js, INLINE_MAX_BYTES).
const values = [
  { a: 1, b: 'two', c: [3, 4, 5] },
  new Float64Array(1000).map((_, i) => i / 3),
  new Float64Array(100000).map((_, i) => i / 3),
  new Int32Array(300000).map((_, i) => i * 7),
];
for (const v of values) sp.encode(v);
const outcome = { resolved: 0, closed: 0 };
const tally = (p) => p.then(() => { outcome.resolved++; }, (e) => {
  if (e?.code !== 'CLOSED') throw e;
  outcome.closed++;
});
if (mode === 'sync') {
  sp.close();                       // right after start: the workers may not run yet
} else if (mode === 'settled') {
  for (const v of values) await tally(sp.encodeAsync(v));
  sp.close();
} else {
  const calls = [];
  for (let i = 0; i < 4 * threads + 4; i++) calls.push(sp.encodeAsync(values[i % values.length]));
  // 'inflight': some have reached the workers, some are queued; 'early':
  // close in the same turn as the calls.
  if (mode === 'inflight') await new Promise((resolve) => setImmediate(resolve));
  sp.close();
  await Promise.all(calls.map(tally));
}
let after = null;
try { sp.encode(1); } catch (e) { after = e.code; }
if (after !== 'CLOSED') throw new Error(`encode after close() gave ${after}, not CLOSED`);
await new Promise((resolve) => setTimeout(resolve, Number(process.argv[4] ?? 400)));
if (unhandled > 0) process.exit(3);
console.log(JSON.stringify({ threads, mode, ...outcome }));
