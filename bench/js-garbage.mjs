// bench/js-garbage.mjs -- JS heap garbage per call and GC events per 100k
// calls when encoding ~2 KB records: scratchpack's encode() and encodeInto()
// (a reused target) beside msgpackr's pack() and a Packr's pack() into a
// reused buffer (useBuffer), measured in the same run.
// msgpackr keeps the buffer it writes into in one module-level variable that
// every Packr and its pack() share (msgpackr#139): after useBuffer(1 MiB) on
// any Packr, pack() writes in that buffer and allocates its next ones at
// 1 MiB, far less often than the 8 KiB ones it allocates otherwise. The
// useBuffer jobs therefore use a module instance of their own, and pack()
// is measured twice: as a service that only calls pack() has it (the
// comparison), and in that second instance after useBuffer.
//
//   npm run bench:garbage             (node --expose-gc bench/js-garbage.mjs [rounds])
//   node --expose-gc bench/js-garbage.mjs --sites   (also where our garbage is allocated)
//
// Method: after a full gc(), 100,000 calls under v8.GCProfiler, which
// reports every GC synchronously with V8's used heap before and after it.
// Bytes allocated = the used heap's growth over the calls + what each GC
// in between freed; divided by the calls. GC events = the GCs it reported
// (scavenges and mark-compacts). Why this and not --trace-gc or a
// PerformanceObserver: --trace-gc counts collections, not bytes, and the
// observer's 'gc' entries arrive later, on another turn, so a window of
// calls cannot be matched to them exactly; the profiler's are exact.
// Figures are medians of `rounds` runs (default 5), jobs interleaved;
// typed arrays' bytes outside the V8 heap (a result's backing store) are
// not in them (its JS object is).
// --sites: V8's sampling heap profiler (node:inspector), keeping objects
// the minor and major GCs collected, over 20,000 calls of each of ours:
// the functions that allocate, by bytes.
import { Session } from 'node:inspector/promises';
import v8 from 'node:v8';

import { pack } from 'msgpackr';

import { contract, createScratchpack } from '../js/index.js';

if (typeof globalThis.gc !== 'function') {
  console.error('run with node --expose-gc (npm run bench:garbage does)');
  process.exit(2);
}
const args = process.argv.slice(2);
const SITES = args.includes('--sites');
const ROUNDS = Number(args.find((a) => /^\d+$/.test(a)) || 5);
const CALLS = 100000;

// A ~2 KB record: 51 objects and arrays, strings short and long, ints, floats.
function record(i) {
  const items = [];
  for (let k = 0; k < 16; k++) {
    items.push({ sku: `SKU-${(i * 31 + k) % 100000}`, qty: k + 1, price: 9.99 + k * 0.5,
      attrs: { color: ['red', 'green', 'blue'][k % 3], size: k % 2 ? 'L' : 'M' } });
  }
  const history = [];
  for (let k = 0; k < 12; k++) history.push({ t: 1700000000 + i * 60 + k, ev: k % 2 ? 'viewed' : 'added-to-cart' });
  return {
    id: i, uuid: `6f1c${i.toString(16).padStart(8, '0')}-aa1b-4c5d-9e8f-0123456789ab`,
    name: `Customer number ${i}`, email: `customer.${i}@example.com`,
    active: i % 2 === 0, score: i * 1.25 + 0.1, balance: -1234.5 + i,
    tags: ['new', 'vip', 'newsletter', 'mobile', 'eu'],
    address: { street: `${i} Long Street Name Avenue`, city: 'Springfield', zip: '12345', geo: { lat: 48.85 + i / 1e4, lng: 2.35 } },
    note: 'A longer free-text note about this customer, written by support staff, with some detail.',
    items, history,
  };
}

const sp = await createScratchpack();                       // results: 'pooled' under Node
const spOwn = await createScratchpack({ results: 'own' });
const records = Array.from({ length: 64 }, (_, i) => record(i));
const size = sp.encode(records[0]).length;
const target = new Uint8Array(64 * 1024);
const other = await import(new URL('pack.js?useBuffer', import.meta.resolve('msgpackr')));
const packr = new other.Packr({ useRecords: false });
packr.useBuffer(Buffer.alloc(1 << 20));
const packShared = other.pack;     // the second instance's pack(): its module buffer is the 1 MiB one now
let sink = 0;
let at = 0;
const next = () => records[(at = (at + 1) & 63)];
// The same records with integers for their fractions and other key names
// (so that V8 gives them shapes of their own, whose fields hold small
// integers, not doubles): what is left once no double is boxed.
const intRecords = records.map(function ints(v) {
  if (typeof v === 'number') return Math.trunc(v);
  if (Array.isArray(v)) return v.map(ints);
  if (v === null || typeof v !== 'object') return v;
  const o = {};
  for (const k of Object.keys(v)) o[`_${k}`] = ints(v[k]);
  return o;
});
const nextInt = () => intRecords[(at = (at + 1) & 63)];
// The record as a contract (map form: the same keys written): its generated
// encoder reads each field by name, which V8 compiles to a load of the
// double itself, so a fraction needs no HeapNumber -- the generic walk reads
// fields by a key it learns at run time (for-in), a load V8 always boxes.
const Item = contract({ sku: 'string', qty: 'uint32', price: 'float64',
  attrs: contract({ color: 'string', size: 'string' }) });
const Rec = contract({
  id: 'uint32', uuid: 'string', name: 'string', email: 'string', active: 'bool', score: 'float64', balance: 'float64',
  tags: ['string'],
  address: contract({ street: 'string', city: 'string', zip: 'string', geo: contract({ lat: 'float64', lng: 'float64' }) }),
  note: 'string', items: [Item], history: [contract({ t: 'uint32', ev: 'string' })],
});
const viaRec = { contract: Rec };
// The floor of any generic walk: every value read by a key learned at run
// time (for-in, as a generic encoder must), numbers summed into a reused
// Float64Array, nothing written. Whatever this allocates, V8 does for the
// reads alone.
const acc = new Float64Array(1);
function walk(v) {
  if (typeof v === 'number') { acc[0] += v; return; }
  if (v === null || typeof v !== 'object') return;
  if (Array.isArray(v)) { for (let i = 0; i < v.length; i++) walk(v[i]); return; }
  for (const k in v) walk(v[k]);
}
const jobs = [
  { name: 'scratchpack encode()', ours: true, f: () => { sink ^= sp.encode(next()).length; } },
  { name: "scratchpack encode(), results 'own'", ours: true, f: () => { sink ^= spOwn.encode(next()).length; } },
  { name: 'scratchpack encodeInto(reused)', ours: true, f: () => { sink ^= sp.encodeInto(next(), target); } },
  { name: 'msgpackr pack()', f: () => { sink ^= pack(next()).length; } },
  { name: 'msgpackr Packr.pack (useBuffer)', f: () => { sink ^= packr.pack(next()).length; } },
  { name: 'msgpackr pack(), after useBuffer', f: () => { sink ^= packShared(next()).length; } },
  { name: 'scratchpack encodeInto, contract', ours: true, f: () => { sink ^= sp.encodeInto(next(), target, viaRec); } },
  { name: 'scratchpack encode(), integers', ours: true, f: () => { sink ^= sp.encode(nextInt()).length; } },
  { name: 'scratchpack encodeInto, integers', ours: true, f: () => { sink ^= sp.encodeInto(nextInt(), target); } },
  { name: 'msgpackr pack(), integers', f: () => { sink ^= pack(nextInt()).length; } },
  { name: 'a bare for-in walk (no encoding)', f: () => { walk(next()); } },
  { name: 'a bare for-in walk, integers', f: () => { walk(nextInt()); } },
];

const used = () => v8.getHeapStatistics().used_heap_size;

function run(f, n) {
  for (let i = 0; i < n; i++) f();
}

// { bytes per call, GCs } over CALLS calls after a full gc(): what the used
// heap grew by, plus what each GC in between freed (GCProfiler reports
// every GC synchronously, with the used heap before and after it).
function measure(f) {
  gc(); gc();
  const profiler = new v8.GCProfiler();
  profiler.start();
  const u0 = used();
  run(f, CALLS);
  const u1 = used();
  const { statistics } = profiler.stop();
  let freed = 0;
  for (const g of statistics) freed += g.beforeGC.heapStatistics.usedHeapSize - g.afterGC.heapStatistics.usedHeapSize;
  return { bytes: (u1 - u0 + freed) / CALLS, gcs: statistics.length };
}

const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];

console.log(`JS heap garbage encoding ~2 KB records (${size} B of MessagePack), node ${process.version}: ` +
  `median of ${ROUNDS} runs of ${CALLS} calls each, interleaved (these figures do not depend on speed or load)`);
for (const j of jobs) { run(j.f, 20000); j.bytes = []; j.gcs = []; }    // optimized before measuring
for (let r = 0; r < ROUNDS; r++) {
  for (const j of r % 2 ? [...jobs].reverse() : jobs) {
    const m = measure(j.f);
    j.bytes.push(m.bytes);
    j.gcs.push(m.gcs);
  }
}
for (const j of jobs) { j.bytes = median(j.bytes); j.gcs = median(j.gcs); }
// What is left of ours is V8's, not the walk's: 16 bytes for each of the
// record's 20 fractional numbers (a double read out of an object field is
// a new HeapNumber; the integer rows have none), and encode()'s result, a
// Uint8Array: a view of the instance's pooled array (as msgpackr's pack()
// returns a view of a buffer it shares between results), or over an
// ArrayBuffer of its own (results: 'own'). The bare walk's rows show the
// first part without any encoder.
// Ours against pack() as it runs by default, and (the fraction rows) against
// pack() in the module whose buffer useBuffer(1 MiB) left behind.
const byName = (name) => jobs.find((x) => x.name === name).bytes;
for (const j of jobs) {
  const ints = j.name.endsWith('integers');
  const peer = byName(ints ? 'msgpackr pack(), integers' : 'msgpackr pack()');
  console.log(`  ${j.name.padEnd(34)} ${j.bytes.toFixed(0).padStart(6)} B/call  ${String(j.gcs).padStart(4)} GCs/100k calls` +
    (j.ours ? `   ${(j.bytes / peer).toFixed(2)}x msgpackr pack()'s bytes` : '') +
    (j.ours && !ints ? `, ${(j.bytes / byName('msgpackr pack(), after useBuffer')).toFixed(2)}x after useBuffer` : ''));
}

if (SITES) {
  const SITE_CALLS = 20000;
  const session = new Session();
  session.connect();
  for (const j of jobs.filter((x) => x.ours && !x.name.endsWith('integers'))) {
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true,
    });
    run(j.f, SITE_CALLS);
    const { profile } = await session.post('HeapProfiler.stopSampling');
    const by = new Map();
    let total = 0;
    const visit = (node, stack) => {
      const fr = node.callFrame;
      const here = `${fr.functionName || '(anonymous)'} ${fr.url.split('/').pop()}:${fr.lineNumber + 1}`;
      if (node.selfSize > 0) {
        const key = `${here}  <- ${stack}`;
        by.set(key, (by.get(key) || 0) + node.selfSize);
        total += node.selfSize;
      }
      for (const c of node.children) visit(c, here);
    };
    visit(profile.head, '');
    console.log(`\n  where ${j.name} allocates (sampled, ${(total / SITE_CALLS).toFixed(0)} B/call):`);
    for (const [k, b] of [...by].sort((a, b) => b[1] - a[1]).slice(0, 8))
      console.log(`    ${(b / SITE_CALLS).toFixed(1).padStart(7)} B/call  ${k}`);
  }
  session.disconnect();
}
sp.close();
spOwn.close();
if (sink === 0.5) console.log(sink);
