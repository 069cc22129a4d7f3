// bench/js-contract.mjs -- typed contracts against msgpackr, in one run.
// b.records (DESIGN.md: 1,000 x {id, name, score, tags[3]}) encoded and
// decoded through contract() in the array form (keys: 'index') and the map
// form (keys: 'name'), through scratchpack's generic path, and by msgpackr's
// pack/unpack (records off: its standard map form) -- all interleaved in one
// process, in CPU time. Then the heap each decode leaves, against the size
// of its result objects.
// Each ratio is measured in pairs: every round runs a batch of the job and
// a batch of msgpackr's right after or right before it (alternating), and
// the ratio printed is the median of the rounds' ratios, with their range.
// The load of a shared machine changes over seconds, more than between two
// batches side by side, so paired ratios vary far less from run to run than
// the ratio of two medians taken a second apart (ops/s: the job's median).
//
//   npm run bench:contract          (node --expose-gc bench/js-contract.mjs [roundMs] [rounds])
//
// Goals (issue 23): array form encode and decode >= 2.5x msgpackr pack and
// unpack; map form >= 1.5x. The ratios are only meaningful measured
// together; absolute figures drift on a shared machine.
import { isNativeAccelerationEnabled, pack, unpack } from 'msgpackr';

import { contract, createScratchpack, decode } from '../js/index.js';

const ROUND_MS = Number(process.argv[2] || 50);
const ROUNDS = Number(process.argv[3] || 15);
const WARMUP = 2;

const sp = await createScratchpack();

const tags = ['red', 'green', 'blue', 'black', 'white'];
const records = Array.from({ length: 1000 }, (_, i) => ({
  id: i,
  name: `user-${String((i * 7919) >>> 0).padStart(11, '0')}`,
  score: i * 1.25 + 0.1,
  tags: [tags[i % 5], tags[(i + 1) % 5], tags[(i + 2) % 5]],
}));

const fields = { id: 'uint32', name: 'string', score: 'float64', tags: ['string'] };
const forms = {
  array: contract(fields, { keys: 'index', name: 'Record' }).array(),
  map: contract(fields, { keys: 'name', name: 'Record' }).array(),
  'array, closures': contract(fields, { keys: 'index', name: 'Record', compile: false }).array(),
  'map, closures': contract(fields, { keys: 'name', name: 'Record', compile: false }).array(),
};
const bytes = {};
for (const [k, c] of Object.entries(forms)) bytes[k] = sp.encode(records, { contract: c });
const generic = sp.encode(records);
const mr = pack(records);

// ---- timing (as bench/js-bench.mjs, but in CPU time) -----------------------------
// The process's CPU time (user + system, every thread: GC helpers too), not
// the wall clock: on a machine shared by many, a job that loses the CPU
// to another process is not charged for the time it waited.
let sink = 0;
const now = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
function batch(f, n) {
  const t0 = now();
  for (let i = 0; i < n; i++) {
    const r = f();
    sink = (sink + (r?.length ?? 1)) | 0;
  }
  return now() - t0;
}
function calibrate(f) {
  for (let n = 1; ; n *= 4) {
    const t = batch(f, n);
    if (t > ROUND_MS / 5) return Math.max(1, Math.round((n * ROUND_MS) / t));
  }
}
// jobs[0] is the peer: every other job's rounds are paired with a batch of it.
function measure(jobs) {
  const peer = jobs[0];
  for (const j of jobs) { j.n = calibrate(j.f); j.ops = []; j.ratios = []; }
  for (let r = 0; r < WARMUP + ROUNDS; r++) {
    for (const j of r % 2 ? [...jobs].reverse() : jobs) {
      if (j === peer) continue;
      const pair = r % 2 ? [j, peer] : [peer, j];
      const t = pair.map((x) => batch(x.f, x.n) / x.n);
      if (r < WARMUP) continue;
      const [tj, tp] = r % 2 ? t : [t[1], t[0]];
      j.ops.push(1000 / tj);
      peer.ops.push(1000 / tp);
      j.ratios.push(tp / tj);
    }
  }
  const median = (a) => a.slice().sort((x, y) => x - y)[Math.floor(a.length / 2)];
  for (const j of jobs) {
    j.median = median(j.ops);
    j.ratio = j === peer ? 1 : median(j.ratios);
    j.range = j === peer ? '' : `${Math.min(...j.ratios).toFixed(2)}-${Math.max(...j.ratios).toFixed(2)}`;
  }
  return jobs;
}
const fmt = (x) => (x >= 1e6 ? `${(x / 1e6).toFixed(2)}M` : x >= 1e3 ? `${(x / 1e3).toFixed(2)}k` : x.toFixed(0));

const enc = [
  { name: 'msgpackr pack()', f: () => pack(records) },
  { name: 'sp.encode (generic)', f: () => sp.encode(records) },
  ...Object.entries(forms).map(([k, c]) => ({ name: `sp.encode contract (${k})`, form: k, f: () => sp.encode(records, { contract: c }) })),
  { name: 'Record[].encode (array, no WASM)', form: 'array', f: () => forms.array.encode(records) },
];
const dec = [
  { name: 'msgpackr unpack()', f: () => unpack(mr) },
  { name: 'sp.decode (generic)', f: () => sp.decode(generic) },
  { name: 'decode (generic, no instance)', f: () => decode(generic) },
  ...Object.entries(forms).map(([k, c]) => ({ name: `sp.decode contract (${k})`, form: k, f: () => sp.decode(bytes[k], { contract: c }) })),
];

console.log(`b.records: 1,000 records; msgpackr ${isNativeAccelerationEnabled ? 'with' : 'without'} its native addon; ` +
  `${ROUNDS} rounds of ~${ROUND_MS} ms, interleaved`);
console.log(`bytes: array form ${bytes.array.length}, map form ${bytes.map.length}, generic ${generic.length}, msgpackr ${mr.length}\n`);
measure(enc);
measure(dec);
const goal = (form) => (form?.startsWith('array') ? 2.5 : form?.startsWith('map') ? 1.5 : null);
for (const [title, jobs] of [['encode', enc], ['decode', dec]]) {
  console.log(`${title}                                  ops/s   vs msgpackr (rounds' range)  goal`);
  for (const j of jobs) {
    const r = j.ratio, g = goal(j.form);
    console.log(`  ${j.name.padEnd(36)} ${fmt(j.median).padStart(8)}   ${r.toFixed(2).padStart(6)}x ${j.range.padStart(11)}` +
      `${g === null ? '' : `   ${g}x ${r >= g ? 'met' : 'NOT met'}`}`);
  }
  console.log('');
}

// ---- heap per decode ------------------------------------------------------------
// Live heap after many decodes whose results are kept, less before, per
// decode: what the results hold. Then the same decodes with results
// dropped: what they allocated in all (garbage included) from the heap's
// growth between collections, approximately.
if (typeof globalThis.gc === 'function') {
  const N = 200;
  const retained = (f) => {
    const keep = new Array(N);
    gc(); gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < N; i++) keep[i] = f();
    gc(); gc();
    const after = process.memoryUsage().heapUsed;
    sink ^= keep.length;
    return (after - before) / N;
  };
  const allocated = (f) => {
    gc(); gc();
    const before = process.memoryUsage().heapUsed;
    let x = null;
    for (let i = 0; i < 20; i++) x = f();
    const after = process.memoryUsage().heapUsed;
    sink ^= x.length;
    return (after - before) / 20;
  };
  console.log('heap per decode (KiB): what the result keeps / allocated in all (no collection during the 20 decodes: approximate)');
  for (const j of dec) {
    retained(j.f);
    console.log(`  ${j.name.padEnd(36)} ${(retained(j.f) / 1024).toFixed(1).padStart(7)} / ${(allocated(j.f) / 1024).toFixed(1).padStart(7)}`);
  }
} else {
  console.log('(run with node --expose-gc for the heap per decode)');
}
sp.close();
if (sink === 0.5) console.log(sink);
