// inspect.js -- a MessagePack message token by token, as annotated hex and as JSON.
// Owns: the walk over tokens (each one read by decoder.js's readToken, so
// with the decoder's checks, limits and error codes), the formats' names,
// the one-line rendering of a token, and the decoded value as JSON. Must
// not touch: reading bytes (decoder.js does all of it) or the command line
// (cli.js).

import { decodeDefaults, decodeOptions, decodeValue, readToken } from './decoder.js';
import { Ext } from './ext.js';

// The walk reads bins as views of the input: they are only rendered.
const walkOptions = decodeOptions({ binary: 'view' });

/**
 * Walks the value in bytes (with `sequence`, the values one after another
 * until the end), calling onToken for each token in order with
 * { at, end, depth, key, value } or { at, end, depth, key, container,
 * count }; `key` says the token is a map key. Returns the [start, end)
 * byte range of each value. A bad token throws the decoder's
 * ScratchpackError; the tokens before it have been passed to onToken.
 */
export function walk(bytes, onToken, sequence = false) {
  const ranges = [];
  let at = 0;
  do {
    const start = at;
    const open = [];                   // tokens still to come in each open container
    do {
      const depth = open.length;
      const key = depth > 0 && open[depth - 1].map && open[depth - 1].left % 2 === 0;
      const t = readToken(bytes, at, depth, walkOptions);
      if (depth > 0) open[depth - 1].left--;
      onToken({ ...t, at, depth, key });
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
