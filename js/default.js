// default.js -- the module-level entries (encode, encodeInto, encodeView,
// encodeToStream): ready on import, as msgpackr's pack is, under `import`
// and `require` alike, over one instance of the single-threaded module with
// the default options, made on the first call (decode, decodeMultiple and
// decodeStream need no module: decode.js, decode-stream.js). Owns: when
// that instance is made, and ready(). Must not touch: the entries
// (scratchpack.js) or loading (wasm.js).
//
// Under Node the first call loads the module synchronously (wasm.js,
// loadModuleSync: about what createScratchpack takes, once). A page can
// only fetch the .wasm asynchronously, so there `await ready()` comes
// first; a call before it throws NOT_READY (and starts the load). No top-level await
// anywhere in the package: require() of an ES module refuses a graph with one.

import { ScratchpackError, codes } from './errors.js';
import { normalize } from './options.js';
import { Scratchpack } from './scratchpack.js';
import { loadModule, loadModuleSync } from './wasm.js';

let instance = null;
let loading = null;

const make = (m) => new Scratchpack(m, normalize({ wasm: 'single' }), false);

// The default instance, made now if this host can load the module synchronously; else null.
function now() {
  if (instance !== null) return instance;
  const m = loadModuleSync();
  return m === null ? null : (instance ??= make(m));
}

// The default instance, or NOT_READY.
function shared() {
  const sp = now();
  if (sp !== null) return sp;
  ready().catch(() => {});              // its error comes again from the ready() the user awaits
  throw new ScratchpackError(codes.NOT_READY,
    'the module-level encode needs the WebAssembly module, which this host loads asynchronously: ' +
    '`await ready()` once before the first call (or use `await createScratchpack()`)');
}

/**
 * Resolves once the module-level entries can run: at once under Node (the
 * module loads synchronously on the first call anyway); in a browser, once
 * the single-threaded module is fetched and compiled. Rejects with the
 * missing-file error (INTERNAL) when it cannot be loaded; a later call tries again.
 */
export function ready() {
  if (instance !== null) return Promise.resolve();
  loading ??= loadModule({ threaded: false, poolSize: 0 }).then(
    (m) => { instance ??= make(m); },
    (e) => { loading = null; throw e; });
  return loading;
}

/** Encodes value into a Uint8Array of exactly its size (Scratchpack#encode; results as its default). */
export function encode(value, options) {
  return shared().encode(value, options);
}

/** Encodes value into target from offset; returns the bytes written (Scratchpack#encodeInto). */
export function encodeInto(value, target, offset = 0, options = undefined) {
  return shared().encodeInto(value, target, offset, options);
}

/** Encodes value and returns a lease on its bytes in linear memory (Scratchpack#encodeView). */
export function encodeView(value, options) {
  return shared().encodeView(value, options);
}

/** Encodes value to a writable while it walks it (Scratchpack#encodeToStream); waits for ready(). */
export async function encodeToStream(value, writable, options) {
  if (now() === null) await ready();
  return instance.encodeToStream(value, writable, options);
}
