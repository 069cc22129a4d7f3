// wasm.js -- finds, loads and instantiates an Emscripten module.
// Owns: the test for whether threads may be used, the choice between a
// module's pthread build and its single-threaded one, reading the .wasm
// bytes (Node cannot fetch file: URLs; browsers fetch), the pthread pool
// size, and ending the pool's workers. The package's modules by default;
// the page passes its own (dist-web/). Must not touch: encoding; callers
// get the raw module and its memory (m.spMemory: the WebAssembly.Memory,
// which the single-threaded build does not otherwise expose).

import { ScratchpackError, codes } from './errors.js';

const isNode = typeof process === 'object' && !!process.versions?.node;

/** Whether this host can run the pthread build (shared memory, and in a browser cross-origin isolation). */
export function canUseThreads() {
  if (typeof SharedArrayBuffer !== 'function') return false;
  return isNode || globalThis.crossOriginIsolated !== false;
}

async function readBinary(url) {
  if (isNode) {
    const { readFile } = await import('node:fs/promises');
    return readFile(url);
  }
  const res = await fetch(url);
  if (!res.ok) throw new ScratchpackError(codes.INTERNAL, `fetching ${url} failed (HTTP ${res.status}): is the module built?`);
  return new Uint8Array(await res.arrayBuffer());
}

// The package's two builds (dist/, shipped by npm pack). Literal import
// paths, so that bundlers see them.
const packaged = {
  threads: { load: () => import('../dist/scratchpack.mjs'), wasm: new URL('../dist/scratchpack.wasm', import.meta.url) },
  single: { load: () => import('../dist/scratchpack-st.mjs'), wasm: new URL('../dist/scratchpack-st.wasm', import.meta.url) },
};

/**
 * Loads a module: the pthread build when `threaded`, else the single-
 * threaded one, from `files` ({ threads, single }, each { load() -> the
 * ES module, wasm: URL }; the package's by default). `poolSize` pthread
 * workers are started with it (pthread build only); `wasmBinary`, when
 * given, is used instead of reading the .wasm; `log` gets the module's
 * printed lines. Returns the Emscripten Module object, with its
 * WebAssembly.Memory as `spMemory` (imported by the pthread build,
 * exported by the other).
 */
export async function loadModule({ threaded, poolSize, wasmBinary, files = packaged,
  log = (line) => console.error(`scratchpack: ${line}`) }) {
  const build = threaded ? files.threads : files.single;
  let factory;
  try {
    factory = (await build.load()).default;
  } catch (e) {
    throw new ScratchpackError(codes.INTERNAL,
      'the WebAssembly module is not built: run `npm start` (or bash tests/build-wasm.sh) first', { cause: e });
  }
  const bytes = wasmBinary || await readBinary(build.wasm);
  const settings = { wasmBinary: bytes, pthreadPoolSize: threaded ? poolSize : 0 };
  settings.print = settings.printErr = log;
  return new Promise((resolve, reject) => {
    // We instantiate the module ourselves: Emscripten 3.1.6 waits for its
    // pthread pool to load before it calls the module ready, and with a pool
    // of 0 that wait never ends -- so with no pool we end it here.
    settings.instantiateWasm = (imports, receive) => {
      WebAssembly.instantiate(bytes, imports).then(({ instance, module }) => {
        settings.spMemory = memoryOf(instance.exports) || Object.values(imports).map(memoryOf).find(Boolean);
        receive(instance, module);
        if (threaded && poolSize === 0) settings.removeRunDependency('wasm-instantiate');
      }, reject);
      return {};
    };
    factory(settings).then(resolve, reject);
  });
}

// The WebAssembly.Memory among an object's values (export names are minified).
function memoryOf(o) {
  return Object.values(o).find((v) => v instanceof WebAssembly.Memory);
}

/** Node only: lets the process exit while the pool's workers are idle. */
export function unrefWorkers(m) {
  if (!isNode || !m.PThread) return;
  for (const w of [...m.PThread.unusedWorkers, ...m.PThread.runningWorkers]) w.unref?.();
}

/** Ends every pthread worker of the module (no thread can be started afterwards). */
export function endWorkers(m) {
  if (m.PThread) m.PThread.terminateAllThreads();
}
