// bench/js-bin-placement.mjs -- one big body through encodeInto against the
// fastest peer for it, at many placements of the bytes in memory: [1, bin]
// against @msgpack/msgpack's encodeSharedRef and [1, string] (ASCII)
// against msgpackr's RESET_BUFFER_MODE, the pairs bench:js's e.big (bin)
// and e.big rows compare. The copy of the body (set() for a bin, Node's
// utf8Write for a string) is most of either call, and its speed moves with
// where its source and destination fall (page offsets, 4 KiB aliasing):
// one target in one run can read several per cent either way. So each size
// is measured with fresh targets at varied sizes and offsets for
// scratchpack and fresh peer buffers at varied sizes for the peer, and the
// medians compared.
//
// Each placement also times the bare copy the call makes there: the body
// to where the body goes (in scratchpack's target; in the buffer the peer
// returns a view of). Call time minus that copy is what the library adds
// around the copy -- the part its code decides -- measured at the same
// placement, so the placement's luck cancels out of it.
//
//   npm run bench:bin-placement                (node bench/js-bin-placement.mjs [placements])
//   SIZES=16384,100000 npm run bench:bin-placement   (only these body sizes)
//   SHAPES=str npm run bench:bin-placement     (bin, str or both: the default)
//   npm run bench:bin-placement -- --node 24   (or SP_NODE=24)
import { nodeLine } from './node-select.mjs';   // first: may rerun this script on another Node
import { Encoder } from '@msgpack/msgpack';
import { Packr, RESET_BUFFER_MODE } from 'msgpackr';

import { createScratchpack } from '../js/index.js';

const PLACEMENTS = Number(process.argv[2] || 24);
const SIZES = (process.env.SIZES || '1000,4096,16384,100000').split(',').map(Number);
const SHAPES = (process.env.SHAPES || 'bin,str').split(',');

const sp = await createScratchpack();
const utf8Write = Buffer.prototype.utf8Write;

// The two shapes: the body, and per placement the peer's call and where
// the peer puts the body (its bare copy goes there).
const shapes = {
  bin: {
    peerName: '@msgpack encodeSharedRef',
    room: (n) => n + 64,
    body: (n) => Uint8Array.from({ length: n }, (_, i) => i & 0xff),
    copy: (dst, body, at) => dst.set(body, at),
    peer(value, room) {
      const encoder = new Encoder({ initialBufferSize: room });
      const out = encoder.encodeSharedRef(value);   // a view of the buffer the peer writes into
      return { call: () => encoder.encodeSharedRef(value), dst: new Uint8Array(out.buffer, out.byteOffset), held: encoder };
    },
  },
  str: {
    peerName: 'msgpackr RESET_BUFFER_MODE',
    // Room for 3 bytes a unit, in both libraries' buffers: msgpackr asks for
    // it before it writes a string (it takes a new buffer if it is not
    // there), and encodeInto writes a long string straight into the target
    // only where it fits at its worst (else it stages it: one copy more)
    // -- bench:js's targets have it too.
    room: (n) => 3 * n + 64,
    body: (n) => 'A'.repeat(n),
    copy: (dst, body, at) => utf8Write.call(dst, body, at, dst.length - at),
    // msgpackr's Packr instances share one module-level buffer (useBuffer
    // sets it); each placement sets its own before its calls.
    peer(value, room) {
      const packr = new Packr({ useRecords: false }), buf = Buffer.alloc(room);
      return {
        call: () => packr.pack(value, RESET_BUFFER_MODE), dst: buf, held: buf,
        enter: () => packr.useBuffer(buf),
      };
    },
  },
};

// Both libraries' paths run at every size first, so the first size measured
// is not measured while V8 is still compiling them.
for (const name of SHAPES) {
  const shape = shapes[name], target = new Uint8Array(1 << 19);
  for (const n of [...SIZES, ...SIZES]) {
    const value = [1, shape.body(n)], peer = shape.peer(value, shape.room(n));
    peer.enter?.();
    for (let i = 0; i < 2000; i++) { sp.encodeInto(value, target); peer.call(); }
  }
}

function time(f, iters) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < iters; i++) f();
  return Number(process.hrtime.bigint() - t0) / iters;
}

const quantile = (a, p) => a.slice().sort((x, y) => x - y)[Math.floor(p * (a.length - 1))];
const median = (a) => quantile(a, 0.5);
const spread = (a) => `${quantile(a, 0).toFixed(0)} / ${median(a).toFixed(0)} / ${quantile(a, 1).toFixed(0)}`;

function measure(shape, n) {
  const body = shape.body(n);
  const value = [1, body];
  const head = sp.encode(value).length - n;          // where the body starts in our message (ASCII: a byte a unit)
  const iters = Math.max(200, Math.floor(4e6 / (n + 2000)));
  const ours = [], peer = [], oursAround = [], peerAround = [], held = [];
  for (let k = 0; k < PLACEMENTS; k++) {
    const room = shape.room(n) + k * 4096 + k * 24;  // (held to the end: each placement stays distinct)
    const target = new Uint8Array(room);
    const offset = (k * 13) % 64;
    const p = shape.peer(value, room);
    held.push(target, p.held);
    p.enter?.();
    const peerHead = p.call().length - n;            // and in the peer's (msgpackr may choose a wider str header)
    const a = () => sp.encodeInto(value, target, offset), b = p.call;
    const copyA = () => shape.copy(target, body, offset + head), copyB = () => shape.copy(p.dst, body, peerHead);
    for (let w = 0; w < 2; w++) { time(a, iters); time(b, iters); time(copyA, iters); time(copyB, iters); }
    const jobs = k % 2 === 0 ? [[a, ours], [copyA, null], [b, peer], [copyB, null]]
      : [[copyB, null], [b, peer], [copyA, null], [a, ours]];
    const t = new Map();
    for (const [f, into] of jobs) { t.set(f, time(f, iters)); if (into !== null) into.push(t.get(f)); }
    oursAround.push(t.get(a) - t.get(copyA));
    peerAround.push(t.get(b) - t.get(copyB));
  }
  const ratio = median(peer) / median(ours), around = median(peerAround) / median(oursAround);
  console.log(`| ${n} | ${spread(ours)} | ${spread(peer)} | ${ratio.toFixed(2)}x ` +
    `| ${median(oursAround).toFixed(0)} | ${median(peerAround).toFixed(0)} | ${around.toFixed(2)}x |`);
}

for (const name of SHAPES) {
  const shape = shapes[name];
  console.log(`[1, ${name}] encode at ${PLACEMENTS} placements each, ${nodeLine}; ns per call, min / median / max`);
  console.log(`| ${name} length | sp encodeInto | ${shape.peerName} | median ratio (peer time / sp time) ` +
    '| sp around the copy | peer around the copy | ratio around the copy (peer / sp) |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|');
  for (const n of SIZES) measure(shape, n);
  console.log();
}

// The copy alone, no library: the largest body into one destination from
// sources at every 64th byte of a page. What one placement costs against
// another is the spread a single run of bench:js draws from, on either side.
{
  const n = SIZES[SIZES.length - 1], offsets = [];
  const from = Uint8Array.from({ length: n + 4096 }, (_, i) => i & 0xff), to = new Uint8Array(n + 64);
  const iters = Math.max(200, Math.floor(4e6 / (n + 2000)));
  for (let at = 0; at < 4096; at += 64) {
    const src = from.subarray(at, at + n), f = () => to.set(src, 7);
    time(f, iters);
    offsets.push(Math.min(time(f, iters), time(f, iters)));
  }
  const slow = offsets.filter((x) => x > 1.05 * median(offsets)).length;
  console.log(`set() of ${n} bytes from 64 source offsets a page apart to one destination: ` +
    `min / median / max ${spread(offsets)} ns; ${slow} of 64 more than 5% over the median`);
}
sp.close();
