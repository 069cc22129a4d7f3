// bench/js-bench.mjs -- scratchpack's JS package against msgpackr and
// @msgpack/msgpack on the workloads of DESIGN.md, encode and decode,
// interleaved in one process; prints ops/s and ratios. Then LZ4: the JS
// block decompressor (js/lz4.js, what decode uses) against C's in the WASM
// module, on C's block of each plain message, in MB/s of plain output, and
// what decoding a compressed message costs against its plain one: decode()
// (lz4.js) and sp.decode() (C's decompressor for blocks of 4 KiB and more).
//
//   npm run bench:js                  (node bench/js-bench.mjs [roundMs] [rounds])
//   npm run bench:js -- --node 24     (or SP_NODE=24: on the pinned Node 24; 22, or a path)
//   BENCH_ONLY=a.,e.big node bench/js-bench.mjs  (only workloads whose names start so)
//
// Every job runs in batches of about roundMs (default 100 ms); rounds go
// forwards then backwards so no job always runs first; the figure is the
// median of the measured rounds after two warm-up rounds. Ratios are
// scratchpack's best mode over the fastest peer mode, measured in the same
// run (absolute figures drift on shared machines; the ratios hold better).
// msgpackr is measured as its users get it by default: with the native
// addon msgpackr-extract when npm installed it (an optional dependency;
// MSGPACKR_NATIVE_ACCELERATION_DISABLED=true turns it off); the first line
// says which.
import { nodeLine } from './node-select.mjs';   // first: may rerun this script on another Node
import { Decoder, Encoder } from '@msgpack/msgpack';
import { Packr, RESET_BUFFER_MODE, isNativeAccelerationEnabled, pack, unpack } from 'msgpackr';

import { createScratchpack, decode } from '../js/index.js';
import { lz4DecompressInto } from '../js/lz4.js';

const ROUND_MS = Number(process.argv[2] || 100);
const ROUNDS = Number(process.argv[3] || 7);
const WARMUP = 2;

const sp = await createScratchpack();

// ---- workloads (DESIGN.md) -------------------------------------------------
function workloads() {
  const tags = ['red', 'green', 'blue', 'black', 'white'];
  const records = Array.from({ length: 1000 }, (_, i) => ({
    id: i,
    name: `user-${String((i * 7919) >>> 0).padStart(11, '0')}`,
    score: i * 1.25 + 0.1,
    tags: [tags[i % 5], tags[(i + 1) % 5], tags[(i + 2) % 5]],
  }));
  let seed = 7;
  const next = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296);
  const strings = Array.from({ length: 10000 }, (_, i) => {
    const n = 20 + Math.floor(next() * 181);
    let s = '';
    for (let k = 0; k < n; k++) {
      s += i % 4 === 3 && next() < 0.8
        ? String.fromCharCode(0xac00 + Math.floor(next() * 11172))
        : String.fromCharCode(97 + Math.floor(next() * 26));
    }
    return s;
  });
  const intArray = Array.from({ length: 30000 }, (_, i) => i);
  return [
    { name: 'a.obj', value: { Id: 1, Name: 'hello' } },
    { name: 'a.arr', value: [1, 'hello'] },
    { name: 'b.records', value: records },
    { name: 'c.ints (Array)', value: intArray },
    { name: 'c.ints (Int32Array)', value: Int32Array.from(intArray), peerValue: intArray, typed: Int32Array },
    { name: 'd.strings', value: strings },
    { name: 'e.big', value: [1, 'A'.repeat(100000)] },
    // The same size as a bin: a body copied, not transcoded.
    { name: 'e.big (bin)', value: [1, Uint8Array.from({ length: 100000 }, (_, i) => i & 0xff)] },
  ];
}

// ---- encoders and decoders ---------------------------------------------------
// msgpackr in its fastest standard modes: records off (they are not standard
// MessagePack), map16 headers (variableMapSize off: its default).
const resetPackr = new Packr({ useRecords: false });
const bufPackr = new Packr({ useRecords: false });
const encoder = new Encoder();
const sharedEncoder = new Encoder();
const decoder = new Decoder();

function encodeJobs(w) {
  const v = w.value, pv = w.peerValue ?? w.value;
  const size = sp.encode(v).length;
  // A reused target with room, as msgpackr's below (a target within a few
  // bytes of the message makes encodeInto stage a long string before it
  // copies it: one copy more, sink-target.js).
  const target = new Uint8Array(Math.max(size * 4, 1 << 20));
  // msgpackr writes text with utf8Write (a Buffer), and its Packr instances share
  // one module-level target (msgpackr#139): a big one keeps pack() from
  // allocating a fresh buffer on every call after useBuffer.
  const peerTarget = Buffer.alloc(Math.max(size * 4, 1 << 20));
  bufPackr.useBuffer(peerTarget);
  return [
    { lib: 'sp', mode: 'encode()', f: () => sp.encode(v) },
    { lib: 'sp', mode: 'encodeView()+release', f: () => { const l = sp.encodeView(v); const n = l.bytes.length; l.release(); return n; } },
    { lib: 'sp', mode: 'encodeInto(reused)', f: () => sp.encodeInto(v, target) },
    { lib: 'msgpackr', mode: 'pack()', f: () => pack(pv) },
    { lib: 'msgpackr', mode: 'RESET_BUFFER_MODE', f: () => resetPackr.pack(pv, RESET_BUFFER_MODE) },
    { lib: 'msgpackr', mode: 'useBuffer', f: () => bufPackr.pack(pv) },
    { lib: '@msgpack', mode: 'Encoder.encode', f: () => encoder.encode(pv) },
    { lib: '@msgpack', mode: 'encodeSharedRef', f: () => sharedEncoder.encodeSharedRef(pv) },
  ];
}

function decodeJobs(w) {
  const bytes = sp.encode(w.value);
  const jobs = [
    { lib: 'sp', mode: 'decode()', f: () => decode(bytes) },
    { lib: 'msgpackr', mode: 'unpack()', f: () => unpack(bytes) },
    { lib: '@msgpack', mode: 'Decoder.decode', f: () => decoder.decode(bytes) },
  ];
  // msgpackr and @msgpack return a bin as a view of the input; decode()
  // copies it (the default: a value that owns its bytes). binary: 'view' is
  // the like-for-like mode, shown where the message has a bin.
  if (w.name.includes('bin'))
    jobs.splice(1, 0, { lib: 'sp', mode: "decode(binary: 'view')", f: () => decode(bytes, { binary: 'view' }) });
  if (w.typed) {
    jobs.splice(1, 0,
      { lib: 'sp', mode: `decode(${w.typed.name})`, f: () => decode(bytes, { typedArrays: w.typed }) },
      { lib: 'sp', mode: `sp.decode(${w.typed.name}) (C)`, f: () => sp.decode(bytes, { typedArrays: w.typed }) });
  }
  return jobs;
}

// ---- timing ------------------------------------------------------------------
let sink = 0;
const now = () => Number(process.hrtime.bigint()) / 1e6;

function batch(f, n) {
  const t0 = now();
  for (let i = 0; i < n; i++) {
    const r = f();
    sink = (sink + (typeof r === 'number' ? r : r?.length ?? 1)) | 0;
  }
  return now() - t0;
}

function calibrate(f) {
  for (let n = 1; ; n *= 4) {
    const t = batch(f, n);
    if (t > ROUND_MS / 5) return Math.max(1, Math.round((n * ROUND_MS) / t));
  }
}

function measure(jobs) {
  for (const j of jobs) { j.n = calibrate(j.f); j.ops = []; }
  for (let r = 0; r < WARMUP + ROUNDS; r++) {
    const order = r % 2 ? [...jobs].reverse() : jobs;
    for (const j of order) {
      const t = batch(j.f, j.n);
      if (r >= WARMUP) j.ops.push(j.n / (t / 1000));
    }
  }
  for (const j of jobs) j.median = j.ops.sort((a, b) => a - b)[Math.floor(j.ops.length / 2)];
  return jobs;
}

const fmt = (x) => (x >= 1e6 ? `${(x / 1e6).toFixed(2)}M` : x >= 1e3 ? `${(x / 1e3).toFixed(1)}k` : x.toFixed(0));
const best = (jobs, pred) => jobs.filter(pred).reduce((a, b) => (b.median > a.median ? b : a));

// ---- run -----------------------------------------------------------------------
const summary = [];
console.log(`scratchpack JS bench: ${ROUNDS} rounds of ~${ROUND_MS} ms per job after ${WARMUP} warm-up rounds, ` +
  `${nodeLine}, kernel ${sp.stats().kernel}, ` +
  `msgpackr ${isNativeAccelerationEnabled ? 'with' : 'without'} its native addon (msgpackr-extract)\n`);
const only = process.env.BENCH_ONLY;
for (const w of workloads().filter((x) => !only || only.split(',').some((o) => x.name.startsWith(o)))) {
  const size = sp.encode(w.value).length;
  const enc = measure(encodeJobs(w));
  const dec = measure(decodeJobs(w));
  console.log(`${w.name} (${size} B)${w.peerValue ? '  [peers encode the same values as a JS Array]' : ''}`);
  for (const [dir, jobs] of [['encode', enc], ['decode', dec]]) {
    const peer = best(jobs, (j) => j.lib !== 'sp');
    for (const j of jobs) {
      const ratio = j.median / peer.median;
      console.log(`  ${dir} ${`${j.lib} ${j.mode}`.padEnd(34)} ${fmt(j.median).padStart(8)} ops/s` +
        `${j.lib === 'sp' ? `  ${ratio.toFixed(2)}x the fastest peer (${peer.lib} ${peer.mode})` : ''}`);
    }
  }
  const spEnc = best(enc, (j) => j.lib === 'sp'), peerEnc = best(enc, (j) => j.lib !== 'sp');
  const spDec = best(dec, (j) => j.lib === 'sp'), atDec = dec.find((j) => j.lib === '@msgpack');
  const mrDec = dec.find((j) => j.lib === 'msgpackr');
  summary.push([w.name, `${fmt(spEnc.median)} (${spEnc.mode})`, `${fmt(peerEnc.median)} (${peerEnc.lib} ${peerEnc.mode})`,
    (spEnc.median / peerEnc.median).toFixed(2), `${fmt(spDec.median)} (${spDec.mode})`, fmt(mrDec.median),
    fmt(atDec.median), (spDec.median / atDec.median).toFixed(2), (spDec.median / mrDec.median).toFixed(2)]);
  console.log();
}
console.log('| workload | sp encode (best mode) | fastest peer encode | enc ratio | sp decode (best mode) | msgpackr unpack | @msgpack decode | dec / @msgpack | dec / msgpackr |');
console.log('|---|---|---|---:|---|---:|---:|---:|---:|');
for (const row of summary) console.log(`| ${row.join(' | ')} |`);

// ---- LZ4 decompression: JS against C (WASM), and decode of compressed messages ----
// C's call is timed alone: its block and output stay in linear memory.
const packed = await createScratchpack({ compression: 'lz4blockarray' });
console.log('\nLZ4 block decompression, MB/s of plain output (C\'s block of the whole plain message)');
console.log('| workload | plain B | block B | JS lz4.js | C in WASM | JS / C | decode() compressed / plain | sp.decode() (C\'s LZ4) compressed / plain |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
for (const w of workloads().filter((x) => ['b.', 'd.', 'e.'].some((o) => x.name.startsWith(o)))) {
  const plain = sp.encode(w.value), n = plain.length, m = sp._m, heap = sp._heap;
  const bound = m._sp_wasm_lz4_bound(n) >>> 0, at = heap.alloc(n + 2 * bound, 'bench');
  heap.u8.set(plain, at);
  const clen = m._sp_wasm_lz4_compress(at, n, at + n, bound) >>> 0;
  heap.check(at + n + 2 * bound);
  const block = heap.u8.slice(at + n, at + n + clen), out = new Uint8Array(n), msg = packed.encode(w.value);
  const [js, c, dz, dp, sz, sq] = measure([
    { f: () => lz4DecompressInto(block, 0, clen, out, 0, n) },
    { f: () => m._sp_wasm_lz4_decompress(at + n, clen, at + n + bound, n) },
    { f: () => decode(msg) },
    { f: () => decode(plain) },
    { f: () => sp.decode(msg) },
    { f: () => sp.decode(plain) },
  ]);
  heap.free(at, n + 2 * bound);
  const mbs = (j) => ((j.median * n) / 1e6).toFixed(0);
  console.log(`| ${w.name} | ${n} | ${clen} | ${mbs(js)} | ${mbs(c)} | ${(js.median / c.median).toFixed(2)} | ` +
    `${(dz.median / dp.median).toFixed(2)} | ${(sz.median / sq.median).toFixed(2)} |`);
}
packed.close();
sp.close();
if (sink === 0.5) console.log(sink);
