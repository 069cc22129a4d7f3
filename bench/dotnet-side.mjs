// bench/dotnet-side.mjs -- the speed part of `npm run peer:dotnet`: the five
// DESIGN workloads (a.obj, b.records, c.ints, d.strings, e.big), typed and
// untyped, encode and decode, through MessagePack-CSharp 3.1.12 and MemoryPack
// 1.21.4 and through scratchpack C native, C in WASM and the JS package, in
// ONE run whose rounds alternate between the peers. Owns: the JS rows, the
// round schedule, the statistics and the side-by-side table; with --record,
// the "sideBySide" member of bench/dotnet-peer.json (the rest of that file is
// the C# report's). Must not touch: the peers' cases (tests/dotnet/Peer/
// Speed.cs, bench/dotnet_workloads.c). Not a test: figures depend on the
// machine and its load.
//
//   node bench/dotnet-side.mjs DIR PEER.dll NATIVE WASI.wasm [--record FILE]
//   node bench/dotnet-side.mjs --wasi FILE.wasm DIR args...   (one WASI run)
//   SP_DOTNET_ROUNDS (7), SP_DOTNET_SAMPLES (3), SP_DOTNET_SAMPLE_MS (20)
//
// Harness (a Stopwatch-style one, not BenchmarkDotNet: see docs/dotnet.md):
// every peer times each of its rows SAMPLES times for ~SAMPLE_MS ms of its
// process's CPU time (not wall time: the machine is shared, and time spent
// waiting for a CPU is not the serializer's)
// (interleaved across its rows) and reports the median per row; that is one
// round of that peer. A round of the run asks every peer for one round, the
// order rotated each round, so load on the machine falls on every peer
// alike. C# is one long-lived process (`Peer serve`: its JIT tiers are
// reached once, then it waits on stdin between rounds); C native and C in
// WASM are a process per round (each warms up by calibrating before it
// samples); the JS rows run in this process. Per row: the median over rounds
// and the spread (lowest..highest round). Ratios: C#'s time over
// scratchpack's in the same round, the median of those per-round ratios and
// their spread (above 1: scratchpack faster).
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

if (process.argv[2] === '--wasi') {
  const { WASI } = await import('node:wasi');      // only here: importing it warns
  const [file, dir, ...args] = process.argv.slice(3);
  const wasi = new WASI({ version: 'preview1', args: [file, dir, ...args], env: {}, preopens: { [dir]: dir }, returnOnExit: true });
  const module = await WebAssembly.compile(readFileSync(file));
  const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
  process.exit(wasi.start(instance));
}

const { contract, createScratchpack, decode } = await import('../js/index.js');
const argv = process.argv.slice(2);
const recordAt = argv.indexOf('--record');
const record = recordAt >= 0 ? argv[recordAt + 1] : null;
if (recordAt >= 0) argv.splice(recordAt, 2);
const [dir, peerDll, nativeBin, wasiFile] = argv;
if (!wasiFile) {
  console.error('usage: node bench/dotnet-side.mjs DIR PEER.dll NATIVE WASI.wasm [--record FILE] (bench/peer-dotnet.sh)');
  process.exit(2);
}
const int = (name, dflt) => {
  const v = Number.parseInt(process.env[name] ?? '', 10);
  return Number.isInteger(v) && v > 0 ? v : dflt;
};
const ROUNDS = int('SP_DOTNET_ROUNDS', 7), SAMPLES = int('SP_DOTNET_SAMPLES', 3), MS = int('SP_DOTNET_SAMPLE_MS', 20);
const WORKLOADS = ['a.obj', 'b.records', 'c.ints', 'd.strings', 'e.big'];
const self = fileURLToPath(import.meta.url);

// ---- C#: one process, a round per "round MS N" line ----------------------
async function startCSharp() {
  const child = spawn('dotnet', [peerDll, 'serve', dir], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const queue = [], waiting = [];
  let exited = null;
  lines.on('line', (l) => (waiting.length ? waiting.shift().resolve(l) : queue.push(l)));
  child.once('exit', (code) => {
    exited = new Error(`Peer serve exited (${code})`);
    for (const w of waiting.splice(0)) w.reject(exited);
  });
  const next = () => new Promise((resolve, reject) => {
    if (queue.length) return resolve(queue.shift());
    if (exited) return reject(exited);
    waiting.push({ resolve, reject });
  });
  const rows = [];
  for (;;) {
    const l = await next();
    if (l === 'ready') break;
    const [tag, workload, library, mode, op, bytes] = l.split('\t');
    if (tag === 'row') rows.push({ workload, library, mode, op, bytes: Number(bytes) });
  }
  return {
    name: 'C#', rows,
    async round() {
      child.stdin.write(`round ${MS} ${SAMPLES}\n`);
      return (await next()).split(' ').map(Number);
    },
    stop() { child.stdin.end('quit\n'); },
  };
}

// ---- C native and C in WASM: a process per round --------------------------
function processPeer(name, cmd, args) {
  let rows = null;
  const parse = (out) => {
    const got = [];
    for (const line of out.split('\n')) {
      const [workload, mode, op, ns] = line.trim().split(/\s+/);
      if (ns !== undefined) got.push({ workload, mode, op, ns: Number(ns) });
    }
    return got;
  };
  return {
    name,
    init() { rows = parse(execFileSync(cmd, [...args, '1', '1'], { encoding: 'utf8' })).map(({ workload, mode, op }) => ({ workload, mode, op })); this.rows = rows; },
    async round() {
      return parse(execFileSync(cmd, [...args, String(SAMPLES), String(MS)], { encoding: 'utf8', timeout: 600000 })).map((x) => x.ns);
    },
    stop() {},
  };
}

// ---- scratchpack JS, in this process ---------------------------------------
const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
async function jsPeer() {
  const sp = await createScratchpack();
  const AObj = contract({ Id: 'int32', Name: 'string' }, { keys: 'name', name: 'AObj' });
  const Rec = contract({ id: 'int32', name: 'string', score: 'float64', tags: ['string'] }, { keys: 'name', name: 'Rec' });
  const Big = contract({ Id: 'int32', Text: 'string' }, { keys: 'name', name: 'BigObj' });
  const typed = { 'a.obj': AObj, 'b.records': Rec.array(), 'e.big': Big };
  const jobs = [];
  for (const w of WORKLOADS) {
    const bytes = new Uint8Array(readFileSync(join(dir, `${w}.bin`)));
    const value = decode(bytes);
    const c = typed[w];
    if (c) {
      const v = c.decode(bytes);
      jobs.push({ workload: w, mode: 'typed', op: 'encode', how: `contract ${c.name}.encode`, check: () => c.encode(v), f: () => c.encode(v).length });
      jobs.push({ workload: w, mode: 'typed', op: 'decode', how: `contract ${c.name}.decode`, check: null, f: () => c.decode(bytes) });
    } else if (w === 'c.ints') {
      const ints = decode(bytes, { typedArrays: Int32Array });
      jobs.push({ workload: w, mode: 'typed', op: 'encode', how: 'encode(Int32Array)', check: () => sp.encode(ints), f: () => sp.encode(ints).length });
      jobs.push({ workload: w, mode: 'typed', op: 'decode', how: 'decode(b, { typedArrays: Int32Array })', check: null, f: () => decode(bytes, { typedArrays: Int32Array }) });
    } else {
      // A bare string[] has no contract form: the generic path is the typed one.
      jobs.push({ workload: w, mode: 'typed', op: 'encode', how: 'encode() (no contract for a bare string[])', check: () => sp.encode(value), f: () => sp.encode(value).length });
      jobs.push({ workload: w, mode: 'typed', op: 'decode', how: 'decode() (no contract for a bare string[])', check: null, f: () => decode(bytes) });
    }
    jobs.push({ workload: w, mode: 'untyped', op: 'encode', how: 'encode()', check: () => sp.encode(value), f: () => sp.encode(value).length });
    jobs.push({ workload: w, mode: 'untyped', op: 'decode', how: 'decode()', check: null, f: () => decode(bytes) });
    for (const j of jobs.filter((x) => x.workload === w && x.check))
      if (!same(j.check(), bytes)) throw new Error(`JS ${w} ${j.mode} (${j.how}) does not write C#'s bytes`);
  }
  let sink = 0;
  // Process CPU time (user + system), as the other peers read.
  const now = () => { const u = process.cpuUsage(); return (u.user + u.system) * 1e3; };
  const sample = (j) => {
    const t0 = now();
    for (let i = 0; i < j.n; i++) { const r = j.f(); sink = (sink + (typeof r === 'number' ? r : 1)) | 0; }
    return (now() - t0) / j.n;
  };
  for (const j of jobs) {                           // calibrate; the calibration is the warm-up
    j.n = 1;
    for (;;) {
      const ns = sample(j);
      if (ns * j.n >= MS * 1e6 / 4 || j.n > 1 << 24) { j.n = Math.max(1, Math.round(MS * 1e6 / ns)); break; }
      j.n *= 2;
    }
    for (let i = 0; i < 2; i++) sample(j);
  }
  return {
    name: 'JS', rows: jobs, sp,
    async round() {
      const got = jobs.map(() => []);
      for (let s = 0; s < SAMPLES; s++) jobs.forEach((j, k) => got[k].push(sample(j)));
      return got.map((x) => x.sort((a, b) => a - b)[Math.floor(x.length / 2)]);
    },
    stop() { sp.close(); return sink; },
  };
}

// ---- the run ---------------------------------------------------------------
const node = process.execPath;
const cs = await startCSharp();
const native = processPeer('C native', nativeBin, [dir]);
const wasm = processPeer('C WASM', node, ['--no-warnings', self, '--wasi', wasiFile, dir]);
native.init();
wasm.init();
const js = await jsPeer();
const peers = [cs, native, wasm, js];
for (const p of peers) p.samples = p.rows.map(() => []);
const t0 = Date.now();
for (let r = 0; r < ROUNDS; r++) {
  const order = peers.map((_, i) => peers[(i + r) % peers.length]);
  for (const p of order) (await p.round()).forEach((ns, k) => p.samples[k].push(ns));
  process.stderr.write(`round ${r + 1}/${ROUNDS} (${order.map((p) => p.name).join(' → ')})\n`);
}
for (const p of peers) p.stop();
const seconds = Math.round((Date.now() - t0) / 1000);

const median = (v) => { const s = [...v].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const stat = (v) => ({ median: median(v), low: Math.min(...v), high: Math.max(...v) });
const round1 = (x) => Math.round(x * 10) / 10;
const round2 = (x) => Math.round(x * 100) / 100;
const spOf = (p, w, mode, op) => { const k = p.rows.findIndex((x) => x.workload === w && x.mode === mode && x.op === op); return k < 0 ? null : p.samples[k]; };
const csOf = (lib, w, mode, op) => {
  const k = cs.rows.findIndex((x) => x.workload === w && x.library === lib && x.op === op &&
    (mode === 'typed' ? x.mode.startsWith('typed') : x.mode.startsWith('contractless')));
  return k < 0 ? null : { row: cs.rows[k], samples: cs.samples[k] };
};
const rows = [];
for (const w of WORKLOADS) for (const mode of ['typed', 'untyped']) for (const op of ['encode', 'decode']) {
  const ref = csOf('MessagePack-CSharp', w, mode, op);
  const mp = mode === 'typed' ? csOf('MemoryPack', w, mode, op) : null;
  const row = { workload: w, mode, op, bytes: ref.row.bytes, csharpMode: ref.row.mode, csharp: stat(ref.samples) };
  if (mp) row.memoryPack = { ...stat(mp.samples), bytes: mp.row.bytes };
  for (const [key, p] of [['native', native], ['wasm', wasm], ['js', js]]) {
    const s = spOf(p, w, mode, op);
    const ratios = s.map((ns, i) => ref.samples[i] / ns);
    row[key] = { ...stat(s), ratio: stat(ratios) };
    if (key === 'js') row[key].how = js.rows.find((x) => x.workload === w && x.mode === mode && x.op === op).how;
  }
  if (mp) {
    const s = spOf(native, w, mode, op);
    row.memoryPack.overNative = stat(s.map((ns, i) => mp.samples[i] / ns));
  }
  rows.push(row);
}

// ---- the table ---------------------------------------------------------------
const t = (x) => (x >= 1e6 ? `${(x / 1e6).toFixed(2)} ms` : x >= 1e3 ? `${(x / 1e3).toFixed(1)} µs` : `${x.toFixed(0)} ns`);
const r = (s) => `${s.median.toFixed(2)}× (${s.low.toFixed(2)}–${s.high.toFixed(2)})`;
console.log(`MessagePack-CSharp against scratchpack: ${ROUNDS} rounds alternating C#, C native, C WASM (wasm32-wasi), JS ` +
  `(${process.version}); each peer's round: ${SAMPLES} samples of ~${MS} ms per row, median; ${seconds} s.`);
console.log('Times: median over rounds. Ratios: C#\'s time / scratchpack\'s in the same round, median (lowest–highest round); above 1: scratchpack faster.');
console.log('| workload | mode | op | MessagePack-CSharp | C native | ratio | C WASM | ratio | JS | ratio | MemoryPack / C native |');
console.log('| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const x of rows) {
  console.log(`| ${x.workload} | ${x.mode} | ${x.op} | ${t(x.csharp.median)} | ${t(x.native.median)} | ${r(x.native.ratio)} | ` +
    `${t(x.wasm.median)} | ${r(x.wasm.ratio)} | ${t(x.js.median)} | ${r(x.js.ratio)} | ` +
    `${x.memoryPack ? `${t(x.memoryPack.median)}: ${r(x.memoryPack.overNative)}` : '—'} |`);
}
const behind = rows.filter((x) => x.native.ratio.median < 1);
console.log(behind.length === 0 ? 'scratchpack C native >= 1.0x MessagePack-CSharp on every row (median of per-round ratios).'
  : `scratchpack C native below 1.0x on: ${behind.map((x) => `${x.workload} ${x.mode} ${x.op}`).join(', ')}`);

if (record) {
  const doc = existsSync(record) ? JSON.parse(readFileSync(record, 'utf8')) : {};
  const clean = (s) => ({ median: round1(s.median), low: round1(s.low), high: round1(s.high) });
  const cleanR = (s) => ({ median: round2(s.median), low: round2(s.low), high: round2(s.high) });
  doc.sideBySide = {
    what: 'bench/dotnet-side.mjs (npm run peer:dotnet -- --record): ns per call, median over rounds (low..high); ratio = C# / scratchpack per round',
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    node: process.version,
    rounds: ROUNDS, samples: SAMPLES, sampleMs: MS, seconds,
    rows: rows.map((x) => ({
      workload: x.workload, mode: x.mode, op: x.op, bytes: x.bytes, csharpMode: x.csharpMode,
      csharp: clean(x.csharp),
      ...(x.memoryPack ? { memoryPack: { ...clean(x.memoryPack), bytes: x.memoryPack.bytes, overNative: cleanR(x.memoryPack.overNative) } } : {}),
      native: { ...clean(x.native), ratio: cleanR(x.native.ratio) },
      wasm: { ...clean(x.wasm), ratio: cleanR(x.wasm.ratio) },
      js: { ...clean(x.js), ratio: cleanR(x.js.ratio), how: x.js.how },
    })),
  };
  writeFileSync(record, JSON.stringify(doc, null, 2) + '\n');
  console.log(`recorded: ${record} (sideBySide)`);
}
