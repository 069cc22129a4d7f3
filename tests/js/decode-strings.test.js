// Strings and map keys as decode reads them: the key cache never hands out
// another key's string, and every string path (short ASCII, the JS UTF-8
// path, the bulk ASCII path, Node's decoder, the browser's) gives what
// Node's own decoder gives -- invalid UTF-8 as U+FFFD by the WHATWG rules --
// within the same limits and with the same errors.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { endianness } from 'node:os';
import { test } from 'node:test';

import { keySlot } from '../../js/decoder.js';
import { decode } from '../../js/index.js';
import { jsUtf8, readUtf8, utf8Paths } from '../../js/text.js';
import { rng, str, tricky, trickyBytes } from './helpers.js';

const nodeUtf8 = (b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');
const whatwg = new TextDecoder('utf-8', { ignoreBOM: true });
const wellFormed = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const utf8 = (s) => new TextEncoder().encode(s);

// A map of one entry: a str key with these bytes, then the value 1.
const oneKey = (body) => Uint8Array.from([0x81, ...str(body), 1]);
const keyOf = (body) => Object.keys(decode(oneKey(body)))[0];

// Valid text of 1-, 2-, 3- and 4-byte characters, then one byte changed.
function damagedText(next, n) {
  const chars = ['a', 'é', 'ß', 'Ж', '한', '中', '€', '\ufeff', '\uffff', '😀', '\u{10ffff}'];
  let s = '';
  for (let i = 0; i < n; i++) s += chars[Math.floor(next() * chars.length)];
  const b = utf8(s);
  if (next() < 0.8) b[Math.floor(next() * b.length)] = tricky[Math.floor(next() * tricky.length)];
  return next() < 0.3 ? b.subarray(0, Math.floor(next() * b.length)) : b;
}

test('map keys of every length decode to their own text, the first time and from the cache', () => {
  for (let n = 0; n <= 40; n++) {
    const ascii = 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEF'.slice(0, n);
    const korean = '가나다라마바사아자차카타파하'.repeat(3).slice(0, n);
    for (const k of [ascii, korean]) {
      assert.equal(keyOf(utf8(k)), k, `key ${JSON.stringify(k)}`);
      assert.equal(keyOf(utf8(k)), k, `key ${JSON.stringify(k)} again`);
    }
  }
});

// Two keys of n bytes that share a cache slot and differ in the bytes at
// i and j only (no two keys that differ in one byte share a slot), or null.
function sameSlot(next, n, i, j) {
  const a = Uint8Array.from({ length: n }, () => 0x61 + Math.floor(next() * 26));
  const slot = keySlot(a, 0, n);
  const b = Uint8Array.from(a);
  for (let x = 0; x < 256; x++) {
    for (let y = 0; y < 256; y++) {
      if (x === a[i] || y === a[j]) continue;
      b[i] = x;
      b[j] = y;
      if (keySlot(b, 0, n) === slot) return [a, b];
    }
  }
  return null;
}

test('keys that share a cache slot never get each other\'s string', () => {
  // 20,000 distinct 8-byte keys for 4,096 slots: many share one, and each
  // decode of a key that lost its slot must re-read its own bytes.
  const keys = Array.from({ length: 20000 }, (_, i) => `k${String(i * 7919).padStart(7, '0')}`);
  for (let round = 0; round < 2; round++) {
    for (const k of keys) assert.equal(keyOf(utf8(k)), k);
  }
  // Two keys of one slot and length that differ in two bytes, at positions
  // all over: each decode must compare the bytes, not trust the slot.
  const next = rng(30);
  let pairs = 0;
  for (const n of [2, 3, 5, 8, 13, 16]) {
    for (let k = 0; k < 4; k++) {
      const i = Math.floor(next() * (n - 1));
      const j = i + 1 + Math.floor(next() * (n - 1 - i));
      const pair = sameSlot(next, n, i, j);
      if (pair === null) continue;
      pairs++;
      for (let round = 0; round < 3; round++) {
        for (const key of pair) assert.equal(keyOf(key), nodeUtf8(key), `${n} bytes, differing at ${i} and ${j}`);
      }
    }
  }
  assert.ok(pairs >= 12, `only ${pairs} pairs of keys found in one slot`);
  // Same bytes, different lengths: 'a', 'aa', ... are different keys.
  for (let n = 0; n <= 16; n++) assert.equal(keyOf(utf8('a'.repeat(n))), 'a'.repeat(n));
  assert.equal(keyOf(utf8('é')), 'é');
  assert.equal(keyOf(utf8('è')), 'è');
});

test('maps whose keys change from one to the next each get their own keys', () => {
  // Second keys of the same length one byte apart, or the same bytes under
  // another length: the shapes that predict a key from the ones before it
  // (decoder.js) must still compare every byte.
  const rows = [];
  for (let i = 0; i < 200; i++) {
    const a = i % 100;                   // (positive fixints)
    rows.push({ ab: a, cd: 1 }, { ab: a, ce: 2 }, { ab: a, cd: 3, x: 0 }, { ab: a, c: 4 }, { ab: a, cdd: 5 });
  }
  assert.deepEqual(decode(encodeRows(rows)), rows);
});

// MessagePack of an array of flat objects of small ints (keys as fixstr).
function encodeRows(rows) {
  const out = [0xdc, rows.length >> 8, rows.length & 0xff];
  for (const r of rows) {
    const keys = Object.keys(r);
    out.push(0x80 | keys.length);
    for (const k of keys) out.push(0xa0 | k.length, ...Buffer.from(k), r[k]);
  }
  return Uint8Array.from(out);
}

test('a key with invalid UTF-8 becomes U+FFFD exactly as Node decodes it, cached or not', () => {
  const next = rng(31);
  for (let i = 0; i < 3000; i++) {
    const b = next() < 0.5 ? trickyBytes(next, Math.floor(next() * 20)) : damagedText(next, Math.floor(next() * 6));
    const want = nodeUtf8(b);
    assert.equal(keyOf(b), want, Buffer.from(b).toString('hex'));
    assert.equal(keyOf(b), want, `${Buffer.from(b).toString('hex')} again`);
  }
});

test('keys keep the limits and errors of any str: maxStrLength, truncation, __proto__', () => {
  const abc = Uint8Array.of(0x81, 0xa3, 0x61, 0x62, 0x63, 1);
  assert.deepEqual(decode(abc), { abc: 1 });                      // now in the cache
  assert.throws(() => decode(abc, { maxStrLength: 2 }), { code: 'LENGTH_LIMIT', offset: 1 });
  assert.deepEqual(decode(abc, { maxStrLength: 3 }), { abc: 1 });
  assert.throws(() => decode(abc.subarray(0, 4)), { code: 'TRUNCATED', offset: 1 });
  assert.throws(() => decode(Uint8Array.of(0x82, 0xa1, 0x61, 1, 0xa3, 0x61)), { code: 'TRUNCATED', offset: 4 });
  assert.throws(() => decode(Uint8Array.of(0x82, 0xa1, 0x61, 0xa1, 0x62)), { code: 'TRUNCATED', offset: 5 });
  const proto = Uint8Array.from([0x81, ...str(utf8('__proto__')), 0x81, 0xa1, 0x78, 1]);
  for (let i = 0; i < 2; i++) {
    const o = decode(proto);
    assert.equal(Object.getPrototypeOf(o), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(o, '__proto__').value, { x: 1 });
  }
  const m = decode(abc, { maps: 'map' });
  assert.deepEqual([...m], [['abc', 1]]);
});

test('ASCII strings of every length around the short path, and with one byte that is not ASCII', () => {
  for (let n = 0; n <= 40; n++) {
    const s = 'The quick brown fox jumps over the lazy dog'.slice(0, n);
    assert.equal(decode(str(utf8(s))), s);
    for (let at = 0; at < n; at++) {
      const b = utf8(s);
      b[at] = 0xe9;                                              // a lone Latin-1 byte: U+FFFD
      assert.equal(decode(str(b)), nodeUtf8(b));
    }
  }
});

test('every string decodes to what Node\'s decoder gives: valid text of every width, invalid bytes as U+FFFD', () => {
  const next = rng(32);
  const crafted = [[0xc0, 0x80], [0xe0, 0x80, 0x80], [0xf0, 0x80, 0x80, 0x80], [0xed, 0xa0, 0x80], [0xed, 0xbf, 0xbf],
    [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0x80], [0xff, 0xfe], [0xef, 0xbb, 0xbf, 0x61],
    [0x61, 0xef, 0xbb, 0xbf], [0xc2, 0x80, 0xdf, 0xbf, 0xe0, 0xa0, 0x80, 0xef, 0xbf, 0xbf, 0xf0, 0x90, 0x80, 0x80, 0xf4, 0x8f, 0xbf, 0xbf]];
  const inputs = crafted.map((c) => Uint8Array.from(c));
  for (let i = 0; i < 4000; i++) {
    const n = Math.floor(next() * (next() < 0.1 ? 400 : 40));
    inputs.push(next() < 0.5 ? trickyBytes(next, n) : damagedText(next, n));
  }
  for (const b of inputs) {
    const want = nodeUtf8(b);
    assert.equal(want, whatwg.decode(b), 'Node and the WHATWG decoder agree');
    assert.equal(decode(str(b)), want, Buffer.from(b).toString('hex'));
    const padded = new Uint8Array(b.length + 7);
    padded.set(b, 3);
    assert.equal(readUtf8(padded, 3, 3 + b.length), want);
  }
});

test('the JS UTF-8 path takes exactly the well-formed inputs and decodes them as Node does', () => {
  if (endianness() === 'LE') assert.equal(utf8Paths().units, true, 'the JS path is on in Node on this host');
  if (!utf8Paths().units) return;
  const next = rng(33);
  for (let i = 0; i < 5000; i++) {
    const n = Math.floor(next() * 60);
    const b = next() < 0.5 ? trickyBytes(next, n) : damagedText(next, n);
    let ok = true;
    try { wellFormed.decode(b); } catch { ok = false; }
    const got = jsUtf8(b, 0, b.length);
    assert.equal(got !== null, ok, Buffer.from(b).toString('hex'));
    if (ok) assert.equal(got, nodeUtf8(b));
  }
});

test('long strings: ASCII (the bulk path) and with one other byte anywhere, past the JS path\'s limit', async () => {
  await new Promise((r) => setImmediate(r));                     // the node:buffer import has settled
  assert.equal(utf8Paths().bulkAscii, true, 'node:buffer has isAscii on Node >= 20');
  for (const n of [8191, 8192, 65535, 65536, 65537, 100000]) {
    const b = new Uint8Array(n).fill(0x41);
    assert.equal(decode(str(b)), 'A'.repeat(n));
    for (const at of [0, n >> 1, n - 1]) {
      for (const byte of [0xe9, 0xff]) {
        const c = Uint8Array.from(b);
        c[at] = byte;
        assert.equal(decode(str(c)), nodeUtf8(c), `${n} bytes, ${byte.toString(16)} at ${at}`);
      }
    }
  }
  for (const chars of [21845, 21846, 70000]) {                   // 65535, 65538, 210000 bytes
    const s = '한'.repeat(chars);
    assert.equal(decode(str(utf8(s))), s);
    const b = utf8(s);
    b[b.length >> 1] = 0x41;                                     // cuts one character in two
    assert.equal(decode(str(b)), nodeUtf8(b));
  }
  assert.throws(() => decode(str(new Uint8Array(9000).fill(0x41)), { maxStrLength: 8999 }), { code: 'LENGTH_LIMIT', offset: 0 });
  assert.throws(() => decode(str(utf8('한'.repeat(30))), { maxStrLength: 89 }), { code: 'LENGTH_LIMIT', offset: 0 });
});

test('strings in shared memory decode the same', () => {
  const texts = ['short', '안녕하세요 세계', 'x'.repeat(10000), '가'.repeat(5000), '😀 naïve'];
  const parts = texts.map((t) => str(utf8(t)));
  const total = parts.reduce((n, p) => n + p.length, 1);
  const shared = new Uint8Array(new SharedArrayBuffer(total));
  shared[0] = 0x90 | texts.length;
  let at = 1;
  for (const p of parts) { shared.set(p, at); at += p.length; }
  assert.deepEqual(decode(shared), texts);
});

test('without Node\'s Buffer (the browser path) a leading U+FEFF stays and invalid bytes become U+FFFD alike', () => {
  const cases = [[0xef, 0xbb, 0xbf, 0x61], [0x61, 0xff, 0x62], [0xed, 0xa0, 0x80], [0xf0, 0x9f, 0x98, 0x80], [0xe2, 0x82]];
  const url = new URL('../../js/text.js', import.meta.url).href;
  const code = `delete globalThis.Buffer;
    const { readUtf8 } = await import(${JSON.stringify(url)});
    const cases = ${JSON.stringify(cases)};
    console.log(JSON.stringify(cases.map((c) => readUtf8(Uint8Array.from(c), 0, c.length))));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), cases.map((c) => nodeUtf8(Uint8Array.from(c))));
});
