// bench/js-long-strings.mjs -- encode() of [1, text] for long text of three
// kinds (ASCII, 2-byte and 3-byte UTF-8) against msgpackr's pack(), in one
// process, alternating: the path a string takes in js/writer.js depends
// on its length against the 16 KiB JS scratch and on whether it looks
// ASCII, so the sizes straddle those bounds.
//
//   node bench/js-long-strings.mjs [DIR] [sizes]     (DIR: a build holding js/ and dist/; default this checkout)
//   node bench/js-long-strings.mjs . 6000,100000
//   npm run bench:long-strings -- --node 24
// Prints ns a call (median of 9 batches of at least 20 ms) and pack's time over ours.
import { nodeLine } from './node-select.mjs';   // first: may rerun this script on another Node
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Packr } from 'msgpackr';

const here = path.dirname(fileURLToPath(import.meta.url));
const dir = process.argv[2] ? path.resolve(process.argv[2]) : path.join(here, '..');
const sizes = (process.argv[3] || '3000,6000,10000,16384,16385,30000,100000,300000').split(',').map(Number);
const { createScratchpack } = await import(pathToFileURL(path.join(dir, 'js/index.js')).href);
const sp = await createScratchpack();
const packr = new Packr({ useRecords: false });

function time(f) {
  let it = 1;
  for (;;) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < it; i++) f();
    if (Number(process.hrtime.bigint() - t0) > 2e7) break;
    it *= 2;
  }
  const res = [];
  for (let r = 0; r < 9; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < it; i++) f();
    res.push(Number(process.hrtime.bigint() - t0) / it);
  }
  return res.sort((a, b) => a - b)[4];
}

console.log(`encode() of [1, text] against msgpackr pack(), ${dir}, ${nodeLine}; ns a call`);
console.log('| text | sp encode() | msgpackr pack() | pack / sp |\n|---|---:|---:|---:|');
for (const n of sizes) {
  for (const [name, ch] of [['A', 'A'], ['\u00e9', '\u00e9'], ['\uac00', '\uac00']]) {
    const v = [1, ch.repeat(n)];
    if (Buffer.compare(sp.encode(v), packr.pack(v)) !== 0) throw new Error(`the two libraries write ${name} x ${n} differently`);
    const a = time(() => sp.encode(v)), b = time(() => packr.pack(v));
    console.log(`| '${name}' x ${n} | ${a.toFixed(0)} | ${b.toFixed(0)} | ${(b / a).toFixed(2)}x |`);
  }
}
sp.close();
