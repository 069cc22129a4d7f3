// trace.js -- the page's one door to its WebAssembly module: loads it and
// runs the flows of wasm/flows/, handing back plain data (events, bytes,
// counters, samples); and the fan-out recorded from the pthread build, for
// pages without threads. Owns: which module the page runs (its own, in
// dist-web/: the core, the tracer and the flows, never shipped in the
// package), strings into and traces out of linear memory (laid out as
// js/abi.js reads the module's own layout table), polling the
// fan-out. It runs in the page's worker (worker.js) and under Node (the
// tests, record-fanout.mjs). Loading, and the choice of build (pthreads when
// the page is cross-origin isolated), are js/wasm.js's, as for the package.
// Must not touch: the DOM or what a flow means (flows/*.js and model.js do
// that).

import { cString, flowCalls, flowsAbi } from '../js/abi.js';
import { canUseThreads, loadModule } from '../js/wasm.js';

export { canUseThreads };

const KINDS = [null, 'ENTRY', 'SCRATCH', 'SCRATCH_BUSY', 'RESERVE', 'WRITE', 'MIGRATE',
  'SEGMENT', 'COPY_OUT', 'SINK', 'RELEASE', 'EXIT'];
const BUFFERS = [null, 'scratch', 'segment', 'output'];

/** The page's module in `dir` (dist-web/ next to web/; the server maps /dist-web/). */
export function flowFiles(dir = new URL('../dist-web/', import.meta.url)) {
  const build = (name, worker) => ({ load: () => loadOnce(new URL(`${name}.mjs`, dir), worker && new URL(worker, dir)),
    wasm: new URL(`${name}.wasm`, dir) });
  return { threads: build('scratchpack-flows', 'scratchpack-flows.worker.js'), single: build('scratchpack-flows-st') };
}

// Each pthread worker would fetch the worker script and then the module's
// script again (Emscripten starts them from the URLs), so a page load
// fetched the script 5 times and the worker script 4 times. In a browser
// both are fetched once here and the workers start from in-memory copies
// (blob: URLs, which the workers import without a request); the .wasm is
// already read once and handed to them compiled. Under Node (the tests,
// record-fanout.mjs) the files are imported as they are.
async function loadOnce(script, worker) {
  if (typeof Blob === 'undefined' || typeof URL.createObjectURL !== 'function' || !/^https?:$/.test(script.protocol)) {
    return import(script.href);
  }
  // The copy resolves the names it builds from import.meta.url (its .wasm,
  // its worker) against the file's own URL: a blob: URL is no base for them.
  const copy = async (url) => {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`${url.pathname} did not load (HTTP ${res.status})`);
    const text = (await res.text()).replaceAll('import.meta.url', JSON.stringify(url.href));
    return URL.createObjectURL(new Blob([text], { type: 'text/javascript' }));
  };
  const [scriptCopy, workerCopy] = await Promise.all([copy(script), worker ? copy(worker) : null]);
  const mod = await import(scriptCopy);
  // The module object Emscripten fills is the settings object js/wasm.js
  // passes: name the in-memory copies on it rather than replace it.
  return { default: (settings) => mod.default(Object.assign(settings, {
    mainScriptUrlOrBlob: scriptCopy,
    locateFile: (name) => (workerCopy && name.endsWith('.worker.js') ? workerCopy : new URL(name, script).href),
  })) };
}

/**
 * Loads the page's module: the pthread build with 4 workers (the fan-out's
 * producer and 3 consumers) where threads may be used, else the single-
 * threaded one.
 */
export async function loadFlows(files = flowFiles()) {
  const threaded = canUseThreads();
  const m = await loadModule({ threaded, poolSize: 4, files, log: (line) => console.info(`scratchpack: ${line}`) });
  return createFlows(m, threaded);
}

/** The flow runner over an instantiated module (Node tests build one themselves). */
export function createFlows(m, threaded) {
  const c = flowCalls(m);             // its calls, named in js/abi.js
  const mem = linearMemory(m);
  const abi = flowsAbi(m, mem.heap());  // the records' layouts, from the module itself
  return {
    threaded,

    /** [1 .. nints, text] through to_array with a scratch of `scratch` bytes. */
    writer({ nints, text: s, scratch }) {
      return readTrace(m, abi, mem.withString(s, (p, n) => c.writer(nints, p, n, scratch)));
    },

    /** Outer{before, Envelope(Small{id, name, 1.5}), 99}; mode 0 legacy to_array, 1 to_output, 2 safe. */
    envelope({ mode, before, id, name, scratch = 0 }) {
      const code = mem.withString(before, (bp, bn) => mem.withString(name, (np, nn) =>
        c.envelope(mode, bp, bn, id | 0, np, nn, scratch)));
      const trace = readTrace(m, abi, code);
      trace.readable = c.checkOuter() === 1;
      trace.readBack = cString(mem.heap(), c.message());
      return trace;
    },

    /** One traced call of an entry (0 to_array, 1 to_output, 2 to_stream) on the small or big object. */
    entry({ entry, big }) {
      return readTrace(m, abi, c.entry(entry, big ? 1 : 0));
    },

    /** The document's measurement: warm-up calls, then the mean over n calls, from the counters. */
    measure({ entry, big, warm = 200, n = 2000 }) {
      const out = c.malloc(abi.measurement.bytes);
      try {
        const code = c.measure(entry, big ? 1 : 0, warm, n, out);
        return { code, ...abi.measurement.read(mem.heap().buffer, out) };
      } finally { c.free(out); }
    },

    /** The fan-out on pthreads (runFanout). */
    fanout: (params, onSample, wait) => runFanout(m, abi, threaded, params, onSample, wait),

    /** Ends the pthread workers (Node tests; a page simply closes). */
    close() { m.PThread?.terminateAllThreads(); },
  };
}

// Strings into and out of linear memory.
function linearMemory(m) {
  const c = flowCalls(m);
  const heap = () => m.HEAPU8;      // memory never grows in these builds: the view stays valid
  const utf8 = new TextEncoder();
  return {
    heap,
    // A UTF-8 copy of s in linear memory for the length of fn. (encodeInto
    // refuses a shared view in Chromium, so encode then copy.)
    withString(s, fn) {
      const b = utf8.encode(s);
      const p = c.malloc(b.length + 1);
      heap().set(b, p);
      try { return fn(p, b.length); } finally { c.free(p); }
    },
  };
}

// The trace the last flow call recorded: its events (the bytes of each
// WRITE), whether the trace overflowed, and the call's result bytes.
function readTrace(m, abi, code) {
  const c = flowCalls(m);
  const h = m.HEAPU8;
  const view = new DataView(h.buffer);
  const base = c.events(), bytes = c.bytes();
  const events = [];
  for (let i = 0, n = c.eventCount(); i < n; i++) {
    const o = base + i * abi.event.bytes, e = abi.event.read(view, o);
    e.kind = KINDS[e.kind];
    e.buffer = BUFFERS[e.buffer];
    if (e.kind === 'WRITE') {
      const at = bytes + abi.event.data(view, o);
      e.bytes = h.slice(at, at + e.size);
    }
    events.push(e);
  }
  const r = c.result();
  return { code, events, overflow: c.overflow() !== 0,
    result: h.slice(r, r + c.resultLen()) };
}

/**
 * Runs the fan-out on pthreads (kind 0 shared pool, 1 lock-free pool,
 * 2 no pool) and resolves with its samples; onSample sees each one as it
 * lands. `wait` yields to the event loop (the page runs this in its
 * worker, where nothing may block: the pthreads report back through it).
 * Rejects with err.code 'no-threads' in the single-threaded build.
 */
async function runFanout(m, abi, threaded, { kind, consumers, waves, parts, perPart }, onSample = () => {}, wait = tick) {
  const c = flowCalls(m);
  if (!threaded) throw Object.assign(new Error('the fan-out needs the pthread build'), { code: 'no-threads' });
  const w = c.malloc(waves.length * 4);
  new Uint32Array(m.HEAPU8.buffer, w, waves.length).set(waves);
  let rc;
  // -3: a worker of the last run has not gone back to the pthread pool yet.
  for (let tries = 0; (rc = c.fanoutStart(kind, consumers, w, waves.length, parts, perPart)) === -3 && tries < 50; tries++) {
    while (!c.fanoutFinish()) await wait();
    await wait(20);
  }
  c.free(w);
  if (rc !== 0) throw Object.assign(new Error(`the fan-out did not start (${rc})`), { code: 'start' });
  const samples = [];
  const collect = () => {
    const n = c.fanoutCount();
    const u32 = new Uint32Array(m.HEAPU8.buffer), at = c.fanoutSamples() >>> 2;
    for (let i = samples.length; i < n; i++) {
      samples.push(abi.sample.read(u32, at + i * (abi.sample.bytes >>> 2), consumers));
      onSample(samples[i], samples);
    }
  };
  while (c.fanoutState() === abi.fanoutRunning) { collect(); await wait(); }
  collect();
  while (!c.fanoutFinish()) await wait();   // threads still exiting: then free the pool
  return samples;
}

function tick(ms = 2) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The native benchmark's ns per return (web/record-pools-native.mjs), shown beside the live figures; null when missing. */
export async function recordedNative(url = new URL('./recorded/pools-native.json', import.meta.url)) {
  const res = await fetch(url).catch(() => null);
  return res && res.ok ? res.json() : null;
}

/** MessagePack-CSharp's own figures (bench/dotnet-peer.json, written by
 *  npm run peer:dotnet -- --record; web/serve.mjs serves it here), shown
 *  beside the document's; null when missing. */
export async function recordedDotnet(url = new URL('./recorded/dotnet-peer.json', import.meta.url)) {
  const res = await fetch(url).catch(() => null);
  return res && res.ok ? res.json() : null;
}

/** The fan-out recorded from the pthread build (web/record-fanout.mjs), for pages without threads. */
export async function recordedFanout(url = new URL('./recorded/fanout.json', import.meta.url)) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`the recorded fan-out is missing (HTTP ${res.status})`);
  return res.json();
}
