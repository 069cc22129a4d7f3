// wasm.js -- finds, loads and instantiates an Emscripten module.
// Owns: the test for whether threads may be used, the choice between a
// module's pthread build and its single-threaded one, where the package's
// files are (the .mjs, the .wasm, the pthread worker), loading them and
// saying which one could not be loaded, the pthread pool size, and ending
// the pool's workers. The package's modules by default; the page passes its
// own (dist-web/). Must not touch: encoding; callers get the raw module and
// its memory (m.spMemory: the WebAssembly.Memory, which the single-threaded
// build does not otherwise expose). Nothing here imports a node: module:
// Node's file reads live in files-node.js, which browser bundles never see.

import { isPackageModule } from './abi.js';
import { ScratchpackError, codes } from './errors.js';

const isNode = typeof process === 'object' && !!process.versions?.node;

/** Whether this host can run the pthread build (shared memory, and in a browser cross-origin isolation). */
export function canUseThreads() {
  if (typeof SharedArrayBuffer !== 'function') return false;
  return isNode || globalThis.crossOriginIsolated !== false;
}

// Node reads the files from disk (Node 20's fetch takes no file: URLs) with
// files-node.js. The package's "node" entry (node.js) hands it over; a
// direct import of js/index.js under Node loads it by a name held in a
// variable, which bundlers leave alone, so a browser bundle never holds it.
let nodeFiles = null;
const nodeFilesModule = './files-node.js';

/** Called by the "node" entry: the Node file reader (files-node.js). */
export function useNodeFiles(files) {
  nodeFiles = files;
}

async function fileHost() {
  if (!isNode) return browserFiles;
  nodeFiles ??= await import(/* @vite-ignore */ /* webpackIgnore: true */ nodeFilesModule);
  return nodeFiles;
}

/** What a package user is told when one of the package's files is missing. */
export function missingFile(url, why, cause) {
  return new ScratchpackError(codes.INTERNAL,
    `scratchpack could not load ${url} (${why}): the package is incomplete or its files were not ` +
    'copied beside the bundle (see docs/bundlers.md); in a clone of the repository, run `npm run build`',
    cause ? { cause } : undefined);
}

const browserFiles = {
  async read(url) {
    const res = await fetch(url).catch((e) => { throw missingFile(url, e.message, e); });
    if (!res.ok) throw missingFile(url, `HTTP ${res.status}`);
    return new Uint8Array(await res.arrayBuffer());
  },
  async check(url) {
    const res = await fetch(url).catch((e) => { throw missingFile(url, e.message, e); });
    res.body?.cancel();
    if (!res.ok) throw missingFile(url, `HTTP ${res.status}`);
  },
};

// The package's two builds (dist/, shipped by npm pack), each named by a
// literal import() and `new URL('../dist/…', import.meta.url)`, the forms
// bundlers follow (Vite and webpack copy the .wasm and rewrite its URL;
// webpack also sets import.meta.url to the file's path at build). esbuild
// follows the import() but leaves the URL as written, relative to the
// bundle; there this file no longer ends in js/wasm.js, and the .wasm is
// looked for beside the bundle instead (the esbuild recipe copies dist/'s
// files there). The pthread worker is Emscripten's own concern: it starts
// it from `new URL('scratchpack.worker.js', import.meta.url)` in its module
// (Vite and webpack bundle that worker; without a bundler, or with esbuild,
// it is the file beside the module), and the worker imports ./scratchpack.mjs.
// webpack follows every `new URL(x, import.meta.url)` and warns when x is
// not a literal, so the one with a variable name goes through `here`.
const here = import.meta.url;
const bundledAsIs = !/\/js\/wasm\.js$/.test(new URL(here).pathname);
function located(url, name) {
  return bundledAsIs && url.pathname.endsWith(`/dist/${name}`) ? new URL(name, here) : url;
}
const packaged = {
  threads: {
    load: () => import('../dist/scratchpack.mjs'),
    wasm: located(new URL('../dist/scratchpack.wasm', import.meta.url), 'scratchpack.wasm'),
    names: { wasm: 'scratchpack.wasm', worker: 'scratchpack.worker.js', script: 'scratchpack.mjs' },
  },
  single: {
    load: () => import('../dist/scratchpack-st.mjs'),
    wasm: located(new URL('../dist/scratchpack-st.wasm', import.meta.url), 'scratchpack-st.wasm'),
    names: { wasm: 'scratchpack-st.wasm', script: 'scratchpack-st.mjs' },
  },
};

// Whether the build's files sit beside its .wasm under their own names (no
// bundler, or esbuild's recipe); a bundler that renamed the .wasm emitted
// the others itself.
function ownNames(build) {
  return !!build.names && new URL(build.wasm).pathname.endsWith(`/${build.names.wasm}`);
}
const beside = (build, name) => new URL(build.names[name], build.wasm);

/**
 * Loads a module: the pthread build when `threaded`, else the single-
 * threaded one, from `files` ({ threads, single }, each { load() -> the
 * ES module, wasm: URL, and optionally names: { wasm, script, worker },
 * the file names checked when a file will not load }; the package's by
 * default). `poolSize` pthread workers are started with it (pthread build
 * only); `wasmBinary`, when given, is used instead of reading the .wasm;
 * `log` gets the module's printed lines. Returns the Emscripten Module
 * object, with its WebAssembly.Memory as `spMemory` (imported by the
 * pthread build, exported by the other). Rejects with a ScratchpackError
 * (INTERNAL) naming the file when one cannot be loaded.
 */
export async function loadModule({ threaded, poolSize, wasmBinary, files = packaged,
  log = (line) => console.error(`scratchpack: ${line}`) }) {
  const build = threaded ? files.threads : files.single;
  const host = await fileHost();
  // The package's single-threaded script: under Node, through require() as
  // loadModuleSync loads it, never import(): a require() of a module whose
  // import() is still in flight fails inside Node.
  let factory = build === packaged.single ? requireFactory(build) : null;
  try {
    factory ??= (await build.load()).default;
  } catch (e) {
    if (ownNames(build)) await host.check(beside(build, 'script'));   // names it when it is missing
    throw missingFile('the module script', e.message, e);
  }
  const bytes = wasmBinary || wasmFile(build.wasm, await host.read(build.wasm));
  // The workers load the worker script and it imports the module's script:
  // a missing one would leave the pool, and so this promise, waiting forever.
  const worker = threaded && ownNames(build) && build.names.worker ? beside(build, 'worker') : null;
  if (worker && poolSize > 0) await Promise.all([host.check(worker), host.check(beside(build, 'script'))]);
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
        // A worker that fails to start rejects instead of leaving the pool
        // waiting; once the module is ready, Emscripten's handler is back.
        for (const w of settings.PThread?.unusedWorkers ?? []) {
          const own = w.onerror;
          w.onerror = (e) => (ready ? own.call(w, e)
            : reject(missingFile(worker || 'the pthread worker', e.message || 'it failed to start', e)));
        }
        if (threaded && poolSize === 0) settings.removeRunDependency('wasm-instantiate');
      }, reject);
      return {};
    };
    let ready = false;
    factory(settings).then((m) => { ready = true; resolve(m); }, reject);
  });
}

/**
 * Node only: loads the package's single-threaded module synchronously (for
 * the module-level entries, which must work on import without await, under
 * `import` and `require` alike). Its script comes through require() of an
 * ES module (Node >= 20.19, or 22.12), its bytes through readFileSync, and
 * it is compiled and instantiated with the synchronous WebAssembly.Module
 * and Instance. Returns the Emscripten Module object as loadModule does,
 * or null where this cannot be done (not Node; a Node without require() of
 * ES modules): the caller then loads it with loadModule. Throws the
 * missing-file error (INTERNAL) naming a file that is not there.
 */
export function loadModuleSync({ files = packaged, log = (line) => console.error(`scratchpack: ${line}`) } = {}) {
  const build = files.single;
  const factory = requireFactory(build);
  if (factory === null) return null;
  const { readFileSync } = process.getBuiltinModule('node:fs');
  const { fileURLToPath } = process.getBuiltinModule('node:url');
  const path = fileURLToPath(build.wasm);
  let bytes;
  try {
    bytes = wasmFile(path, readFileSync(path));
  } catch (e) {
    throw e instanceof ScratchpackError ? e : missingFile(path, e.code || e.message, e);
  }
  const settings = { wasmBinary: bytes, pthreadPoolSize: 0 };
  settings.print = settings.printErr = log;
  let failed = null;
  settings.instantiateWasm = (imports, receive) => {
    try {
      const module = new WebAssembly.Module(bytes);
      const instance = new WebAssembly.Instance(module, imports);
      settings.spMemory = memoryOf(instance.exports);
      receive(instance, module);
      return instance.exports;
    } catch (e) {
      failed = e;
      return {};
    }
  };
  // With the instance received at once, Emscripten runs the module before
  // its factory returns (its promise resolves later): settings is the Module.
  factory(settings).catch(() => {});      // a failure is seen below, synchronously
  if (failed !== null || !isPackageModule(settings) || !settings.spMemory)
    throw new ScratchpackError(codes.INTERNAL, `scratchpack: ${path} did not start${failed ? `: ${failed.message}` : ''}`,
      failed ? { cause: failed } : undefined);
  return settings;
}

// Node only: the Emscripten factory of a build's script, loaded by
// require() of an ES module; null where this host has no such require (not
// Node; Node before 20.19 or 22.12). Throws the missing-file error.
function requireFactory(build) {
  if (!isNode || typeof process.getBuiltinModule !== 'function') return null;
  const { createRequire } = process.getBuiltinModule('node:module');
  const { fileURLToPath } = process.getBuiltinModule('node:url');
  const script = fileURLToPath(beside(build, 'script'));
  try {
    return createRequire(here)(script).default;
  } catch (e) {
    if (e.code === 'ERR_REQUIRE_ESM') return null;
    throw missingFile(script, e.code || e.message, e);
  }
}

// The bytes read from `url`, when they are WebAssembly: a server that
// answers a missing file with a page (a dev server's fallback) gives 200.
function wasmFile(url, bytes) {
  if (bytes.length >= 4 && bytes[0] === 0 && bytes[1] === 0x61 && bytes[2] === 0x73 && bytes[3] === 0x6d) return bytes;
  const start = Array.from(bytes.subarray(0, 4), (b) => b.toString(16).padStart(2, '0')).join(' ');
  throw missingFile(url, `not a WebAssembly file: it starts ${start || '(empty)'}, not 00 61 73 6d`);
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
