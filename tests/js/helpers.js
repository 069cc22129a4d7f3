// helpers.js -- shared by the tests/js suites: a seeded value generator and
// a normaliser for comparing what different libraries decode.

/** A seeded PRNG (mulberry32): the same values on every run. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Integers at every MessagePack form boundary, both sides. */
export const intBoundaries = [
  0, 1, 31, 32, 127, 128, 255, 256, 65535, 65536, 2 ** 32 - 1, 2 ** 32, 2 ** 53 - 1,
  -1, -31, -32, -33, -127, -128, -129, -32767, -32768, -32769, -(2 ** 31), -(2 ** 31) - 1,
  -(2 ** 53) + 1,
];

/** String lengths at every str header boundary. */
export const strLengths = [0, 1, 31, 32, 255, 256, 65535, 65536];

const words = ['hello', 'scratch', 'pack', '안녕하세요', '데이터', 'émoji 😀', 'naïve', 'ß', '中文'];

/**
 * A random value: opts.bigint, opts.maps (Map values), opts.dates, opts.undef
 * say which kinds may appear (peers do not all support them).
 */
export function randomValue(next, depth = 0, opts = {}) {
  const r = next();
  const leaf = depth > 3 || r < 0.55;
  if (leaf) {
    const k = Math.floor(next() * 10);
    switch (k) {
      case 0: return null;
      case 1: return next() < 0.5;
      case 2: return intBoundaries[Math.floor(next() * intBoundaries.length)];
      case 3: return Math.floor((next() - 0.5) * 2 ** (next() * 53));
      case 4: return (next() - 0.5) * 10 ** Math.floor(next() * 30 - 10);
      case 5: return randomString(next);
      case 6: return Uint8Array.from({ length: Math.floor(next() * 40) }, () => Math.floor(next() * 256));
      case 7: return opts.dates ? new Date(Math.floor(next() * 4e12)) : 'date';
      case 8: return opts.bigint ? BigInt(Math.floor((next() - 0.5) * 2 ** 62)) * 4n : -7;
      default: return words[Math.floor(next() * words.length)];
    }
  }
  const n = Math.floor(next() * (next() < 0.1 ? 40 : 6));
  if (r < 0.78) return Array.from({ length: n }, () => randomValue(next, depth + 1, opts));
  const o = {};
  for (let i = 0; i < n; i++) o[randomKey(next, i)] = randomValue(next, depth + 1, opts);
  return o;
}

function randomKey(next, i) {
  return next() < 0.8 ? `k${i}` : `${words[Math.floor(next() * words.length)]}${i}`;
}

export function randomString(next) {
  const n = Math.floor(next() * (next() < 0.1 ? 300 : 40));
  let s = '';
  for (let i = 0; i < n; i++) {
    const r = next();
    if (r < 0.7) s += String.fromCharCode(32 + Math.floor(next() * 95));
    else if (r < 0.9) s += String.fromCharCode(0xac00 + Math.floor(next() * 11172));
    else s += '😀';
  }
  return s;
}

/** What every library agrees on: safe BigInts as numbers, bins as plain Uint8Arrays. */
export function normalize(v) {
  if (typeof v === 'bigint') return v >= -(2n ** 53n) + 1n && v <= 2n ** 53n - 1n ? Number(v) : v;
  if (v instanceof Uint8Array) return Uint8Array.from(v);
  if (Array.isArray(v)) return v.map(normalize);
  if (v instanceof Date) return v;
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [normalize(k), normalize(x)]));
  if (v && typeof v === 'object') {
    const o = {};
    for (const k of Object.keys(v)) o[k] = normalize(v[k]);
    return o;
  }
  return v;
}

/** A str message (fixstr, str 8, str 16 or str 32) with these bytes as its body, valid UTF-8 or not. */
export function str(body) {
  const n = body.length;
  const head = n < 32 ? [0xa0 | n] : n < 256 ? [0xd9, n] : n < 65536 ? [0xda, n >> 8, n & 255]
    : [0xdb, n >>> 24, (n >> 16) & 255, (n >> 8) & 255, n & 255];
  const b = new Uint8Array(head.length + n);
  b.set(head);
  b.set(body, head.length);
  return b;
}

/**
 * Bytes that make UTF-8 interesting: ASCII, continuation bytes, every kind
 * of lead byte, the bytes never used (c0, c1, f5-ff), the surrogates' ED.
 */
export const tricky = [0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbb, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf,
  0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff];

/** n bytes, mostly from `tricky`: rarely valid UTF-8 past a few bytes. */
export function trickyBytes(next, n) {
  return Uint8Array.from({ length: n }, () =>
    next() < 0.75 ? tricky[Math.floor(next() * tricky.length)] : Math.floor(next() * 256));
}

export const hex = (b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
