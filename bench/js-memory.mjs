// bench/js-memory.mjs -- big messages through the JS package: time per
// entry against msgpackr and @msgpack/msgpack (ratios, measured in the same
// run), and what the WASM heap holds before, after and after trim().
//
//   npm run bench:memory              (node bench/js-memory.mjs [rounds], both builds)
//   npm run bench:memory -- --node 24 (or SP_NODE=24: on the pinned Node 24; 22, or a path)
//   SP_BENCH_PART=parts npm run bench:memory    only the first part; =table only the second;
//   =big only the 512 MiB encodes of the first
//
// First part (issue 20), each figure from a process of its own
// (bench/js-memory-parts.mjs), ours beside msgpackr's, interleaved, `rounds`
// times: 200,000 forgotten leases in one synchronous loop; RSS after one
// ~300 MB message encoded and decoded and the results dropped; one 512 MiB
// Uint8Array or string encoded on a fresh instance (time, peak RSS); a
// lease posted to a worker (the bytes that travel).
//
// Workloads: a 200 MiB Uint8Array, a 150 MiB ASCII string, 3,000,000 small
// objects, a 256 MiB Float64Array. Figures are medians of `rounds` runs
// (default 3) after one warm-up run; heap figures come from stats().heap
// (malloc's bytes in use; size is linear memory, which never shrinks).
import { nodeLine } from './node-select.mjs';   // first: may rerun this script on another Node
import { Decoder, Encoder } from '@msgpack/msgpack';
import { Packr, unpack } from 'msgpackr';

import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { createScratchpack, decode } from '../js/index.js';

const ROUNDS = Number(process.argv[2] || 3);
const MiB = 1 << 20;

function workloads() {
  const bin = new Uint8Array(200 * MiB);
  for (let i = 0; i < bin.length; i += 4093) bin[i] = i & 0xff;
  const f64 = new Float64Array(32 * MiB);
  for (let i = 0; i < f64.length; i += 997) f64[i] = i / 7;
  return [
    { name: '200 MiB Uint8Array', value: bin },
    { name: '150 MiB string', value: 'abcdefghijklmnopqrstuvwxy\n'.repeat(150 * MiB / 26 | 0) },
    { name: '3,000,000 objects', value: Array.from({ length: 3e6 }, (_, i) => ({ id: i, name: `n${i % 1000}`, ok: i % 3 === 0 })) },
    // no peer writes a Float64Array as a MessagePack array: no ratio for it
    { name: '256 MiB Float64Array', value: f64, alone: true },
  ];
}

function median(f) {
  f();
  const t = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    f();
    t.push(performance.now() - t0);
  }
  return t.sort((a, b) => a - b)[t.length >> 1];
}

const packr = new Packr({ useRecords: false });
const encoder = new Encoder();
const decoder = new Decoder();
const fmt = (ms) => `${ms.toFixed(0).padStart(6)} ms`;
const mib = (n) => `${(n / MiB).toFixed(1)} MiB`;

console.log(`scratchpack JS memory bench on ${nodeLine}, medians of ${ROUNDS} runs`);

const PART = process.env.SP_BENCH_PART || 'all';
const partsScript = fileURLToPath(new URL('./js-memory-parts.mjs', import.meta.url));
const part = (...args) => JSON.parse(execFileSync(process.execPath, [partsScript, ...args.map(String)],
  { encoding: 'utf8', maxBuffer: 1 << 20 }).trim().split('\n').pop());
const mb = (n) => `${(n / MiB).toFixed(0)} MiB`;
const med = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];

if (PART !== 'table' && PART !== 'big') {
  console.log('leases: 200,000 encodeView() in one synchronous loop, never released (msgpackr: 200,000 pack() results kept)');
  for (const [who, wasm] of [['ours', 'threads'], ['ours', 'single'], ['msgpackr', '-']]) {
    const r = part('leases', who, wasm);
    console.log(`  ${(who === 'ours' ? `scratchpack ${wasm}` : 'msgpackr').padEnd(22)} failed ${r.failed}, ` +
      `RSS +${mb(r.rssGrowth)}, linear memory ${r.heapPerLease.toFixed(1)} B per lease ` +
      `(messages ${r.messageBytes.toFixed(1)} B), ${r.ms.toFixed(0)} ms`);
  }
  for (const wasm of ['single', 'threads']) {
    const r = part('post', 'ours', wasm);
    console.log(`posting a lease (${wasm}): message ${r.message} B, the worker receives a buffer of ${r.buffer} B` +
      `${r.shared ? ' (shared: linear memory itself, no copy)' : ''}`);
  }
  console.log('\nRSS around one ~300 MB message: encode, decode, results dropped, collected (then trim())');
  for (const what of ['bin', 'str']) {
    for (const [who, wasm] of [['ours', 'single'], ['ours', 'threads'], ['msgpackr', '-']]) {
      const r = part('rss', who, wasm, what);
      console.log(`  ${what} ${(who === 'ours' ? `scratchpack ${wasm}` : 'msgpackr').padEnd(22)} before ${mb(r.before)}, ` +
        `peak ${mb(r.atPeak)}, after ${mb(r.after)} (${r.after >= r.before ? '+' : ''}${mb(r.after - r.before)}), after trim ${mb(r.trimmed)}` +
        `${r.ok ? '' : ' WRONG RESULT'}`);
    }
  }
}
if (PART !== 'table') {
  console.log(`\none 512 MiB value encoded on a fresh instance (median of ${ROUNDS}, then the range; interleaved with msgpackr, who goes first alternating)`);
  for (const what of ['bin', 'str']) {
    for (const wasm of ['single', 'threads']) {
      const ours = [], peer = [], peakOurs = [], peakPeer = [];
      for (let r = 0; r < ROUNDS; r++) {
        // Each in a fresh process, who goes first alternating: the first
        // touch of hundreds of MiB of fresh pages costs what the host's
        // memory state makes it (a plain alloc and copy of 512 MiB here
        // took 0.44 to 2.4 s from run to run), and the process after a
        // big one tends to pay more.
        const first = r % 2 === 0 ? 'ours' : 'msgpackr';
        const one = part('big', first, wasm, what), two = part('big', first === 'ours' ? 'msgpackr' : 'ours', wasm, what);
        const [a, b] = first === 'ours' ? [one, two] : [two, one];
        ours.push(a.ms); peer.push(b.ms); peakOurs.push(a.peakOverStart); peakPeer.push(b.peakOverStart);
      }
      const range = (xs) => `${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)}`;
      console.log(`  ${what} ${wasm.padEnd(8)} scratchpack ${fmt(med(ours))} (${range(ours)}), peak RSS +${mb(med(peakOurs))}; ` +
        `msgpackr ${fmt(med(peer))} (${range(peer)}), +${mb(med(peakPeer))}; ratio ${(med(peer) / med(ours)).toFixed(2)}x msgpackr's speed ` +
        `(best against best: ${(Math.min(...peer) / Math.min(...ours)).toFixed(2)}x)`);
    }
  }
}

for (const wasm of PART === 'parts' || PART === 'big' ? [] : ['threads', 'single']) {
  const sp = await createScratchpack({ wasm });
  sp.encode({ warm: 'up' });
  const base = sp.stats().heap;
  console.log(`\n${wasm} build: heap.used ${mib(base.used)} (memory ${mib(base.size)}) warm, before the big messages`);
  for (const w of workloads()) {
    const v = w.value;
    const bytes = sp.encode(v);
    const target = new Uint8Array(bytes.length);
    const row = {
      encode: median(() => sp.encode(v)),
      encodeInto: median(() => sp.encodeInto(v, target)),
      'encodeView+release': median(() => sp.encodeView(v).release()),
      decode: median(() => decode(bytes)),
    };
    let peer = null;
    if (!w.alone) {
      const packed = packr.pack(v);
      peer = {
        encode: Math.min(median(() => packr.pack(v)), median(() => encoder.encode(v))),
        decode: Math.min(median(() => unpack(packed)), median(() => decoder.decode(packed))),
      };
    }
    const h = sp.stats();
    console.log(`  ${w.name} (${mib(bytes.length)} of MessagePack)`);
    for (const [k, ms] of Object.entries(row)) {
      const vs = peer && (k === 'decode' ? peer.decode : peer.encode);
      console.log(`    ${k.padEnd(20)} ${fmt(ms)}` +
        (vs ? `   ${(vs / ms).toFixed(2)}x the fastest peer (${fmt(vs).trim()})` : ''));
    }
    console.log(`    heap after, no call: used ${mib(h.heap.used)} (+${mib(h.heap.used - base.used)}), ` +
      `pool ${mib(h.pool.cachedBytes)}, staging ${mib(h.heap.staging)}, memory ${mib(h.heap.size)}`);
  }
  const freed = sp.trim();
  const after = sp.stats().heap;
  console.log(`  trim(): freed ${mib(freed)}; heap.used ${mib(after.used)} (memory ${mib(after.size)})`);
  sp.close();
}
