// bench/js-async.mjs -- what encodeAsync costs against encode, and how a
// flood of calls drains.
//
//   npm run bench:async             (node bench/js-async.mjs [flood sizes...])
//
// Owns: nothing shared; reads the instance's queue (sp._tasks) only to force
// the worker path for the crossover table. Three parts, all at threads: 2:
//   1. Per call, typed arrays of 10 KB, 80 KB and 1 MB: encode, encodeAsync
//      awaited one at a time, encodeAsync 64 at once (Promise.all), and
//      msgpackr's pack of the same array (it writes a typed array as an
//      extension, not an array: a reference for the cost of a copy-out, not
//      the same output). Medians of 5 rounds, interleaved.
//   2. The crossover: encode against a forced worker task, by size; where
//      the worker starts to win is where encodeAsync stops encoding here
//      (js/tasks.js, INLINE_MAX_BYTES).
//   3. Floods: N calls of a 16-element Float64Array submitted in one loop
//      (default 200,000 and 100,000): time to submit, time until all have
//      settled, event-loop delay (perf_hooks.monitorEventLoopDelay, 1 ms
//      resolution) p99 and max while it drains, and how many calls resolved
//      after a later call of the same instance; beside it the same flood
//      done yourself (diy: msgpackr's pack in a setImmediate per call,
//      which writes an extension, not an array) and the runtime's floor
//      (floor: the same number of bare promises settled as encodeAsync
//      settles them, no encoding: the delay the pending promises alone
//      cost); then 20,000 equal calls forced onto the workers.
// SP_BENCH_PART=calls, crossover or floods runs one part alone.
// The machine may be loaded: read ratios, not absolute times.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Packr } from 'msgpackr';

import { createScratchpack } from '../js/index.js';

const floods = process.argv.slice(2).map(Number).filter((n) => n > 0);
if (floods.length === 0) floods.push(200000, 100000);
const ROUNDS = 5;
const packr = new Packr();

const part = process.env.SP_BENCH_PART || 'all';
const runs = (name) => part === 'all' || part === name;
const sp = await createScratchpack({ threads: 2 });
const f64 = (bytes) => Float64Array.from({ length: bytes / 8 }, (_, i) => i / 3 + (i & 7) * 1e9);
const median = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
const us = (ms) => (ms * 1000).toFixed(1).padStart(9);
const callsFor = (bytes) => Math.max(20, Math.min(2000, Math.floor(40e6 / bytes)));

async function perCall(fn, n) {
  const t0 = performance.now();
  await fn(n);
  return (performance.now() - t0) / n;
}

// One round of each way, interleaved; medians per way.
async function measure(ways, n) {
  const t = Object.fromEntries(Object.keys(ways).map((k) => [k, []]));
  for (const f of Object.values(ways)) await f(Math.min(n, 20));    // warm-up
  for (let r = 0; r < ROUNDS; r++) for (const [k, f] of Object.entries(ways)) t[k].push(await perCall(f, n));
  return Object.fromEntries(Object.entries(t).map(([k, v]) => [k, median(v)]));
}

const encodeLoop = (v) => async (n) => { for (let i = 0; i < n; i++) sp.encode(v); };
const asyncOne = (v) => async (n) => { for (let i = 0; i < n; i++) await sp.encodeAsync(v); };
const asyncMany = (v) => async (n) => {
  for (let i = 0; i < n; i += 64) await Promise.all(Array.from({ length: Math.min(64, n - i) }, () => sp.encodeAsync(v)));
};
const packLoop = (v) => async (n) => { for (let i = 0; i < n; i++) packr.pack(v); };

if (runs('calls')) {
console.log(`scratchpack encodeAsync vs encode, threads ${sp.threads} (µs per call; median of ${ROUNDS})`);
console.log('size       encode  encodeAsync  ratio   async x64  ratio   msgpackr pack');
for (const kb of [10, 80, 160, 256, 512, 1024]) {
  const v = f64(kb * 1024);
  const m = await measure({ encode: encodeLoop(v), one: asyncOne(v), many: asyncMany(v), pack: packLoop(v) },
    callsFor(v.byteLength));
  console.log(`${String(kb).padStart(5)} KB ${us(m.encode)} ${us(m.one)}  ${(m.one / m.encode).toFixed(2).padStart(5)}x ` +
    `${us(m.many)}  ${(m.many / m.encode).toFixed(2).padStart(5)}x ${us(m.pack)}`);
}
}

// The crossover: a worker task (forced) against encode here.
const tasks = sp._tasks;
const inlineMax = tasks.inlineMax;
if (runs('crossover')) {
console.log('\ncrossover: encode here vs a worker task (forced), awaited one at a time (µs per call)');
console.log('size       encode   worker  worker/encode');
let crossover = null;
for (const kb of [16, 32, 64, 128, 256, 512, 1024, 2048]) {
  const v = f64(kb * 1024);
  tasks.inlineMax = 0;
  const m = await measure({ encode: encodeLoop(v), worker: asyncOne(v) }, callsFor(v.byteLength));
  tasks.inlineMax = inlineMax;
  const r = m.worker / m.encode;
  if (crossover === null && r < 1) crossover = kb;
  console.log(`${String(kb).padStart(5)} KB ${us(m.encode)} ${us(m.worker)}  ${r.toFixed(2)}x`);
}
console.log(`the worker wins from ${crossover === null ? 'no size measured' : `${crossover} KB`}` +
  ` (INLINE_MAX_BYTES now ${inlineMax === undefined ? 'absent' : `${inlineMax / 1024} KB`})`);
}

// Doing it yourself: msgpackr's pack in a setImmediate per call.
const diy = (v) => new Promise((resolve) => setImmediate(() => resolve(packr.pack(v))));

// The runtime's floor: the same flood with no encoding at all -- one pending
// promise per call, resolved in submission order at most 512 per turn (as
// encodeAsync settles) with bytes of the size encodeAsync returns. Whatever
// delay this shows, the promises the caller holds cost on this machine.
const floorQueue = [];
let floorHead = 0, floorScheduled = false;
function floorTurn() {
  floorScheduled = false;
  for (let k = 0; k < 512 && floorHead < floorQueue.length; k++) {
    const [resolve, bytes] = floorQueue[floorHead];
    floorQueue[floorHead++] = undefined;
    resolve(new Uint8Array(bytes));
  }
  if (floorHead < floorQueue.length) { floorScheduled = true; setImmediate(floorTurn); }
  else { floorQueue.length = 0; floorHead = 0; }
}
const floor = (v) => new Promise((resolve) => {
  floorQueue.push([resolve, v.length * 9 + 3]);
  if (!floorScheduled) { floorScheduled = true; setImmediate(floorTurn); }
});

async function flood(n, v, how) {
  const forceWorker = how === 'worker';
  if (forceWorker) tasks.inlineMax = 0;
  const h = monitorEventLoopDelay({ resolution: 1 });
  let last = -1, late = 0;
  const t0 = performance.now();
  const calls = new Array(n);
  for (let i = 0; i < n; i++) {
    calls[i] = (how === 'diy' ? diy(v) : how === 'floor' ? floor(v) : sp.encodeAsync(v)).then(() => {
      if (i < last) late++;
      else last = i;
    });
  }
  const submitted = performance.now();
  h.enable();
  await Promise.all(calls);
  const settled = performance.now();
  h.disable();
  tasks.inlineMax = inlineMax;
  const ms = (ns) => (ns / 1e6).toFixed(1);
  console.log(`${String(n).padStart(7)} ${how.padEnd(6)} submit ${(submitted - t0).toFixed(0).padStart(6)} ms, ` +
    `settled after ${((settled - t0) / 1000).toFixed(2).padStart(6)} s; ` +
    (h.count === 0 ? 'loop delay: no sample (the loop never turned while it drained)'
      : `loop delay p99 ${ms(h.percentile(99))} ms, max ${ms(h.max)} ms (${h.count} samples)`) +
    `; ${late} resolved after a later call`);
}

if (runs('floods')) {
  console.log('\nfloods (calls submitted in one loop)');
  for (const n of floods) {
    await flood(n, f64(128), 'small');
    await flood(n, f64(128), 'floor');
    await flood(n, f64(128), 'diy');
  }
  await flood(20000, f64(8000), 'worker');
}
sp.close();
