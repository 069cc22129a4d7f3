// model.js -- pure: replays trace events into memory (byte cells per
// buffer, who wrote each, what was overwritten and what it was before),
// turns a flow's steps into a model with a cursor, and lays the memory out
// so that every step of a case shows the same buffers and cells.
// Owns: the memory machine, snapshots, the layout pass, stepping.
// Must not touch: the DOM, the module (trace.js), timing (player.js).

/** Cell states, as render.js draws them (a colour, a glyph and a name each). */
export const CELL = { EMPTY: 0, WRITTEN: 1, NESTED: 2, OVERWRITTEN: 3, REWRITTEN: 4, COPIED: 5 };
export const CELL_NAMES = ['empty', 'written', 'nested', 'overwritten', 'rewritten', 'copied'];

const TIERS = [null, 'a pool hit', 'the next bucket', 'a fresh array', 'unpooled'];
const ENTRY_NAMES = [null, 'to_array', 'to_output', 'to_stream'];

/** An empty machine: buffers by key (in creation order) and a call stack. */
export function createMachine() {
  return { buffers: new Map(), stack: [], calls: 0, changed: new Map(), results: [] };
}

function buffer(mc, key, init) {
  let b = mc.buffers.get(key);
  if (!b) {
    b = { key, used: 0, cells: new Uint8Array(0), state: new Uint8Array(0), prev: new Uint8Array(0),
      owner: new Int32Array(0), released: false, abandoned: false, pending: null, ...init };
    mc.buffers.set(key, b);
  }
  return b;
}

// Grows a buffer's tracked cells to n (capacity may be 64 KiB; we keep only
// what has been touched).
function reach(b, n) {
  if (n <= b.cells.length) return;
  const cap = Math.max(n, b.cells.length * 2, 16);
  const grow = (a, T) => { const x = new T(cap); x.set(a); return x; };
  b.cells = grow(b.cells, Uint8Array);
  b.state = grow(b.state, Uint8Array);
  b.prev = grow(b.prev, Uint8Array);
  b.owner = grow(b.owner, Int32Array);
}

function marks(mc, b) {
  let s = mc.changed.get(b.key);
  if (!s) mc.changed.set(b.key, (s = new Set()));
  return s;
}

const active = (mc, id) => mc.stack.some((c) => c.id === id);

// The state of a byte that `call` writes over cell i: its own cell, a cell
// of an outer call still running (that call's byte is lost: overwritten), or
// a leftover of a call that has finished (harmless: rewritten).
function writeState(mc, b, i, call) {
  const o = b.owner[i];
  if (o === 0 || o === call.id) return call.depth > 1 ? CELL.NESTED : CELL.WRITTEN;
  return active(mc, o) ? CELL.OVERWRITTEN : CELL.REWRITTEN;
}

/** Writes bytes at offset into b on behalf of `call`. */
function put(mc, b, offset, bytes, call) {
  reach(b, offset + bytes.length);
  const m = marks(mc, b);
  for (let k = 0; k < bytes.length; k++) {
    const i = offset + k;
    const s = writeState(mc, b, i, call);
    if (s === CELL.OVERWRITTEN) b.prev[i] = b.cells[i];
    b.cells[i] = bytes[k];
    b.state[i] = s;
    b.owner[i] = call.id;
    m.add(i);
  }
  b.used = Math.max(b.used, offset + bytes.length);
  b.pending = null;
}

/** Copies src (cells, state, prev, owner) into b at offset on behalf of
 *  `call`: copied, except that a byte another call overwrote stays
 *  overwritten (and keeps what it was) -- for its owner it is right. */
function copy(mc, b, offset, src, call) {
  const n = src.cells.length;
  reach(b, offset + n);
  const m = marks(mc, b);
  for (let k = 0; k < n; k++) {
    const i = offset + k;
    const bad = src.state[k] === CELL.OVERWRITTEN && src.owner[k] !== call.id;
    b.cells[i] = src.cells[k];
    b.state[i] = bad ? CELL.OVERWRITTEN : CELL.COPIED;
    b.prev[i] = bad ? src.prev[k] : 0;
    b.owner[i] = call.id;
    m.add(i);
  }
  b.used = Math.max(b.used, offset + n);
}

const FIELDS = ['cells', 'state', 'prev', 'owner'];
const head = (b, n) => Object.fromEntries(FIELDS.map((f) => [f, b[f].slice(0, n)]));

function concat(bufs, n) {
  const out = { cells: new Uint8Array(n), state: new Uint8Array(n), prev: new Uint8Array(n), owner: new Int32Array(n) };
  let at = 0;
  for (const b of bufs) {
    if (!b || at >= n) continue;
    const k = Math.min(b.used, n - at);
    for (const f of FIELDS) out[f].set(b[f].subarray(0, k), at);
    at += k;
  }
  return out;
}

function top(mc) { return mc.stack[mc.stack.length - 1]; }

// The buffer a call writes into now (its segment once it migrated).
function current(mc, call, e) {
  if (e.buffer === 'scratch') return mc.buffers.get(call.scratch);
  if (e.buffer === 'segment') return mc.buffers.get(call.segs[e.index] || call.segs[call.segs.length - 1]);
  return buffer(mc, `out${call.id}`, { kind: 'output', size: 0, label: "the caller's buffer (IBufferWriter)" });
}

/** Applies one event. Returns a short fact about it for the flows' texts. */
export function apply(mc, e) {
  const call = top(mc);
  switch (e.kind) {
    case 'ENTRY':
      mc.stack.push({ id: ++mc.calls, depth: e.depth, entry: ENTRY_NAMES[e.flag], scratch: null, segs: [] });
      return { entry: ENTRY_NAMES[e.flag] };
    case 'SCRATCH': {
      const b = buffer(mc, `scratch@${e.addr}`, { kind: 'scratch', size: e.size, label: `scratch (this thread's, ${fmt(e.size)} B)` });
      b.abandoned = false;
      call.scratch = b.key;
      return { fresh: e.flag === 1, shared: e.index === 1, size: e.size };
    }
    case 'SCRATCH_BUSY':
      call.busy = true;
      return {};
    case 'SEGMENT': {
      const b = buffer(mc, `seg${call.id}.${e.index}`, { kind: 'segment', size: e.size,
        label: `segment ${e.index} (call ${call.id}, ${fmt(e.size)} B from ${TIERS[e.flag] || 'the pool'})` });
      for (const k of call.segs) if (k) mc.buffers.get(k).pending = null;
      call.segs[e.index] = b.key;
      return { index: e.index, size: e.size, tier: TIERS[e.flag] };
    }
    case 'RESERVE': {
      const b = e.flag ? null : current(mc, call, e);
      if (b) b.pending = { offset: e.offset, size: e.size };      // does not fit: shown on the gauge
      return { offset: e.offset, size: e.size, fits: e.flag === 1 };
    }
    case 'WRITE': {
      const b = current(mc, call, e);
      put(mc, b, e.offset, e.bytes, call);
      if (b.kind === 'output') b.size = Math.max(b.size, b.used);
      return { key: b.key, offset: e.offset, bytes: e.bytes };
    }
    case 'MIGRATE': {
      const from = mc.buffers.get(call.scratch), to = mc.buffers.get(call.segs[0]);
      copy(mc, to, 0, head(from, e.size), call);
      from.pending = null;
      from.abandoned = true;                  // the writer never comes back to it
      call.migrated = true;
      return { size: e.size };
    }
    case 'COPY_OUT': {
      const src = e.flag === 1 ? head(mc.buffers.get(call.scratch), e.size)
        : concat(call.segs.map((k) => mc.buffers.get(k)), e.size);
      const b = buffer(mc, `result${call.id}`, { kind: 'result', size: e.size,
        label: `result of call ${call.id}: new array of ${fmt(e.size)} B` });
      copy(mc, b, 0, src, call);
      mc.results.push({ call: call.id, depth: call.depth, bytes: src.cells });
      return { size: e.size, from: e.flag === 1 ? 'scratch' : 'segments' };
    }
    case 'SINK': {
      const seg = mc.buffers.get(call.segs[e.index]);
      const b = buffer(mc, `stream${call.id}`, { kind: 'result', size: 0, label: 'the stream (sink)' });
      copy(mc, b, b.used, head(seg, e.size), call);
      b.size = b.used;
      return { index: e.index, size: e.size };
    }
    case 'RELEASE':
      for (const k of call.segs) if (k) mc.buffers.get(k).released = true;
      return { segments: e.size };
    case 'EXIT':
      mc.stack.pop();
      return { code: e.flag, length: e.size };
    default:
      return {};
  }
}

/** A frozen copy of the memory as it is now; clears the change marks. */
export function snapshot(mc) {
  const out = [];
  for (const b of mc.buffers.values()) {
    const changed = mc.changed.get(b.key);
    out.push({ key: b.key, kind: b.kind, label: b.label, size: b.size, used: b.used,
      released: b.released, abandoned: b.abandoned, pending: b.pending && { ...b.pending },
      cells: b.cells.slice(0, b.used), state: b.state.slice(0, b.used), prev: b.prev.slice(0, b.used),
      changed: changed ? [...changed].sort((a, z) => a - z) : [] });
  }
  mc.changed = new Map();
  return out;
}

/**
 * A steps builder over a trace: flows call next()/peek() to walk events and
 * emit(step) to cut a step; each emitted step carries a memory snapshot.
 */
export function walker(events) {
  const mc = createMachine();
  const steps = [];
  let i = 0;
  return {
    mc,
    steps,
    peek: (k = 0) => events[i + k],
    done: () => i >= events.length,
    next() { const e = events[i++]; return { e, fact: apply(mc, e) }; },
    emit(step) { steps.push({ ...step, memory: snapshot(mc) }); },
  };
}

// ---- layout: the same buffers and the same number of cells at every step --

const LAYOUT = { all: 40, head: 12, tail: 12 };
const GAUGED = new Set(['scratch', 'segment']);

/**
 * Replaces each step's memory snapshots by views: every buffer of the case
 * (in order of first appearance, absent before it exists), each drawn with
 * the same number of cells at every step -- all of them when few; else the
 * head and a window that follows the writing (or shows the buffer's end
 * when a reservation overflows it). Also turns a step's `diff` into rows.
 * Returns the cell states the case uses (its legend).
 */
export function layout(steps, o = LAYOUT) {
  const all = new Map();
  for (const s of steps) {
    for (const b of s.memory || []) {
      const a = all.get(b.key) || { key: b.key, kind: b.kind, label: b.label, extent: 0, size: 0 };
      a.extent = Math.max(a.extent, b.used);
      a.size = Math.max(a.size, b.size || 0);
      a.label = b.label;
      all.set(b.key, a);
    }
  }
  const used = new Set();
  for (const s of steps) {
    const snaps = new Map((s.memory || []).map((b) => [b.key, b]));
    s.memory = [...all.values()].map((a) => view(a, snaps.get(a.key), o));
    for (const v of s.memory) for (const c of v.cells) if (c.v >= 0) used.add(c.s);
    if (s.diff) s.diff = diffRows(s.diff);
  }
  return CELL_NAMES.filter((_, i) => i === CELL.EMPTY || used.has(i));
}

function view(a, b, o) {
  const size = GAUGED.has(a.kind) ? a.size : Math.max(a.size, a.extent);
  const ranges = windowOf(size, a.extent, b, o);
  const changed = new Set(b ? b.changed : []);
  const cells = [];
  for (const [from, to] of ranges) {
    for (let i = from; i < to; i++) {
      const has = !!b && i < b.used && b.state[i] !== CELL.EMPTY;
      cells.push({ i, v: has ? b.cells[i] : -1, s: has ? b.state[i] : CELL.EMPTY,
        p: has && b.state[i] === CELL.OVERWRITTEN ? b.prev[i] : -1, c: changed.has(i) });
    }
  }
  return { key: a.key, kind: a.kind, label: b ? b.label : a.label.split(/:| \(/)[0], absent: !b, size,
    released: !!b && b.released, abandoned: !!b && b.abandoned, ranges,
    gauge: GAUGED.has(a.kind) ? { size, used: b ? b.used : 0, pending: b ? b.pending : null } : null,
    cells };
}

// Which cell indexes to draw: all when few; else the head and a tail window.
function windowOf(size, extent, b, o) {
  if (size <= o.all) return [[0, size]];
  if (extent + 4 <= o.all) return [[0, Math.max(extent + 4, 16)]];
  let focus = o.head;
  if (b && b.pending && b.pending.offset + b.pending.size > size) focus = size;
  else if (b && b.changed.length) focus = b.changed[b.changed.length - 1] + 3;
  else if (b) focus = b.used + 2;
  const from = Math.min(size - o.tail, Math.max(o.head, focus - o.tail));
  return from === o.head ? [[0, o.head + o.tail]] : [[0, o.head], [from, from + o.tail]];
}

// Expected against actual, byte by byte.
function diffRows(d) {
  const n = Math.max(d.expected.bytes.length, d.actual.bytes.length);
  const cells = [];
  let differ = 0, first = -1, last = -1;
  for (let i = 0; i < n; i++) {
    const e = i < d.expected.bytes.length ? d.expected.bytes[i] : -1;
    const a = i < d.actual.bytes.length ? d.actual.bytes[i] : -1;
    if (e !== a) { differ++; if (first < 0) first = i; last = i; }
    cells.push({ i, e, a, same: e === a });
  }
  return { expected: d.expected.label, actual: d.actual.label, cells, differ, first, last, length: n };
}

// ---- the model and its cursor ----------------------------------------------

/** A model: one flow case's steps and a cursor. */
export function createModel(flowId, caseIndex, steps, extra = {}) {
  return { flowId, caseIndex, steps, cursor: 0, ...extra };
}

/** 1234567 -> "1,234,567" (the documents' style). */
export function fmt(n) {
  return Math.round(n).toLocaleString('en-US');
}

/** Bytes as spaced upper-case hex: 93 AA 41. */
export function hex(bytes, max = 24) {
  const a = Array.from(bytes.slice(0, max), (b) => b.toString(16).toUpperCase().padStart(2, '0'));
  return a.join(' ') + (bytes.length > max ? ' …' : '');
}

/** What .NET counts for a byte[] of n bytes on x64: a 24-byte header (object
 *  header, type pointer, length), the whole rounded up to 8 (001_*.txt:
 *  new byte[16] is 40 B). */
export function dotnetArrayBytes(n) {
  return Math.ceil((24 + n) / 8) * 8;
}
