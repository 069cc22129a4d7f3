// bench/dotnet-js.mjs -- the JS half of `npm run peer:dotnet`'s speed rows:
// scratchpack's JS package on exactly the messages MessagePack-CSharp
// measured (DIR/NAME.bin, written by `Peer speed-bytes DIR`), encode and
// decode, beside the C# medians of the same invocation (the JSON the C#
// half wrote), as ratios. Owns: the JS jobs and the side-by-side table.
// Must not touch: the C# figures (read only). Not a test: figures depend
// on the machine and its load.
//
//   node bench/dotnet-js.mjs DIR CSHARP.json
//   SP_DOTNET_ROUNDS (7), SP_DOTNET_SAMPLE_MS (40): as the C# half.
//
// The JS rows are interleaved among themselves (rounds alternate forwards
// and backwards over all jobs); they are NOT interleaved with the C# rows,
// which ran earlier in another process: the ratios hold only as far as the
// machine's load stayed the same between the two.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScratchpack, decode } from '../js/index.js';

const [dir, json] = process.argv.slice(2);
if (!dir || !json) {
  console.error('usage: node bench/dotnet-js.mjs DIR CSHARP.json');
  process.exit(2);
}
const ROUNDS = Number(process.env.SP_DOTNET_ROUNDS || 7);
const SAMPLE_MS = Number(process.env.SP_DOTNET_SAMPLE_MS || 40);
const csharp = JSON.parse(readFileSync(json, 'utf8'));
const sp = await createScratchpack();

const equal = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
const jobs = [];
for (const w of ['a.obj', 'b.records', 'c.ints', 'd.strings', 'e.big']) {
  const bytes = new Uint8Array(readFileSync(join(dir, `${w}.bin`)));
  const value = decode(bytes);
  // The same value back: identical bytes unless a double holds an integer
  // (none here) -- said per row either way.
  const same = equal(sp.encode(value), bytes);
  jobs.push({ w, op: 'encode', mode: 'encode()', bytes: bytes.length, same, f: () => sp.encode(value).length });
  jobs.push({ w, op: 'decode', mode: 'decode()', bytes: bytes.length, same, f: () => decode(bytes) });
  if (w === 'c.ints') {
    const ints = decode(bytes, { typedArrays: Int32Array });
    jobs.push({ w, op: 'encode', mode: 'encode(Int32Array)', bytes: bytes.length, same: equal(sp.encode(ints), bytes), f: () => sp.encode(ints).length });
    jobs.push({ w, op: 'decode', mode: 'decode(Int32Array)', bytes: bytes.length, same, f: () => decode(bytes, { typedArrays: Int32Array }) });
  }
}

let sink = 0;
const now = () => Number(process.hrtime.bigint());
// ns per call over a batch of about SAMPLE_MS (calibrated once per job).
function sample(j) {
  const t0 = now();
  for (let i = 0; i < j.n; i++) { const r = j.f(); sink = (sink + (typeof r === 'number' ? r : 1)) | 0; }
  return (now() - t0) / j.n;
}
for (const j of jobs) {
  j.n = 1;
  for (;;) {
    const ns = sample(j);
    if (ns * j.n >= SAMPLE_MS * 1e6 / 4 || j.n > 1 << 24) { j.n = Math.max(1, Math.round(SAMPLE_MS * 1e6 / ns)); break; }
    j.n *= 2;
  }
  for (let i = 0; i < 2; i++) sample(j);                               // warm-up (JIT tiers)
  j.samples = [];
}
for (let r = 0; r < ROUNDS; r++) for (const j of r % 2 ? [...jobs].reverse() : jobs) j.samples.push(sample(j));
for (const j of jobs) {
  const s = j.samples.sort((a, b) => a - b);
  j.median = s[Math.floor(s.length / 2)];
  j.best = s[0];
}

const cs = (w, op, mode) => csharp.speed.find((s) => s.workload === w && s.op === op && s.library === 'MessagePack-CSharp' && s.mode.startsWith(mode));
const ns = (x) => (x === undefined ? '-' : x >= 1e6 ? `${(x / 1e6).toFixed(2)} ms` : x >= 1e3 ? `${(x / 1e3).toFixed(1)} µs` : `${x.toFixed(1)} ns`);
const ratio = (c, j) => (c ? `${(c.medianNs / j.median).toFixed(2)}×` : '-');
console.log(`scratchpack JS (${process.version}), ${ROUNDS} interleaved rounds of ~${SAMPLE_MS} ms per row; C# medians from ${json}`);
console.log('ratio = MessagePack-CSharp median / scratchpack JS median: above 1 means the JS package is faster.');
console.log('| workload | op | scratchpack JS | median (best) | C# typed, median | ratio | C# contractless, median | ratio | same bytes as C# |');
console.log('| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |');
for (const j of jobs) {
  const t = cs(j.w, j.op, 'typed'), c = cs(j.w, j.op, 'contractless');
  console.log(`| ${j.w} (${j.bytes.toLocaleString('en-US')} B) | ${j.op} | ${j.mode} | ${ns(j.median)} (${ns(j.best)}) | ${ns(t?.medianNs)} | ${ratio(t, j)} | ${ns(c?.medianNs)} | ${ratio(c, j)} | ${j.same ? 'yes' : 'no'} |`);
}
if (sink === 0.5) console.log('');
