// bench/js-bin-placement.mjs -- [1, bin] through encodeInto against
// @msgpack/msgpack's encodeSharedRef, the pair bench:js's e.big (bin) row
// compares, at many placements of the bytes in memory. The copy of the
// body is most of either call, and its speed moves with where its source
// and destination fall (page offsets, 4 KiB aliasing): one target in one
// run can read several per cent either way. So each size is measured with
// fresh targets at varied sizes and offsets for scratchpack and fresh
// encoders with varied buffer sizes for the peer, and the medians compared.
//
//   npm run bench:bin-placement                (node bench/js-bin-placement.mjs [placements])
//   npm run bench:bin-placement -- --node 24   (or SP_NODE=24)
import { nodeLine } from './node-select.mjs';   // first: may rerun this script on another Node
import { Encoder } from '@msgpack/msgpack';

import { createScratchpack } from '../js/index.js';

const PLACEMENTS = Number(process.argv[2] || 24);
const SIZES = [1000, 4096, 16384, 100000];

const sp = await createScratchpack();

function time(f, iters) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < iters; i++) f();
  return Number(process.hrtime.bigint() - t0) / iters;
}

const quantile = (a, p) => a.slice().sort((x, y) => x - y)[Math.floor(p * (a.length - 1))];
const spread = (a) => `${quantile(a, 0).toFixed(0)} / ${quantile(a, 0.5).toFixed(0)} / ${quantile(a, 1).toFixed(0)}`;

console.log(`[1, bin] encode at ${PLACEMENTS} placements each, ${nodeLine}; ns per call, min / median / max`);
console.log('| bin bytes | sp encodeInto | @msgpack encodeSharedRef | median ratio (peer time / sp time) |');
console.log('|---:|---:|---:|---:|');
for (const n of SIZES) {
  const value = [1, Uint8Array.from({ length: n }, (_, i) => i & 0xff)];
  const iters = Math.max(200, Math.floor(4e6 / (n + 2000)));
  const ours = [], peer = [], held = [];
  for (let k = 0; k < PLACEMENTS; k++) {
    const room = n + 64 + k * 4096 + k * 24;        // (held to the end: each placement stays distinct)
    const target = new Uint8Array(room);
    const offset = (k * 13) % 64;
    const encoder = new Encoder({ initialBufferSize: room });
    held.push(target, encoder);
    const a = () => sp.encodeInto(value, target, offset), b = () => encoder.encodeSharedRef(value);
    for (let w = 0; w < 2; w++) { time(a, iters); time(b, iters); }
    if (k % 2 === 0) { ours.push(time(a, iters)); peer.push(time(b, iters)); }
    else { peer.push(time(b, iters)); ours.push(time(a, iters)); }
  }
  const ratio = quantile(peer, 0.5) / quantile(ours, 0.5);
  console.log(`| ${n} | ${spread(ours)} | ${spread(peer)} | ${ratio.toFixed(2)}x |`);
}
sp.close();
