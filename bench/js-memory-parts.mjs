// bench/js-memory-parts.mjs -- the measurements of bench/js-memory.mjs that
// need a process of their own (RSS and peak RSS are per process): each run
// prints one JSON line. Not a test: figures, for the bench to print beside
// msgpackr's measured in the same run.
//
//   node bench/js-memory-parts.mjs <part> <who> [build]
//
// parts: leases (200,000 forgotten leases in one synchronous loop; msgpackr:
// 200,000 pack() results kept), rss (one ~300 MB message encoded and
// decoded, the results dropped: RSS before, at the peak and after a
// collection), big (one 512 MiB Uint8Array or string encoded on a fresh
// instance: time and peak RSS), post (a lease posted to a worker: the bytes
// that travel).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Worker } from 'node:worker_threads';

import { Packr, unpack } from 'msgpackr';

import { createScratchpack, decode } from '../js/index.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');
const MiB = 1 << 20;
const [part, who, wasm = 'single', what = 'bin'] = process.argv.slice(2);
const rss = () => process.memoryUsage().rss;
const peak = () => process.resourceUsage().maxRSS * 1024;
const settle = async () => { for (let i = 0; i < 4; i++) { gc(); await new Promise((r) => setTimeout(r, 20)); } };
const out = (o) => console.log(JSON.stringify(o));

async function instance() {
  const sp = await createScratchpack({ wasm });
  sp.encode({ warm: 'up' });
  return sp;
}

if (part === 'leases') {
  const N = 200000;
  const sp = who === 'ours' ? await instance() : null;
  const packr = new Packr({ useRecords: false });
  await settle();
  const r0 = rss(), h0 = sp ? sp.stats().heap.used : 0;
  let failed = 0, bytes = 0;
  const kept = [];                        // msgpackr: the results a service would have kept instead
  const t0 = performance.now();
  for (let i = 0; i < N; i++) {
    const v = { id: i, name: `lease ${i}`, ok: (i & 1) === 0 };
    try {
      if (sp) bytes += sp.encodeView(v).bytes.length;   // forgotten at once
      else { const b = packr.pack(v); bytes += b.length; kept.push(b); }
    } catch { failed++; }
  }
  const ms = performance.now() - t0;
  const s = sp ? sp.stats() : null;
  out({ part, who, wasm, n: N, failed, ms, bytes, rssGrowth: rss() - r0,
    heapPerLease: s ? (s.heap.used - h0) / N : 0, live: s ? s.leases : kept.length, messageBytes: bytes / N });
} else if (part === 'rss') {
  const sp = who === 'ours' ? await instance() : null;
  const packr = new Packr({ useRecords: false });
  const value = what === 'bin' ? new Uint8Array(300e6).fill(7) : 'abcdefghij'.repeat(30e6);
  if (what !== 'bin') value.indexOf('z');   // flattened now, not by the first encode (RSS counts it before)
  await settle();
  const before = rss();
  let bytes = sp ? sp.encode(value) : packr.pack(value);
  let back = sp ? decode(bytes) : unpack(bytes);
  const ok = (what === 'bin' ? back.length === value.length : back === value);
  const atPeak = rss();
  bytes = back = null;
  await settle();
  const after = rss();
  let trimmed = after;
  if (sp) { sp.trim(); await settle(); trimmed = rss(); }
  out({ part, who, wasm, what, ok, before, atPeak, after, trimmed, heapSize: sp ? sp.stats().heap.size : 0 });
} else if (part === 'big') {
  const value = what === 'bin' ? new Uint8Array(512 * MiB) : 'abcdefghijklmnopqrstuvwxy\n'.repeat((512 * MiB - 24) / 26 | 0);
  if (what !== 'bin') value.indexOf('z');   // V8's longest string: 2^29 - 24 units
  if (what === 'bin') for (let i = 0; i < value.length; i += 4096) value[i] = i & 0xff;
  const sp = who === 'ours' ? await instance() : null;
  const packr = new Packr({ useRecords: false });
  await settle();
  const r0 = rss();
  const t0 = performance.now();
  const bytes = sp ? sp.encode(value) : packr.pack(value);
  const ms = performance.now() - t0;
  out({ part, who, wasm, what, ms, length: bytes.length, peakOverStart: peak() - r0, valueBytes: what === 'bin' ? value.length : value.length });
} else if (part === 'post') {
  const sp = await instance();
  const lease = sp.encodeView({ id: 1, name: 'posted', list: [1, 2, 3] });
  const w = new Worker(`require('node:worker_threads').parentPort.on('message', (v) => {
    require('node:worker_threads').parentPort.postMessage({ len: v.length, buffer: v.buffer.byteLength,
      shared: v.buffer instanceof SharedArrayBuffer });
  });`, { eval: true });
  const got = await new Promise((resolve) => { w.once('message', resolve); w.postMessage(lease.bytes); });
  await w.terminate();
  out({ part, who: 'ours', wasm, message: lease.bytes.length, ...got, memory: sp.stats().heap.size });
  lease.release();
}
process.exit(0);
