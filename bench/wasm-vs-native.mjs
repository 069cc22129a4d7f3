// bench/wasm-vs-native.mjs -- runs bench/wasm_workloads.c built four ways
// (native, wasm32-wasi under node:wasi, Emscripten single-threaded and with
// pthreads under node), interleaved, and prints each WASM build's time over
// native. bench/wasm-vs-native.sh builds them and calls this with their
// paths: <native> <wasi.wasm> <emscripten-st.cjs> <emscripten-mt.cjs>.
// `node bench/wasm-vs-native.mjs --wasi <file.wasm> args...` runs one WASI
// program (each run is a process of its own, as every other build's).
//
// Method: SP_WASM_ROUNDS rounds (7); a round runs every build once, the
// order rotated by the round; each run times every case SP_WASM_SAMPLES
// times (3, ~SP_BENCH_SAMPLE_MS each) and prints its median and best. Per
// build and case: the best sample over all rounds and the median of the
// runs' medians; ratio = the build's time / native's (1.00: as fast as
// native; above: slower), by bests and by medians. On a shared machine the
// bests are the steadier figure (other jobs only ever add time).
import { nodeLine } from './node-select.mjs';   // first: may rerun this script on another Node
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

if (process.argv[2] === '--wasi') {
  const { WASI } = await import('node:wasi');      // only here: importing it warns
  const [file, ...args] = process.argv.slice(3);
  const wasi = new WASI({ version: 'preview1', args: [file, ...args], env: {}, returnOnExit: true });
  const module = await WebAssembly.compile(readFileSync(file));
  const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
  process.exit(wasi.start(instance));
}

const [nativeBin, wasiFile, emStFile, emMtFile] = process.argv.slice(2);
if (!emMtFile) {
  console.error('usage: node bench/wasm-vs-native.mjs <native> <wasi.wasm> <em-st.cjs> <em-mt.cjs> (see bench/wasm-vs-native.sh)');
  process.exit(2);
}
const int = (name, dflt) => {
  const v = Number.parseInt(process.env[name] ?? '', 10);
  return Number.isInteger(v) && v > 0 ? v : dflt;
};
const rounds = int('SP_WASM_ROUNDS', 7);
const samples = String(int('SP_WASM_SAMPLES', 3));
const sampleMs = String(int('SP_BENCH_SAMPLE_MS', 20));
const self = fileURLToPath(import.meta.url);
const node = process.execPath;

const builds = [
  { name: 'native', cmd: nativeBin, args: [samples, sampleMs] },
  { name: 'wasi', cmd: node, args: ['--no-warnings', self, '--wasi', wasiFile, samples, sampleMs] },
  { name: 'emcc st', cmd: node, args: [emStFile, samples, sampleMs] },
  { name: 'emcc mt', cmd: node, args: [emMtFile, samples, sampleMs] },
];

// One run: { case: [median, best] } and the int32 kernel it used.
function run(b) {
  const out = execFileSync(b.cmd, b.args, { encoding: 'utf8', timeout: 600000 });
  const times = {};
  let kernel = '?';
  for (const line of out.split('\n')) {
    const [k, med, best] = line.trim().split(/\s+/);
    if (k === 'kernel') kernel = med;
    else if (k && k !== 'checksum' && best !== undefined) times[k] = [Number(med), Number(best)];
  }
  return { times, kernel };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const got = builds.map(() => ({}));
const kernels = builds.map(() => '?');
for (let r = 0; r < rounds; r++) {
  for (let k = 0; k < builds.length; k++) {
    const i = (k + r) % builds.length;
    const { times, kernel } = run(builds[i]);
    kernels[i] = kernel;
    for (const [c, t] of Object.entries(times)) (got[i][c] ??= []).push(t);
  }
  process.stderr.write(`round ${r + 1}/${rounds}\r`);
}
process.stderr.write('\n');

const targets = { 'b.records-encode': 1.3, 'b.records-decode': 1.3, 'c.ints-encode': 1.5 };
const fmt = (ns) => (ns >= 1e4 ? `${(ns / 1e3).toFixed(1)}k` : ns.toFixed(1));
const best = (runs) => Math.min(...runs.map((t) => t[1]));
const med = (runs) => median(runs.map((t) => t[0]));
console.log(`WASM vs native, ${rounds} interleaved rounds x ${samples} samples of ~${sampleMs} ms; ` +
  'ns/op: best sample; ratio = WASM / native, by bests (by medians of the runs in brackets)');
console.log(`WASM builds on ${nodeLine}`);
console.log(`int32 kernels: ${builds.map((b, i) => `${b.name} ${kernels[i]}`).join(', ')}`);
const head = ['case', 'native', ...builds.slice(1).flatMap((b) => [b.name, 'ratio']), 'target'];
const widths = [24, 9, 9, 14, 9, 14, 9, 14, 7];
const row = (cells) => cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join(' ');
console.log(row(head));
for (const c of Object.keys(got[0])) {
  const base = got[0][c];
  const cells = [c, fmt(best(base))];
  for (let i = 1; i < builds.length; i++) {
    const runs = got[i][c];
    if (!runs) { cells.push('-', '-'); continue; }
    cells.push(fmt(best(runs)),
      `${(best(runs) / best(base)).toFixed(2)}x (${(med(runs) / med(base)).toFixed(2)})`);
  }
  cells.push(targets[c] ? `${targets[c]}x` : '-');
  console.log(row(cells));
}

// The peer rows (cwpack:<case>, mpack:<case>; built when their sources are
// there): how much faster scratchpack is than each peer on each build, so
// the WASM ratios above can be read against what the same C costs them.
const peerCases = Object.keys(got[0]).filter((c) => c.includes(':'));
if (peerCases.length === 0) {
  console.log('peer rows skipped: no CWPack/mpack sources (cmake/peers.cmake; set SP_PEERS)');
} else {
  console.log('\nscratchpack over each peer in the same build (peer time / scratchpack time, by bests; above 1: scratchpack faster)');
  console.log(row(['case', ...builds.map((b) => b.name)]));
  for (const c of peerCases) {
    const ours = c.slice(c.indexOf(':') + 1);
    const cells = [c];
    for (let i = 0; i < builds.length; i++) {
      const peer = got[i][c], sp = got[i][ours];
      cells.push(peer && sp ? `${(best(peer) / best(sp)).toFixed(2)}x` : '-');
    }
    console.log(row(cells));
  }
}
