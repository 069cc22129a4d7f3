// model.js -- pure: replays trace events into memory (byte cells per
// buffer, who wrote each, what was overwritten) and turns a flow's steps
// into a model with a cursor. Owns: the memory machine, snapshots, stepping.
// Must not touch: the DOM, the module (trace.js), timing (player.js).

/** Cell states, as render.js colours them. */
export const CELL = { EMPTY: 0, WRITTEN: 1, NESTED: 2, OVERWRITTEN: 3, COPIED: 4 };

const TIERS = [null, 'a pool hit', 'the next bucket', 'a fresh array', 'unpooled'];

/** An empty machine: buffers by key (in creation order) and a call stack. */
export function createMachine() {
  return { buffers: new Map(), stack: [], calls: 0, changed: new Map(), results: [] };
}

function buffer(mc, key, init) {
  let b = mc.buffers.get(key);
  if (!b) {
    b = { key, used: 0, cells: new Uint8Array(0), state: new Uint8Array(0), owner: new Int32Array(0),
      released: false, ...init };
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
  b.owner = grow(b.owner, Int32Array);
}

function mark(mc, b, i) {
  let s = mc.changed.get(b.key);
  if (!s) mc.changed.set(b.key, (s = new Set()));
  s.add(i);
}

/** Writes bytes at offset into b on behalf of call `call` at `depth`. */
function put(mc, b, offset, bytes, call, depth, copied = false) {
  reach(b, offset + bytes.length);
  for (let k = 0; k < bytes.length; k++) {
    const i = offset + k;
    const other = b.owner[i] !== 0 && b.owner[i] !== call;
    b.cells[i] = bytes[k];
    b.state[i] = copied ? CELL.COPIED : other ? CELL.OVERWRITTEN : depth > 1 ? CELL.NESTED : CELL.WRITTEN;
    b.owner[i] = call;
    mark(mc, b, i);
  }
  b.used = Math.max(b.used, offset + bytes.length);
}

function top(mc) { return mc.stack[mc.stack.length - 1]; }

const ENTRY_NAMES = [null, 'to_array', 'to_output', 'to_stream'];

/** Applies one event. Returns a short fact about it for the flows' texts. */
export function apply(mc, e) {
  const call = top(mc);
  switch (e.kind) {
    case 'ENTRY':
      mc.stack.push({ id: ++mc.calls, depth: e.depth, entry: ENTRY_NAMES[e.flag], scratch: null, segs: [] });
      return { entry: ENTRY_NAMES[e.flag] };
    case 'SCRATCH': {
      const key = `scratch@${e.addr}`;
      const b = buffer(mc, key, { kind: 'scratch', size: e.size, label: `scratch (this thread's, ${fmt(e.size)} B)` });
      call.scratch = b.key;
      return { fresh: e.flag === 1, shared: e.index === 1, size: e.size };
    }
    case 'SCRATCH_BUSY':
      call.busy = true;
      return {};
    case 'SEGMENT': {
      const b = buffer(mc, `seg${call.id}.${e.index}`, { kind: 'segment', size: e.size,
        label: `segment ${e.index} (call ${call.id}, ${fmt(e.size)} B from ${TIERS[e.flag] || 'the pool'})` });
      call.segs[e.index] = b.key;
      return { index: e.index, size: e.size, tier: TIERS[e.flag] };
    }
    case 'WRITE': {
      let key;
      if (e.buffer === 'scratch') key = call.scratch;
      else if (e.buffer === 'segment') key = call.segs[e.index];
      else key = buffer(mc, `out${call.id}`, { kind: 'output', size: 0, label: "the caller's buffer (IBufferWriter)" }).key;
      const b = mc.buffers.get(key);
      put(mc, b, e.offset, e.bytes, call.id, call.depth);
      if (b.kind === 'output') b.size = Math.max(b.size, b.used);
      return { key, offset: e.offset, bytes: e.bytes };
    }
    case 'MIGRATE': {
      const from = mc.buffers.get(call.scratch), to = mc.buffers.get(call.segs[0]);
      put(mc, to, 0, from.cells.slice(0, e.size), call.id, call.depth, true);
      call.migrated = true;
      return { size: e.size };
    }
    case 'COPY_OUT': {
      const bytes = e.flag === 1 ? mc.buffers.get(call.scratch).cells.slice(0, e.size)
        : concat(call.segs.map((k) => mc.buffers.get(k))).slice(0, e.size);
      const b = buffer(mc, `result${call.id}`, { kind: 'result', size: e.size,
        label: `result of call ${call.id}: new array of ${fmt(e.size)} B` });
      put(mc, b, 0, bytes, call.id, call.depth, true);
      mc.results.push({ call: call.id, depth: call.depth, bytes });
      return { size: e.size, from: e.flag === 1 ? 'scratch' : 'segments' };
    }
    case 'SINK': {
      const seg = mc.buffers.get(call.segs[e.index]);
      const b = buffer(mc, `stream${call.id}`, { kind: 'result', size: 0, label: 'the stream (sink)' });
      put(mc, b, b.used, seg.cells.slice(0, e.size), call.id, call.depth, true);
      b.size = b.used;
      return { index: e.index, size: e.size };
    }
    case 'RELEASE':
      for (const k of call.segs) if (k) mc.buffers.get(k).released = true;
      return { segments: e.size };
    case 'EXIT':
      mc.stack.pop();
      return { code: e.flag, length: e.size };
    default:                        // RESERVE
      return { offset: e.offset, size: e.size, fits: e.flag === 1 };
  }
}

function concat(bufs) {
  const parts = bufs.filter(Boolean).map((b) => b.cells.slice(0, b.used));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

/** A frozen copy of the memory as it is now; clears the change marks. */
export function snapshot(mc) {
  const out = [];
  for (const b of mc.buffers.values()) {
    const changed = mc.changed.get(b.key);
    out.push({ key: b.key, kind: b.kind, label: b.label, size: b.size, used: b.used,
      released: b.released, cells: b.cells.slice(0, b.used), state: b.state.slice(0, b.used),
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

/** A model: one flow case's steps and a cursor. */
export function createModel(flowId, caseIndex, steps, extra = {}) {
  return { flowId, caseIndex, steps, cursor: 0, ...extra };
}

/** The model moved by delta steps (clamped to the ends). */
export function step(model, delta) {
  return seek(model, model.cursor + delta);
}

/** The model at step i (clamped). */
export function seek(model, i) {
  const last = Math.max(0, model.steps.length - 1);
  return { ...model, cursor: Math.min(last, Math.max(0, i | 0)) };
}

/** The current step, or null for an empty model. */
export function current(model) {
  return model.steps[model.cursor] || null;
}

export function atEnd(model) {
  return model.cursor >= model.steps.length - 1;
}

/** Index of the step named `name`, or -1. */
export function stepNamed(model, name) {
  return model.steps.findIndex((s) => s.name === name);
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
