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
// bests are the steadier figure (other jobs only ever add time). The rounds
// and the table: bench/wasm-table.mjs (shared with bench/wasm-chromium.mjs).
import { nodeLine } from './node-select.mjs';   // first: may rerun this script on another Node
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { printTable, runRounds, settings } from './wasm-table.mjs';

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
const set = settings();
const { rounds, samples, sampleMs, args } = set;
const self = fileURLToPath(import.meta.url);
const node = process.execPath;

// Each run is a process of its own.
const proc = (name, cmd, argv) => ({
  name, run: async () => execFileSync(cmd, argv, { encoding: 'utf8', timeout: 600000 }),
});
const builds = [
  proc('native', nativeBin, args),
  proc('wasi', node, ['--no-warnings', self, '--wasi', wasiFile, ...args]),
  proc('emcc st', node, [emStFile, ...args]),
  proc('emcc mt', node, [emMtFile, ...args]),
];

const result = await runRounds(builds, rounds);
printTable(builds, result, set, [`WASM builds on ${nodeLine}`]);
