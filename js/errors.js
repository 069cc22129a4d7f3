// errors.js -- the one error every scratchpack call throws.
// Owns: ScratchpackError, the codes, the element-path notation, the mapping
// from C sp_code numbers. Must not touch: encoding or decoding.

/** The stable codes a ScratchpackError carries. */
export const codes = Object.freeze({
  TRUNCATED: 'TRUNCATED',               // decode: the input ends inside a value
  INVALID_CODE: 'INVALID_CODE',         // decode: 0xc1, or a malformed timestamp
  DEPTH_LIMIT: 'DEPTH_LIMIT',           // nesting deeper than limits.maxDepth
  LENGTH_LIMIT: 'LENGTH_LIMIT',         // a length over one of the limits
  TRAILING_BYTES: 'TRAILING_BYTES',     // decode: bytes left after the value
  UNSUPPORTED_TYPE: 'UNSUPPORTED_TYPE', // encode: a function, symbol, WeakMap, ...
  CYCLE: 'CYCLE',                       // encode: a value that contains itself
  VALUE_RANGE: 'VALUE_RANGE',           // encode: a BigInt outside 64 bits, an invalid Date
  BUFFER_TOO_SMALL: 'BUFFER_TOO_SMALL', // encodeInto: the target is full
  CANCELLED: 'CANCELLED',               // an AbortSignal fired, or close() ran
  NOMEM: 'NOMEM',                       // the WASM heap is full
  CLOSED: 'CLOSED',                     // the instance was closed
  INVALID_ARGUMENT: 'INVALID_ARGUMENT', // an option or argument of the wrong kind
  INTERNAL: 'INTERNAL',                 // a C error with no better name
});

/**
 * An error with a stable `code`, the byte `offset` (decoding, encodeInto)
 * or the element `path` (encoding) where it happened, and an ES2022 `cause`.
 */
export class ScratchpackError extends Error {
  constructor(code, message, { offset = -1, path = null, cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'ScratchpackError';
    this.code = code;
    this.offset = offset;
    this.path = path;
  }
}

// C sp_code numbers (src/include/sp_error.h) to codes.
const fromC = [
  null, codes.NOMEM, codes.INTERNAL, codes.CANCELLED, codes.LENGTH_LIMIT, codes.VALUE_RANGE,
  codes.BUFFER_TOO_SMALL, codes.INTERNAL, codes.INTERNAL, codes.TRUNCATED, codes.INVALID_CODE,
  codes.INVALID_CODE, codes.DEPTH_LIMIT, codes.VALUE_RANGE,
];

/** The code for a C sp_code number. */
export function codeFromC(n) {
  return fromC[n] || codes.INTERNAL;
}

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
  }
}

/** Adds a container step to an unwinding failure (other errors pass). */
export function within(e, step) {
  if (e instanceof EncodeFailure) e.steps.push(step);
  else if (e instanceof ScratchpackError) return toFailure(e, step);
  return e;
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
    if (e instanceof RangeError && /call stack/i.test(e.message))
      return new ScratchpackError(codes.DEPTH_LIMIT, 'value nested too deeply to encode', { cause: e });
    return e;
  }
  const steps = e.steps.reverse();
  const path = formatPath(steps);
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
