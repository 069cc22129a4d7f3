// bench/js-pair.mjs -- encodeInto of one value by two builds of the JS
// package in one process, interleaved: how a change moves a shape, with
// the machine's drift shared by both. A build is a folder holding js/ and
// dist/ (a checkout, or `git archive REV js` beside a link to dist/).
// Run it in both orders: the first build loaded gets the better of V8's
// warm-up and memory layout often enough to matter at a few per cent.
//
//   node bench/js-pair.mjs SHAPE roomy|tight DIR_A DIR_B [--node 22|24|PATH]
//   (roomy: a target of 4x the message; tight: 16 bytes over it)
//   SHAPE: arr obj rec str40 str1k str4k str16k str40k str100k kstr10k
//          many300 many1kA many2kA many4kA mixbin binA
// Prints the median ns a call of 15 alternating rounds for each, and B / A.
import { nodeLine } from './node-select.mjs';   // first: may rerun this script on another Node
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [shape, mode, ...dirs] = process.argv.slice(2);
const A = (n) => 'A'.repeat(n);
const K = (n) => '\uac00'.repeat(n);
const shapes = {
  arr: () => [1, 'hello'],
  obj: () => ({ Id: 1, Name: 'hello' }),
  rec: () => Array.from({ length: 200 }, (_, i) => ({ id: i, name: `user${i}`, tags: ['a', 'b'], score: i * 1.5, ok: true })),
  str40: () => [1, A(40)],
  str1k: () => [1, A(1000)],
  str4k: () => [1, A(4096)],
  str16k: () => [1, A(16384)],
  str40k: () => [1, A(40000)],
  str100k: () => [1, A(100000)],
  kstr10k: () => [1, K(10000)],
  many300: () => Array.from({ length: 400 }, (_, i) => A(300 + (i % 50))),
  many1kA: () => Array.from({ length: 400 }, (_, i) => A(1000 + i)),
  many2kA: () => Array.from({ length: 400 }, (_, i) => A(2000 + i)),
  many4kA: () => Array.from({ length: 200 }, (_, i) => A(4000 + i)),
  mixbin: () => [A(5000), new Uint8Array(5000), A(3000), new Uint8Array(2000)],
  binA: () => [1, new Uint8Array(2000)],
};
if (!shapes[shape] || !['roomy', 'tight'].includes(mode) || dirs.length !== 2) {
  console.error('usage: node bench/js-pair.mjs SHAPE roomy|tight DIR_A DIR_B\n  shapes: ' + Object.keys(shapes).join(' '));
  process.exit(2);
}
const v = shapes[shape]();
const libs = [];
for (const d of dirs) {
  const m = await import(pathToFileURL(path.resolve(d, 'js/index.js')).href);
  libs.push(await m.createScratchpack());
}
const want = libs[0].encode(v);
const size = mode === 'tight' ? want.length + 16 : 4 * want.length + 1024;
const targets = libs.map(() => new Uint8Array(size));
libs.forEach((lib, k) => {
  const n = lib.encodeInto(v, targets[k]);
  if (Buffer.compare(targets[k].subarray(0, n), want) !== 0) throw new Error(`${dirs[k]} writes other bytes than ${dirs[0]}'s encode()`);
});
const iters = Math.max(20, Math.min(2e5, Math.floor(2e7 / want.length)));
const res = libs.map(() => []);
for (let r = 0; r < 15; r++) {
  for (let k = 0; k < libs.length; k++) {
    const lib = libs[k], t = targets[k];
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < iters; i++) lib.encodeInto(v, t);
    res[k].push(Number(process.hrtime.bigint() - t0) / iters);
  }
}
const med = (a) => a.sort((x, y) => x - y)[a.length >> 1];
const [a, b] = res.map(med);
console.log(`${shape} ${mode} (${want.length} B, ${nodeLine}): ` +
  `${dirs[0]} ${a.toFixed(0)} ns, ${dirs[1]} ${b.toFixed(0)} ns, B / A ${(b / a).toFixed(3)}`);
for (const lib of libs) lib.close();
