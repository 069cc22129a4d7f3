// inspect.js -- a MessagePack message token by token, as annotated hex and as JSON.
// Owns: the walk over tokens (each one read by decoder.js's readToken, so
// with the decoder's checks, limits and error codes), the formats' names,
// the one-line rendering of a token, and the decoded value as JSON. Must
// not touch: reading bytes (decoder.js does all of it) or the command line
// (cli.js).

import { decodeDefaults, decodeOptions } from './decode-options.js';
import { decodeEnd, decodeFrom, decodeValue, readToken } from './decoder.js';
import { codes, decodeError } from './errors.js';
import { Ext } from './ext.js';

// The walk reads bins as views of the input: they are only rendered.
const walkOptions = decodeOptions({ binary: 'view' });

/**
 * Walks the value in bytes (with `sequence`, the values one after another
 * until the end), calling onToken for each token in order with
 * { at, end, depth, key, value } or { at, end, depth, key, container,
 * count }; `key` says the token is a map key. Returns the [start, end)
 * byte range of each value. A bad token throws the decoder's
 * ScratchpackError; the tokens before it have been passed to onToken
 * (null: none are, the walk only checks).
 */
export function walk(bytes, onToken, sequence = false) {
  const ranges = [];
  let at = 0;
  if (sequence && bytes.length === 0) return ranges;      // a log of no values
  do {
    const start = at;
    const open = [];                   // tokens still to come in each open container
    do {
      const depth = open.length;
      const key = depth > 0 && open[depth - 1].map && open[depth - 1].left % 2 === 0;
      const t = readToken(bytes, at, depth, walkOptions);
      if (depth > 0) open[depth - 1].left--;
      if (onToken !== null) onToken({ ...t, at, depth, key });
      at = t.end;
      if (t.container !== undefined && t.count > 0)
        open.push({ map: t.container === 'map', left: t.container === 'map' ? 2 * t.count : t.count });
      while (open.length > 0 && open[open.length - 1].left === 0) open.pop();
    } while (open.length > 0);
    ranges.push([start, at]);
  } while (sequence && at < bytes.length);
  return ranges;
}

/**
 * The decoded values of bytes, as decode() gives them: one value (trailing
 * bytes are TRAILING_BYTES), or with `sequence` each value the walk found.
 * Throws the decoder's ScratchpackError at the first bad token.
 */
export function inspect(bytes, onToken = () => {}, sequence = false) {
  const ranges = walk(bytes, onToken, sequence);
  if (!sequence) return [decodeValue(bytes, decodeDefaults)];
  return ranges.map(([start, end]) => decodeValue(bytes.subarray(start, end), decodeDefaults));
}

// ---- the formats -----------------------------------------------------------

// 0xc0..0xdf: name and header size (bytes before the body or the elements;
// for the scalars, the whole token).
const named = [
  ['nil', 1], ['never used', 1], ['false', 1], ['true', 1],
  ['bin8', 2], ['bin16', 3], ['bin32', 5], ['ext8', 3], ['ext16', 4], ['ext32', 6],
  ['float32', 5], ['float64', 9], ['uint8', 2], ['uint16', 3], ['uint32', 5], ['uint64', 9],
  ['int8', 2], ['int16', 3], ['int32', 5], ['int64', 9],
  ['fixext1', 2], ['fixext2', 2], ['fixext4', 2], ['fixext8', 2], ['fixext16', 2],
  ['str8', 2], ['str16', 3], ['str32', 5], ['array16', 3], ['array32', 5], ['map16', 3], ['map32', 5],
];

/** [name, header size] of the format whose first byte is c. */
export function formatOf(c) {
  if (c < 0x80) return ['fixint', 1];
  if (c < 0x90) return ['fixmap', 1];
  if (c < 0xa0) return ['fixarray', 1];
  if (c < 0xc0) return ['fixstr', 1];
  if (c >= 0xe0) return ['negative fixint', 1];
  return named[c - 0xc0];
}

// ---- one line per token ----------------------------------------------------

const HEX_BYTES = 10;        // bytes of a token shown in hex; a longer one ends in …
const TEXT_CHARS = 40;       // string characters shown
const MAX_INDENT = 32;       // deeper tokens are indented as this level

const hex2 = (b) => (b < 16 ? '0' : '') + b.toString(16);

/** Width of the offset column for an input of n bytes (6 hex digits at least). */
export function offsetWidth(n) {
  return Math.max(6, Math.max(0, n - 1).toString(16).length);
}

/** The column header that goes with formatToken's lines. */
export function headerLine(width) {
  return `${'offset'.padEnd(width)}  ${'bytes'.padEnd(3 * HEX_BYTES + 1)}  format`;
}

/**
 * One line for a token from walk(): offset in hex, the token's bytes in hex
 * (the header first; a long body cut off with …), then indented by depth
 * the format, its length and a short rendering of the value.
 */
export function formatToken(bytes, t, width) {
  const [name, header] = formatOf(bytes[t.at]);
  const shown = Math.min(t.end - t.at, t.container === undefined ? HEX_BYTES : header);
  let hex = '';
  for (let i = t.at; i < t.at + shown; i++) hex += (i > t.at ? ' ' : '') + hex2(bytes[i]);
  if (shown < t.end - t.at && t.container === undefined) hex += ' …';
  const what = describe(name, header, t);
  const indent = '  '.repeat(Math.min(t.depth, MAX_INDENT));
  return `${t.at.toString(16).padStart(width, '0')}  ${hex.padEnd(3 * HEX_BYTES + 1)}  ${indent}${what}${t.key ? ':' : ''}`;
}

function describe(name, header, t) {
  if (t.container === 'map') return `${name} ${t.count} ${t.count === 1 ? 'entry' : 'entries'}`;
  if (t.container === 'array') return `${name} ${t.count} ${t.count === 1 ? 'item' : 'items'}`;
  const v = t.value, body = t.end - t.at - header;
  if (typeof v === 'string') return `${name} ${bytesOf(body)} ${quote(v)}`;
  if (v instanceof Uint8Array) return `${name} ${bytesOf(body)}`;
  if (v instanceof Ext) return `${name} type ${v.type} ${bytesOf(v.data.length)}`;
  if (v instanceof Date) return `${name} type -1 timestamp ${isNaN(v) ? '(outside the range of a Date)' : v.toISOString()}`;
  if (v === null || typeof v === 'boolean') return name;
  return `${name} ${v}`;                              // numbers and BigInts
}

const bytesOf = (n) => `${n} ${n === 1 ? 'byte' : 'bytes'}`;

// A string as a JSON literal, cut to TEXT_CHARS characters (never inside a pair).
function quote(s) {
  if (s.length <= TEXT_CHARS) return JSON.stringify(s);
  let cut = s.slice(0, TEXT_CHARS);
  if ((cut.charCodeAt(TEXT_CHARS - 1) & 0xfc00) === 0xd800) cut = cut.slice(0, -1);
  return `${JSON.stringify(cut).slice(0, -1)}…"`;
}

// ---- the value as JSON -----------------------------------------------------

/**
 * A decoded value made JSON-safe: BigInts as decimal strings, bin as base64,
 * Ext as { type, data } with data in base64, a Date as its ISO 8601 string
 * (null outside a Date's range), NaN and ±Infinity as strings. A Map's
 * keys that are not strings become their JSON text (1 -> "1"); if that
 * makes two keys equal the map becomes an array of [key, value] pairs.
 */
export function jsonValue(v) {
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof Uint8Array) return base64(v);
  if (v instanceof Date) return isNaN(v) ? null : v.toISOString();
  if (v instanceof Ext) return { type: v.type, data: base64(v.data) };
  if (Array.isArray(v)) return v.map(jsonValue);
  if (v instanceof Map) return mapJson(v);
  const o = {};
  for (const k of Object.keys(v)) put(o, k, jsonValue(v[k]));
  return o;
}

function mapJson(m) {
  const o = {};
  const pairs = [];
  let clash = false;
  for (const [k, x] of m) {
    const key = jsonValue(k), value = jsonValue(x);
    const text = typeof key === 'string' ? key : JSON.stringify(key);
    if (Object.hasOwn(o, text)) clash = true;
    put(o, text, value);
    pairs.push([key, value]);
  }
  return clash ? pairs : o;
}

// o[k] = v, also for '__proto__' (an own property, not the prototype).
function put(o, k, v) {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

function base64(u8) {
  let s = '';
  for (let i = 0; i < u8.length; i += 0x8000)
    s += String.fromCharCode.apply(null, u8.subarray(i, i + 0x8000));
  return btoa(s);
}

// ---- the value as JSON text, streamed -----------------------------------------

/**
 * Checks bytes as inspect() does -- one value (trailing bytes are
 * TRAILING_BYTES) or, with `sequence`, values to the end -- without
 * building them, and returns each value's [start, end) byte range. Throws
 * the decoder's ScratchpackError at the first bad token, as inspect() would;
 * onToken (or null) sees the tokens as walk() passes them.
 */
export function check(bytes, sequence = false, onToken = null) {
  const ranges = walk(bytes, onToken, sequence);
  const end = sequence ? bytes.length : ranges[0][1];
  if (end !== bytes.length)
    throw decodeError(codes.TRAILING_BYTES, end, `${bytes.length - end} bytes left after the value`);
  return ranges;
}

// Values of at most this many bytes are decoded whole and given to
// JSON.stringify; bigger arrays and maps are written element by element,
// bigger str, bin and ext bodies in pieces, so memory follows the biggest
// small value, not the input.
const WHOLE_MAX = 16384;
const TEXT_CHUNK = 65536;      // characters of JSON handed out at once
const PIECE = 49152;
const BATCH_BYTES = 65536;     // bytes of small array elements stringified at once           // bytes of a long bin (a multiple of 3: base64 pieces join) or units of a string

/**
 * The JSON text of the value in ranges (from check()) and a '\n' --
 * exactly the text of JSON.stringify(jsonValue(v), null, 2) for the value
 * inspect() decodes -- as a sequence of strings of about TEXT_CHUNK
 * characters, made as they are asked for: the caller writes each one
 * (waiting for the output to drain) before asking for the next. With
 * `sequence`, the values of all the ranges as one JSON array (its
 * JSON.stringify(values, null, 2); [] for none), so the output is one
 * document a JSON parser takes. bytes must have passed check(). sizes
 * ({ wholeMax, chunk, piece }, the constants above by default) lets tests
 * reach every path with small inputs.
 */
export function* jsonChunks(bytes, ranges, sizes = {}, sequence = false) {
  const out = new TextOut(bytes, sizes);
  if (!sequence) {
    yield* out.value(ranges[0][0], 0);
  } else {
    out.put('[');
    for (let i = 0; i < ranges.length; i++) {
      out.put(i === 0 ? `\n${pad(1)}` : `,\n${pad(1)}`);
      yield* out.value(ranges[i][0], 1);
    }
    out.put(ranges.length === 0 ? ']' : '\n]');
  }
  out.put('\n');
  yield out.take();
}

const pads = [''];
const pad = (level) => {
  while (pads.length <= level) pads.push(`${pads[pads.length - 1]}  `);
  return pads[level];
};

class TextOut {
  constructor(bytes, { wholeMax = WHOLE_MAX, chunk = TEXT_CHUNK, piece = PIECE }) {
    if (piece % 3 !== 0) throw new RangeError('piece must be a multiple of 3');
    this.bytes = bytes;
    this.wholeMax = wholeMax;
    this.chunk = chunk;
    this.piece = piece;
    this.text = '';
    this.size = 0;
    this.batch = [];             // small elements of a big array, decoded, not yet written
    this.batchBytes = 0;
  }

  put(s) {
    this.text += s;
    this.size += s.length;
  }

  take() {
    const s = this.text;
    this.text = '';
    this.size = 0;
    return s;
  }

  // Writes the value at `at` (nested `level` deep); returns where it ends.
  // A generator: it hands out the text whenever TEXT_CHUNK is reached.
  * value(at, level) {
    const bytes = this.bytes;
    let end;
    if (skip(bytes, at, at + this.wholeMax) >= 0) {
      end = this.whole(at, level);
    } else {
      const c = bytes[at];
      if ((c >= 0x90 && c < 0xa0) || c === 0xdc || c === 0xdd) return yield* this.array(at, level);
      if ((c >= 0x80 && c < 0x90) || c === 0xde || c === 0xdf) return yield* this.map(at, level);
      if ((c >= 0xc4 && c <= 0xc9 && !isTimestamp(bytes, at)) || (c >= 0xd9 && c <= 0xdb)) {
        yield* this.long(at, level);
        return skip(bytes, at, Infinity);
      }
      end = this.whole(at, level);                     // short tokens (only with a tiny wholeMax)
    }
    if (this.size >= this.chunk) yield this.take();
    return end;
  }

  // A small value: decoded, made JSON-safe and stringified as inspect's
  // was; returns where it ends.
  whole(at, level) {
    const text = JSON.stringify(jsonValue(decodeFrom(this.bytes, at, walkOptions)), null, 2);
    this.put(level === 0 || text.indexOf('\n') < 0 ? text : text.replaceAll('\n', `\n${pad(level)}`));
    return decodeEnd;
  }

  // A big array. Its small elements are stringified in batches, as one
  // array whose brackets are cut off: one JSON.stringify call for many.
  * array(at, level) {
    const bytes = this.bytes;
    const [n, head] = containerHeader(bytes, at);
    const inner = `\n${pad(level + 1)}`;
    let p = at + head;
    if (n === 0) { this.put('[]'); return p; }
    this.put('[');
    let first = true;
    for (let i = 0; i < n; i++) {
      const end = skip(bytes, p, p + this.wholeMax);
      if (end >= 0) {
        this.batch.push(jsonValue(decodeFrom(bytes, p, walkOptions)));
        this.batchBytes += end - p;
        p = end;
        if (this.batchBytes >= BATCH_BYTES) { this.flushBatch(first, level); first = false; }
        if (this.size >= this.chunk) yield this.take();
        continue;
      }
      if (this.batch.length > 0) { this.flushBatch(first, level); first = false; }
      this.put(first ? inner : `,${inner}`);
      first = false;
      p = yield* this.value(p, level + 1);
    }
    if (this.batch.length > 0) this.flushBatch(first, level);
    this.put(`\n${pad(level)}]`);
    return p;
  }

  // The batch's elements as lines of the array at `level`.
  flushBatch(first, level) {
    const text = JSON.stringify(this.batch, null, 2);       // "[\n  a,\n  b\n]"
    const lines = text.slice(2, -2);
    this.put(first ? '\n' : ',\n');
    this.put(level === 0 ? lines : pad(level) + lines.replaceAll('\n', `\n${pad(level)}`));
    this.batch = [];
    this.batchBytes = 0;
  }

  // A big map: its keys are decoded first and ordered as jsonValue would
  // order them (an object's integer-like keys first, a later duplicate
  // replacing the value in the first one's place, a Map's keys that are
  // not strings as their JSON text, pairs when two texts clash); then
  // each entry's value is written from its bytes.
  * map(at, level) {
    const bytes = this.bytes;
    const [n, head] = containerHeader(bytes, at);
    const keys = new Array(n), values = new Array(n);
    let p = at + head;
    for (let i = 0; i < n; i++) {
      keys[i] = decodeFrom(bytes, p, walkOptions);
      values[i] = decodeEnd;
      p = skip(bytes, decodeEnd, Infinity);
    }
    // The entries as decode()'s readMap keeps them (maps: 'auto'): an
    // object while keys are strings, then a Map of the entries so far in
    // the message's order (not the object's, which puts '1' first).
    const o = {};
    let m = null;
    for (let i = 0; i < n; i++) {
      const k = keys[i];
      if (m === null && typeof k !== 'string') {
        m = new Map();
        for (let j = 0; j < i; j++) m.set(keys[j], o[keys[j]]);
      }
      if (m !== null) m.set(k, i);
      else put(o, k, i);
    }
    let texts = o, pairs = null;
    if (m !== null) {                                   // mapJson's rules
      texts = {};
      pairs = [];
      let clash = false;
      for (const [k, i] of m) {
        const key = jsonValue(k);
        const text = typeof key === 'string' ? key : JSON.stringify(key);
        if (Object.hasOwn(texts, text)) clash = true;
        put(texts, text, i);
        pairs.push([key, i]);
      }
      if (!clash) pairs = null;
    }
    const inner = `\n${pad(level + 1)}`;
    if (pairs !== null) {
      const deeper = `\n${pad(level + 2)}`;
      this.put('[');
      for (let j = 0; j < pairs.length; j++) {
        const [key, i] = pairs[j];
        const text = JSON.stringify(key, null, 2);
        this.put(`${j === 0 ? '' : ','}${inner}[${deeper}${text.replaceAll('\n', deeper)},${deeper}`);
        yield* this.value(values[i], level + 2);
        this.put(`${inner}]`);
      }
      this.put(`\n${pad(level)}]`);
      return p;
    }
    const names = Object.keys(texts);
    if (names.length === 0) { this.put('{}'); return p; }
    this.put('{');
    for (let j = 0; j < names.length; j++) {
      this.put(`${j === 0 ? '' : ','}${inner}${JSON.stringify(names[j])}: `);
      yield* this.value(values[texts[names[j]]], level + 1);
    }
    this.put(`\n${pad(level)}}`);
    return p;
  }

  // A long str, bin or ext, its body in pieces.
  * long(at, level) {
    const bytes = this.bytes, c = bytes[at];
    if (c === 0xd9 || c === 0xda || c === 0xdb) {
      const s = readToken(bytes, at, 0, walkOptions).value;
      this.put('"');
      for (let i = 0; i < s.length;) {
        let k = Math.min(this.piece, s.length - i);
        if (i + k < s.length && (s.charCodeAt(i + k - 1) & 0xfc00) === 0xd800) k--;   // pairs stay whole
        this.put(JSON.stringify(s.slice(i, i + k)).slice(1, -1));
        i += k;
        if (this.size >= this.chunk) yield this.take();
      }
      this.put('"');
      return;
    }
    const [n, head] = bodyHeader(bytes, at);
    let from = at + head;
    if (c >= 0xc7) {                                    // ext (not a timestamp: value() sees to it)
      const inner = `\n${pad(level + 1)}`;
      this.put(`{${inner}"type": ${(bytes[from] << 24) >> 24},${inner}"data": `);
      from++;
      yield* this.base64(from, n);
      this.put(`\n${pad(level)}}`);
      return;
    }
    yield* this.base64(from, n);
  }

  * base64(from, n) {
    this.put('"');
    for (let i = 0; i < n; i += this.piece) {
      this.put(base64(this.bytes.subarray(from + i, from + Math.min(n, i + this.piece))));
      if (this.size >= this.chunk) yield this.take();
    }
    this.put('"');
  }
}

const u16 = (b, p) => (b[p] << 8) | b[p + 1];
const u32 = (b, p) => ((b[p] << 24) >>> 0) + ((b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3]);

// An ext 8/16/32 of type -1 (decoded as a Date: short, but a tiny wholeMax sends it here).
const isTimestamp = (b, at) => b[at] >= 0xc7 && b[at + bodyHeader(b, at)[1]] === 0xff;

// [elements, header bytes] of the array or map at bytes[at].
function containerHeader(b, at) {
  const c = b[at];
  if (c < 0xa0) return [c & 15, 1];
  if (c === 0xdc || c === 0xde) return [u16(b, at + 1), 3];
  return [u32(b, at + 1), 5];
}

// [body bytes, header bytes] of the str8/16/32, bin or ext at bytes[at] (ext: before its type byte).
function bodyHeader(b, at) {
  switch (b[at]) {
    case 0xc4: case 0xc7: case 0xd9: return [b[at + 1], 2];
    case 0xc5: case 0xc8: case 0xda: return [u16(b, at + 1), 3];
    default: return [u32(b, at + 1), 5];
  }
}

// Bytes of the fixed-size tokens from 0xc0 (0: sized by a length field or a container).
const FIXED = [1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 5, 9, 2, 3, 5, 9, 2, 3, 5, 9, 3, 4, 6, 10, 18, 0, 0, 0, 0, 0, 0, 0];

/**
 * Where the value at bytes[at] ends, or -1 as soon as it is known to end
 * past limit. Reads headers only: bytes must have passed check().
 */
function skip(b, at, limit) {
  let p = at, left = 1;
  while (left > 0) {
    if (p > limit) return -1;
    const c = b[p];
    left--;
    if (c < 0x80 || c >= 0xe0) { p++; continue; }
    if (c < 0x90) { left += 2 * (c & 15); p++; continue; }
    if (c < 0xa0) { left += c & 15; p++; continue; }
    if (c < 0xc0) { p += 1 + (c & 31); continue; }
    const f = FIXED[c - 0xc0];
    if (f !== 0) { p += f; continue; }
    switch (c) {
      case 0xc4: case 0xd9: p += 2 + b[p + 1]; break;
      case 0xc5: case 0xda: p += 3 + u16(b, p + 1); break;
      case 0xc6: case 0xdb: p += 5 + u32(b, p + 1); break;
      case 0xc7: p += 3 + b[p + 1]; break;
      case 0xc8: p += 4 + u16(b, p + 1); break;
      case 0xc9: p += 6 + u32(b, p + 1); break;
      case 0xdc: left += u16(b, p + 1); p += 3; break;
      case 0xdd: left += u32(b, p + 1); p += 5; break;
      case 0xde: left += 2 * u16(b, p + 1); p += 3; break;
      default: left += 2 * u32(b, p + 1); p += 5;        // 0xdf
    }
  }
  return p > limit ? -1 : p;
}
