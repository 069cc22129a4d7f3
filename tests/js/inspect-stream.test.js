// inspect --json streamed: jsonChunks (js/inspect.js) writes the JSON text
// straight from the bytes, a piece at a time. Its text must be exactly the
// text the inspector printed before it streamed -- JSON.stringify(
// jsonValue(v), null, 2) of each value inspect() decodes -- on a corpus of
// generated and hand-made values (maps with integer-like, duplicate,
// __proto__ and non-string keys, keys whose JSON texts clash, long strings
// with surrogate pairs, bin, ext, timestamps), with the default sizes and
// with sizes so small that every path (element by element, pieces of
// strings and base64) runs on them. And through the command: a big output
// to a pipe that reads slowly arrives whole and equal.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { Encoder } from '@msgpack/msgpack';

import { check, inspect, jsonChunks, jsonValue } from '../../js/inspect.js';
import { randomValue, rng } from './helpers.js';

// What the inspector printed for --json before it streamed; a sequence as one array.
const before = (bytes, sequence = false) => {
  const values = inspect(bytes, undefined, sequence).map(jsonValue);
  return `${JSON.stringify(sequence ? values : values[0], null, 2)}\n`;
};

const streamed = (bytes, sizes, sequence = false) => [...jsonChunks(bytes, check(bytes, sequence), sizes, sequence)].join('');

const SIZES = [undefined, { wholeMax: 0, chunk: 1, piece: 3 }, { wholeMax: 12, chunk: 100, piece: 6 }, { wholeMax: 40, piece: 9 }];

const flatten = (p) => (typeof p === 'number' ? [p] : Array.from(p).flatMap(flatten));
const bytesOf = (...parts) => Uint8Array.from(flatten(parts));
const utf8 = (s) => [...Buffer.from(s)];
const str = (s) => { const b = utf8(s); return b.length < 32 ? [0xa0 | b.length, b] : [0xd9, b.length, b]; };
const encoder = new Encoder({ useBigInt64: true });

// Maps as bytes (entries in order, duplicates allowed): [key bytes, value bytes] pairs.
const map = (...entries) => bytesOf(0xde, entries.length >> 8, entries.length & 0xff, entries);

const handMade = [
  map([str('b'), 1], [str('10'), 2], [str('2'), 3], [str('a'), 4], [str('4294967295'), 5], [str('01'), 6], [str('4294967294'), 7]),
  map([str('x'), 1], [str('y'), 2], [str('x'), 3]),                      // a duplicate keeps its place, takes the last value
  map([str('__proto__'), 1], [str('z'), [0x91, 0x01]]),
  map([str('s'), 1], [0x01, 2], [str('1'), 3]),                           // a Map whose texts clash: pairs
  map([str('s'), 1], [0x02, 2], [0xc3, 3], [0xc0, 4], [0x92, 0x01, 0x02, 5], [0xcb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0, 6]),
  map([str('k'), 1], [str('2'), 2], [0x05, 3], [0x05, 4], [str('k'), 5]),   // Map dedupes 5 and k; "2" sorted first
  map([0x92, 0x01, 0x02, 1], [0x92, 0x01, 0x02, 2]),                      // equal texts of two array keys: pairs
  map([str('b'), 1], [str('2'), 2], [str('1'), 3], [0x01, 4]),           // pairs in the message's order, '2' and '1' not first
  map([0x81, str('a'), 0x01, str('v')], [str('w'), map([str('q'), 1], [str('q'), 2])]),
  map([0xcb, 0x7f, 0xf8, 0, 0, 0, 0, 0, 1, 1], [str('NaN'), 2]),           // NaN's text is "NaN"
  map([0xcf, 255, 255, 255, 255, 255, 255, 255, 255, 1], [str('t'), [0xd6, 0xff, 0, 0, 0, 1]]),
  bytesOf(0x93, 0xc7, 12, 0xff, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255, 0xc7, 3, 0x05, 1, 2, 3, 0xc8, 0, 4, 0x80, 1, 2, 3, 4),
  bytesOf(0x92, 0xc4, 5, 1, 2, 3, 4, 5, 0xc5, 0, 7, 9, 8, 7, 6, 5, 4, 3),
  bytesOf(0x80), bytesOf(0x90), bytesOf(0x91, 0x80), bytesOf(0x92, 0x90, 0x91, 0x90),
  bytesOf(0xdd, 0, 0, 0, 2, 0xcb, 0xff, 0xf0, 0, 0, 0, 0, 0, 0, 0xcb, 0x80, 0, 0, 0, 0, 0, 0, 0),   // -Infinity, -0
  bytesOf(0xdf, 0, 0, 0, 1, str('quote"back\\slash\nnew\u2028line\u0001'), 0x01),
];

test('the streamed JSON is the text inspect printed before, on hand-made values, at every size', () => {
  for (const bytes of handMade)
    for (const sizes of SIZES) assert.equal(streamed(bytes, sizes), before(bytes), `${Buffer.from(bytes).toString('hex')} ${JSON.stringify(sizes)}`);
});

test('long strings (pairs at piece edges, lone surrogates, escapes) and bins come out in pieces, equal', () => {
  const s = 'ab😀c\ud800x"\\\n' + '😀'.repeat(40) + 'é'.repeat(7) + '\udc00';
  for (let cut = 0; cut < 20; cut++) {
    const v = [s.slice(cut), Uint8Array.from({ length: 20 + cut }, (_, i) => i * 37), { k: s.slice(0, cut + 5) }];
    const bytes = encoder.encode(v);
    for (const sizes of SIZES) assert.equal(streamed(bytes, sizes), before(bytes));
  }
});

test('the streamed JSON equals the text before on generated values, one and in sequence', () => {
  const next = rng(2020);
  for (let i = 0; i < 300; i++) {
    const v = randomValue(next, 0, { bigint: true, dates: true, maps: true });
    const bytes = encoder.encode(i % 7 === 0 ? new Map([[1, v], ['1', v], [true, [v]]]) : v);
    for (const sizes of SIZES) assert.equal(streamed(bytes, sizes), before(bytes));
    const seq = bytesOf(bytes, 0x2a, bytes);
    for (const sizes of SIZES) assert.equal(streamed(seq, sizes, true), before(seq, true));
  }
});

const cli = fileURLToPath(new URL('../../js/cli.js', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'scratchpack-inspect-stream-'));
after(() => rmSync(work, { recursive: true, force: true }));

test('inspect --json writes a big value whole through a pipe that reads slowly', async () => {
  const v = Array.from({ length: 20000 }, (_, i) => ({ id: i, name: `n${i}`, tags: ['a', 'b'], big: 'x'.repeat(i % 50) }));
  v.push({ long: 'y'.repeat(300000), bin: new Uint8Array(200000).fill(7) });
  const bytes = encoder.encode(v);
  const file = join(work, 'big.msgpack');
  writeFileSync(file, bytes);
  const child = spawn(process.execPath, [cli, 'inspect', file, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const got = [];
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  child.stdout.pause();                                 // the child fills the pipe and must wait for it
  await new Promise((r) => setTimeout(r, 200));
  child.stdout.on('data', (d) => got.push(d));
  child.stdout.resume();
  const status = await new Promise((r) => child.on('close', r));
  assert.equal(status, 0, err);
  assert.equal(Buffer.concat(got).toString('utf8'), before(bytes));
});
