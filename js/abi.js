// abi.js -- the boundary between JS and a WebAssembly module: its export
// names and its layouts. Owns: the modules' export names (the one place in
// js/ and web/ that spells them: PACKAGE_CALLS and FLOW_CALLS below, each
// bound once per module into an object of plain functions, packageCalls and
// flowCalls), reading the layout table each module exports (wasm/sp_abi.h:
// names, offsets and sizes computed by the compiler of that very build,
// since wasm32 lays structs out otherwise than a native build), checking
// that every field JS reads is there at the width it reads, the readers and
// offsets built from it (the package's span record, task record and stats;
// the page's trace events, fan-out samples and measurements), and C
// strings. Must not touch: what a record or a call means to its user (the
// sinks, tasks.js, scratchpack.js, web/trace.js decide that). The modules'
// export lists are wasm/package/exports.txt, wasm/flows/exports.txt and
// wasm/wasi/exports.txt; tests/js/abi.test.js holds the tables here to them
// and checks that no other file of js/ or web/ names an export. The
// benchmarks (bench/) and the tests may call a module's exports by name.

import { ScratchpackError, codes } from './errors.js';

const utf8 = new TextDecoder();

/**
 * The NUL-terminated string at p in u8, decoded as UTF-8 ('' for NULL). A
 * copy is decoded: TextDecoder refuses a view of shared memory.
 */
export function cString(u8, p) {
  p >>>= 0;
  if (p === 0) return '';
  let end = p;
  while (end < u8.length && u8[end] !== 0) end++;
  return utf8.decode(u8.slice(p, end));
}

// snake_case (C) to camelCase (JS), per segment of a path.
const camel = (s) => s.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());

/**
 * The layout table at p (three uint32 per entry: name, offset, size; a NULL
 * name ends it), as { records: { name: { size, fields: { path: { offset,
 * size } } } }, consts: { name: value } }. Paths and names are camelCased.
 */
export function readLayout(u8, p) {
  const u32 = new Uint32Array(u8.buffer, u8.byteOffset, u8.length >>> 2);
  const records = {}, consts = {};
  for (let i = (p >>> 0) >>> 2; u32[i] !== 0; i += 3) {
    const name = cString(u8, u32[i]), offset = u32[i + 1], size = u32[i + 2];
    const dot = name.indexOf('.');
    if (dot < 0) records[name] = { size, fields: {} };
    else if (name.slice(0, dot) === 'const') consts[camel(name.slice(dot + 1))] = offset;
    else records[name.slice(0, dot)].fields[name.slice(dot + 1).split('.').map(camel).join('.')] = { offset, size };
  }
  return { records, consts };
}

// The record's fields JS reads, checked: present, `width` bytes wide (an
// array field: a multiple of it) and aligned to it. Returns the record.
function need(layout, record, names, width, where) {
  const r = layout.records[record];
  const bad = (what) => new ScratchpackError(codes.INTERNAL, `${where}: ${what} (js/abi.js)`);
  if (r === undefined) throw bad(`the module states no layout of '${record}'`);
  for (const n of names) {
    const f = r.fields[n];
    if (f === undefined) throw bad(`'${record}' has no field '${n}'`);
    if (f.size === 0 || f.size % width !== 0 || f.offset % width !== 0)
      throw bad(`'${record}.${n}' is ${f.size} bytes at ${f.offset}, not ${width}-byte words`);
  }
  return r;
}

// ---- the package's module (wasm/package/) ----------------------------------

/**
 * The package module's exports js/ calls, by the name its call sites use
 * (each is sp_wasm_<name> in wasm/package/, which says what it does).
 */
export const PACKAGE_CALLS = Object.freeze({
  abi: '_sp_wasm_abi',
  // jobs: the span protocol (sp_wasm_jobs.c)
  jobNew: '_sp_wasm_job_new', beginArray: '_sp_wasm_begin_array', beginStream: '_sp_wasm_begin_stream',
  reserve: '_sp_wasm_reserve', finish: '_sp_wasm_finish', length: '_sp_wasm_length', view: '_sp_wasm_view',
  release: '_sp_wasm_release', pieceCount: '_sp_wasm_piece_count', pieceData: '_sp_wasm_piece_data',
  pieceLen: '_sp_wasm_piece_len', errorCode: '_sp_wasm_error_code', errorCause: '_sp_wasm_error_cause',
  errorOffset: '_sp_wasm_error_offset',
  // bulk numeric arrays and LZ4 blocks (sp_wasm_bulk.c, sp_wasm_lz4.c)
  writeArray: '_sp_wasm_write_array', readArray: '_sp_wasm_read_array', encodeArray: '_sp_wasm_encode_array',
  lz4Decompress: '_sp_wasm_lz4_decompress',
  // staging and linear memory, pools, numbers (sp_wasm_memory.c, sp_wasm_pools.c, sp_wasm_stats.c)
  alloc: '_sp_wasm_alloc', free: '_sp_wasm_free', setMemoryCap: '_sp_wasm_set_memory_cap',
  memoryMax: '_sp_wasm_memory_max', configure: '_sp_wasm_configure', trim: '_sp_wasm_trim',
  stats: '_sp_wasm_stats', kernel: '_sp_wasm_kernel',
  // off-thread tasks and their workers (sp_wasm_tasks.c, sp_wasm_workers.c)
  taskNew: '_sp_wasm_task_new', taskFree: '_sp_wasm_task_free', taskRun: '_sp_wasm_task_run',
  taskSubmit: '_sp_wasm_task_submit', workersStart: '_sp_wasm_workers_start', workersStop: '_sp_wasm_workers_stop',
  workersLive: '_sp_wasm_workers_live', workersJoin: '_sp_wasm_workers_join',
});

/**
 * The package module's exports js/ does not call: the cap's reader is the
 * memory hook's (wasm/sp_memory.js, linked into the module), the LZ4 block
 * calls are the benchmarks' (js/ compresses through the entries).
 */
export const PACKAGE_UNUSED = Object.freeze(['_sp_wasm_lz4_bound', '_sp_wasm_lz4_compress', '_sp_wasm_memory_cap']);

/** Whether m is a started package module (js/wasm.js asks). */
export function isPackageModule(m) {
  return typeof m[PACKAGE_CALLS.abi] === 'function';
}

const callsOf = new WeakMap();     // module -> { table -> bound calls }

// A module's calls named in `table` ({ short: export name }) as one object
// of plain functions, bound once per module and table. Emscripten 3.1.6
// first exports a wrapper that looks the WebAssembly function up on every
// call until it is called once, when it puts the function itself in its
// place; each entry here does the same, so that from its first call on it
// is the WebAssembly function itself.
function bindCalls(m, table, what) {
  let byTable = callsOf.get(m);
  if (byTable === undefined) callsOf.set(m, (byTable = new Map()));
  let c = byTable.get(table);
  if (c === undefined) {
    c = {};
    for (const [short, name] of Object.entries(table)) {
      if (typeof m[name] !== 'function')
        throw new ScratchpackError(codes.INTERNAL, `${what} does not export ${name} (js/abi.js)`);
      c[short] = (...args) => {
        const r = m[name](...args);
        c[short] = m[name];
        return r;
      };
    }
    byTable.set(table, c);
  }
  return c;
}

/**
 * The package module's calls: { alloc(n), reserve(job, n), ... }
 * (PACKAGE_CALLS), bound once per module. Call sites keep the object in a
 * field.
 */
export function packageCalls(m) {
  return bindCalls(m, PACKAGE_CALLS, 'the package module');
}

/** The page's flows module's calls, by short name (wasm/flows/exports.txt). */
export const FLOW_CALLS = Object.freeze({
  malloc: '_malloc', free: '_free', abi: '_sp_flow_abi',
  events: '_sp_flow_events', eventCount: '_sp_flow_event_count', bytes: '_sp_flow_bytes',
  overflow: '_sp_flow_overflow', result: '_sp_flow_result', resultLen: '_sp_flow_result_len',
  message: '_sp_flow_message', writer: '_sp_flow_writer', envelope: '_sp_flow_envelope',
  checkOuter: '_sp_flow_check_outer', entry: '_sp_flow_entry', measure: '_sp_flow_measure',
  fanoutStart: '_sp_flow_fanout_start', fanoutFinish: '_sp_flow_fanout_finish',
  fanoutSamples: '_sp_flow_fanout_samples', fanoutCount: '_sp_flow_fanout_count',
  fanoutState: '_sp_flow_fanout_state',
});

/** The flows module's calls (FLOW_CALLS), bound once per module. */
export function flowCalls(m) {
  return bindCalls(m, FLOW_CALLS, 'the flows module');
}

const SPAN_FIELDS = ['cur', 'end', 'base', 'mode'];
const TASK_FIELDS = ['state', 'cancel', 'kind', 'n', 'src', 'result', 'resultLen', 'code', 'cause',
  'scratchSize', 'compression'];

const packageAbis = new WeakMap();

/**
 * The package module's layouts, read once per module: `span` (byte
 * offsets of the span record at the start of a job, its size, and the mode
 * that means "in the scratch": what js/sink-heap.js reads), `task`
 * (word indices of sp_wasm_task's fields, its size in bytes, and the state
 * that means done) and `stats` (the record's size and a reader).
 */
export function packageAbi(m, u8) {
  let abi = packageAbis.get(m);
  if (abi === undefined) {
    const layout = readLayout(u8, m[PACKAGE_CALLS.abi]());
    const where = 'the package module';
    const span = need(layout, 'span', SPAN_FIELDS, 4, where);
    const task = need(layout, 'task', TASK_FIELDS, 4, where);
    const stats = layout.records.stats;
    need(layout, 'stats', Object.keys(stats?.fields ?? {}), 8, where);
    abi = Object.freeze({
      span: Object.freeze({ size: span.size, ...Object.fromEntries(SPAN_FIELDS.map((n) => [n, span.fields[n].offset])),
        scratch: layout.consts.modeScratch }),
      task: Object.freeze({ ...Object.fromEntries(TASK_FIELDS.map((n) => [n, task.fields[n].offset >>> 2])),
        bytes: task.size, done: layout.consts.taskDone }),
      stats: Object.freeze({ bytes: stats.size, read: fields8(stats, int64) }),
      layout,
    });
    packageAbis.set(m, abi);
  }
  return abi;
}

// A reader of a record of 8-byte fields: (buffer, at) -> the object whose
// keys are its field paths ("pool.slotHits" -> { pool: { slotHits } }), in
// C's order, each field read by get(view, offset).
function fields8(record, get) {
  const plan = Object.entries(record.fields).map(([path, f]) => [path.split('.'), f.offset]);
  return (buffer, at) => {
    const view = new DataView(buffer, at, record.size);
    const out = {};
    for (const [keys, offset] of plan) {
      let o = out;
      for (let k = 0; k < keys.length - 1; k++) o = o[keys[k]] ??= {};
      o[keys[keys.length - 1]] = get(view, offset);
    }
    return out;
  };
}

const float64 = (view, o) => view.getFloat64(o, true);
// An int64_t as a number, exact below 2^53; two halves rather than
// getBigInt64, so that stats() needs no BigInt.
const int64 = (view, o) => view.getInt32(o + 4, true) * 2 ** 32 + view.getUint32(o, true);

// ---- the page's flows module (wasm/flows/) ----------------------------------

// What web/trace.js reads of an event, a sample (and returned[], per
// consumer) and a measurement.
const EVENT_BYTES = ['kind', 'depth', 'buffer', 'flag'];
const EVENT_WORDS = ['index', 'thread'];
const EVENT_LONGS = ['offset', 'size', 'addr'];
const SAMPLE_WORDS = ['phase', 'wave', 'tUs', 'inFlight', 'rents', 'returns', 'slotHits', 'partitionHits',
  'lockWaits', 'fresh', 'drops', 'cached', 'returnNs', 'phaseUs'];
const MEASUREMENT = ['bytesPerCall', 'allocsPerCall', 'length', 'usPerCall'];

/**
 * The flows module's layouts: `event` (its size; read(view, at) gives its
 * fields, data(view, at) the offset of a WRITE's bytes in the byte store),
 * `sample` (its size; read(u32, at, consumers) with `at` a word index),
 * `measurement` (its size; read(buffer, at)) and `fanoutRunning`.
 */
export function flowsAbi(m, u8) {
  const layout = readLayout(u8, flowCalls(m).abi());
  const where = 'the flows module';
  const event = need(layout, 'event', EVENT_BYTES, 1, where);
  need(layout, 'event', [...EVENT_WORDS, 'data'], 4, where);
  need(layout, 'event', EVENT_LONGS, 8, where);
  const sample = need(layout, 'sample', [...SAMPLE_WORDS, 'returned'], 4, where);
  const measurement = need(layout, 'measurement', MEASUREMENT, 8, where);
  const at = (r, names, shift) => names.map((n) => [n, r.fields[n].offset >>> shift]);
  const bytes = at(event, EVENT_BYTES, 0), words = at(event, EVENT_WORDS, 0), longs = at(event, EVENT_LONGS, 0);
  const data = event.fields.data.offset;
  const sampleWords = at(sample, SAMPLE_WORDS, 2), returned = sample.fields.returned.offset >>> 2;
  return Object.freeze({
    event: Object.freeze({ bytes: event.size, read(view, o) {
      const e = {};
      for (const [n, off] of bytes) e[n] = view.getUint8(o + off);
      for (const [n, off] of words) e[n] = view.getUint32(o + off, true);
      for (const [n, off] of longs) e[n] = Number(view.getBigUint64(o + off, true));
      return e;
    }, data: (view, o) => view.getUint32(o + data, true) }),
    sample: Object.freeze({ bytes: sample.size, read(u32, w, consumers) {
      const s = {};
      for (const [n, off] of sampleWords) s[n] = u32[w + off];
      s.returned = Array.from(u32.subarray(w + returned, w + returned + consumers));
      return s;
    } }),
    measurement: Object.freeze({ bytes: measurement.size, read: fields8(measurement, float64) }),
    fanoutRunning: layout.consts.fanoutRunning,
    layout,
  });
}
