// errors.js -- the one error every scratchpack call throws.
// Owns: ScratchpackError, the codes (C's and JS's own, one table), the
// element-path notation. Must not touch: encoding or decoding.

// One vocabulary for C and JS: sp_code n (src/include/sp_error.h) is
// C_CODES[n - 1] here and SP_E_<that name> there. tests/js/vocabulary.test.js
// checks this list against the header; the README's error table lists both.
const C_CODES = [
  'NOMEM',            // 1  no memory: the allocation hook, the WASM heap
  'INVALID_ARGUMENT', // 2  an argument, option or schema table against the API's contract
  'CANCELLED',        // 3  the cancel flag or AbortSignal, close() while encoding
  'LENGTH_LIMIT',     // 4  a length over 2^32-1 or over a limit
  'VALUE_RANGE',      // 5  a value the format cannot carry: a BigInt outside 64 bits, an invalid Date
  'BUFFER_TOO_SMALL', // 6  encodeInto's target (C: the caller's output) is full
  'SINK',             // 7  the to_stream sink failed: C's (its code in 'inner'), encodeToStream's writable (its error in 'cause')
  'CALLBACK',         // 8  a user callback failed: C's formatter or ext handler (code in 'inner'), JS's extension encode/decode, a getter, Proxy or valueOf (error in 'cause')
  'TRUNCATED',        // 9  decode: the input ends inside a value or before what a header announces
  'MALFORMED',        // 10 decode: 0xc1, or a timestamp of bad length or nanoseconds
  'TYPE',             // 11 C: a read of another type than the one there
  'DEPTH_LIMIT',      // 12 nesting deeper than the depth limit (encode and decode)
  'OVERFLOW',         // 13 C: a value too big for the narrower integer read
  'TRAILING_BYTES',   // 14 decode: bytes left after the value
];

// Codes only JS raises.
const JS_CODES = [
  'UNSUPPORTED_TYPE', // encode: a function, symbol, WeakMap, ...
  'CYCLE',            // encode: a value that contains itself
  'CLOSED',           // the instance was closed
  'INTERNAL',         // a C code this package does not know, or a broken build
  'NOT_READY',        // a module-level encode before `await ready()` where the module cannot load synchronously (browsers)
  'RELEASED',         // a lease read after release() (its memory may hold another message)
];

/** The stable codes a ScratchpackError carries: codes.X === 'X'. */
export const codes = Object.freeze(Object.fromEntries([...C_CODES, ...JS_CODES].map((c) => [c, c])));

/** The C codes in sp_code's order (index n - 1 for sp_code n). */
export const cCodes = Object.freeze(C_CODES.slice());

/**
 * An error with a stable `code`, the byte `offset` (decoding: the input's;
 * encoding: the output's, where the writer got to) and the element `path`
 * (encoding) where it happened, and an ES2022 `cause`. An error with no
 * offset has none (undefined), never -1.
 */
export class ScratchpackError extends Error {
  constructor(code, message, { offset, path = null, cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'ScratchpackError';
    this.code = code;
    this.offset = typeof offset === 'number' && offset >= 0 ? offset : undefined;
    this.path = path;
  }
}

/** The code for a C sp_code number. */
export function codeFromC(n) {
  return (n >= 1 && C_CODES[n - 1]) || codes.INTERNAL;
}

/** '1 byte', '2 bytes': a count and its noun, for messages. */
export const plural = (n, noun) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** A decode error at byte `offset`. */
export function decodeError(code, offset, what) {
  return new ScratchpackError(code, `${what} (at byte ${offset})`, { offset });
}

// ---- element paths --------------------------------------------------------
// While an encode error unwinds, each container adds where it was; the path
// reads like JS: [2].tags[1], .name, ["odd key"], .get("k") for a Map entry.

const identifier = /^[A-Za-z_$][\w$]*$/;

/** A step into an array: index i. */
export const indexStep = (i) => ({ kind: 'index', key: i });
/** A step into an object: property key. */
export const keyStep = (k) => ({ kind: 'key', key: k });
/** A step into a Map: the value at key. */
export const mapStep = (k) => ({ kind: 'map', key: k });
/** A step onto a Map's key itself (the key could not be encoded). */
export const mapKeyStep = (k) => ({ kind: 'mapKey', key: k });

function showKey(k) {
  if (typeof k === 'string') return JSON.stringify(k);
  if (typeof k === 'number' || typeof k === 'boolean' || k == null) return String(k);
  if (typeof k === 'bigint') return `${k}n`;
  return `<${Object.prototype.toString.call(k).slice(8, -1)}>`;
}

/**
 * A path of more than PATH_SHOWN characters keeps about its first and last
 * half around an ellipsis and the number of steps left out: a DEPTH_LIMIT
 * at depth 500 would otherwise carry 1,500 characters of "[0]".
 */
export const PATH_SHOWN = 200;

/** path shortened to about PATH_SHOWN characters, cut between steps. */
export function abbreviatePath(path) {
  if (path.length <= PATH_SHOWN) return path;
  const half = PATH_SHOWN / 2;
  const starts = /[[.]/g;                // where a step begins (a quoted key may fool it: only the cut moves)
  let head = 0, tail = -1;
  for (let m; (m = starts.exec(path)) !== null;) {
    if (m.index <= half) head = m.index;
    if (tail < 0 && m.index >= path.length - half) tail = m.index;
  }
  if (head === 0) head = half;
  if (tail < 0) tail = path.length - half;
  const left = path.slice(head, tail);
  const steps = (left.match(starts) || []).length;
  return `${path.slice(0, head)}…(${steps} steps)…${path.slice(tail)}`;
}

/** Renders steps (outermost first) as a path string; '' is the root. */
export function formatPath(steps) {
  let out = '';
  for (const s of steps) {
    if (s.kind === 'index') out += `[${s.key}]`;
    else if (s.kind === 'key') out += identifier.test(s.key) ? `.${s.key}` : `[${showKey(s.key)}]`;
    else if (s.kind === 'map') out += `.get(${showKey(s.key)})`;
    else out += `.keys(${showKey(s.key)})`;
  }
  return out;
}

/**
 * An encode failure on its way up: containers push their steps (innermost
 * first) with `within`; the entry turns it into a ScratchpackError.
 */
export class EncodeFailure {
  constructor(code, what, cause) {
    this.code = code;
    this.what = what;
    this.cause = cause;
    this.steps = [];
    this.offset = -1;
    this.root = '';               // '$' when a contract's encode began the walk
  }
}

/**
 * Adds a container step to an unwinding failure. A ScratchpackError, or an
 * error the value's own code threw (a getter, a Proxy trap, valueOf), is
 * made one; a stack overflow passes as it is (the frames it unwinds have
 * no room for more work: finishEncodeError makes it DEPTH_LIMIT).
 */
export function within(e, step) {
  if (e instanceof EncodeFailure) e.steps.push(step);
  else if (e instanceof ScratchpackError) return toFailure(e, step);
  else if (!isStackOverflow(e)) {
    const f = foreignFailure(e);
    f.steps.push(step);
    return f;
  }
  return e;
}

/** Whether e is the host's stack overflow (V8, SpiderMonkey, JSC). */
export function isStackOverflow(e) {
  return e instanceof Error && (e.name === 'RangeError' || e.name === 'InternalError') &&
    /call stack|too much recursion/i.test(e.message);
}

// An error that is not the package's, thrown while the value was read: the
// value's own code (CALLBACK), or the host out of memory (NOMEM).
function foreignFailure(e) {
  if (e instanceof RangeError && /allocation failed|invalid (typed )?array length|out of memory/i.test(e.message))
    return new EncodeFailure(codes.NOMEM, `no memory: ${e.message}`, e);
  const said = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  return new EncodeFailure(codes.CALLBACK, `reading the value threw (a getter, Proxy or valueOf): ${said}`, e);
}

function toFailure(err, step) {
  const f = new EncodeFailure(err.code, err.message.replace(/ at (path|byte) .*$/, ''), err.cause);
  f.offset = err.offset;
  f.steps.push(step);
  return f;
}

/** The ScratchpackError for an encode failure (or any error) at the top. */
export function finishEncodeError(e) {
  if (!(e instanceof EncodeFailure)) {
    if (e instanceof ScratchpackError) return e;
    if (isStackOverflow(e))
      return new ScratchpackError(codes.DEPTH_LIMIT,
        'value nested too deeply to encode (deeper than the stack allows: lower maxDepth)', { cause: e });
    e = foreignFailure(e);
  }
  const steps = e.steps.reverse();
  const path = abbreviatePath(e.root + formatPath(steps));
  const where = path === '' ? 'the value itself' : path;
  const at = e.offset >= 0 ? ` (output byte ${e.offset})` : '';
  return new ScratchpackError(e.code, `${e.what} at ${where}${at}`,
    { path, offset: e.offset, cause: e.cause });
}

/** Follows steps from root and returns the values along the way. */
export function valuesAlong(root, steps) {
  const out = [root];
  let v = root;
  for (const s of steps) {
    if (s.kind === 'index' || s.kind === 'key') v = v?.[s.key];
    else if (s.kind === 'map') v = v?.get?.(s.key);
    else v = s.key;
    out.push(v);
  }
  return out;
}

// ---- contract paths -----------------------------------------------------------
// A contract's decoder adds where it was to a failing read on the way up
// (the field, the element), and its top turns that into the path of the
// error: '$' is the contract's value, '$.items[3].score' a field of an
// element of a field. Encode errors go up as EncodeFailures (within above);
// a contract's top marks them to start at '$' too.

/** Adds a step to a decode error of a contract (other errors pass). */
export function decodeWithin(e, step) {
  if (e instanceof ScratchpackError) (e.steps || (e.steps = [])).push(step);
  return e;
}

/** The error a contract's decode throws: its path from '$', in the message too. */
export function finishDecodeError(e) {
  if (!(e instanceof ScratchpackError) || e.path !== null) return e;
  const path = abbreviatePath(`$${formatPath((e.steps || []).reverse())}`);
  const m = /^(.*?)( \(at byte \d+\))?$/s.exec(e.message);
  const err = new ScratchpackError(e.code, `${m[1]} at ${path}${m[2] || ''}`, { offset: e.offset, path, cause: e.cause });
  return err;
}

const typedArrayProto = Object.getPrototypeOf(Int8Array.prototype);
const isPrototypeOf = Object.prototype.isPrototypeOf;

/** What a value is, for messages: 'a string', 'null', 'an Array', 'a Point'. */
export function describeValue(v) {
  if (v === null) return 'null';
  if (v === undefined) return 'undefined (missing)';
  if (typeof v === 'number' && !Number.isFinite(v)) return `${v}`;                    // NaN, Infinity
  if (typeof v !== 'object') return `a ${typeof v}${typeof v === 'number' && !Number.isInteger(v) ? ' with a fraction' : ''}`;
  const name = v.constructor?.name || 'object';
  const what = `${/^(?:[AEIO]|U(?!int))/i.test(name) ? 'an' : 'a'} ${name}`;   // a Uint8Array, an Object
  // A Proxy of a typed array (or an object with its prototype) says it is one and is not.
  return isPrototypeOf.call(typedArrayProto, v) && !ArrayBuffer.isView(v)
    ? `${what} that is not one (a Proxy, or an object with its prototype)` : what;
}
