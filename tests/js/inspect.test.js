// The inspector: `scratchpack inspect` run as a child process on the
// documents' values (tests/c/fixtures.h), on one token of every format, on
// truncated and invalid input, from a file and from stdin; and its walk
// against decode() on generated values: the same errors at the same bytes.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { Encoder } from '@msgpack/msgpack';

import { decode } from '../../js/decode.js';
import { ScratchpackError } from '../../js/errors.js';
import { inspect, jsonValue, walk } from '../../js/inspect.js';
import { randomValue, rng } from './helpers.js';

const cli = fileURLToPath(new URL('../../js/cli.js', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'scratchpack-inspect-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** Runs the command with args, input on stdin; returns { status, stdout, stderr }. */
function run(args, input = '') {
  const r = spawnSync(process.execPath, [cli, ...args], { input, encoding: 'utf8', timeout: 30000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function fixture(name, bytes) {
  const file = join(work, name);
  writeFileSync(file, bytes);
  return file;
}

/** The token lines of an annotated dump: { at, hex, depth, text }, and the JSON after them. */
function parseDump(stdout) {
  const lines = stdout.split('\n');
  const col = lines[0].indexOf('format');
  const tokens = [];
  let i = 1;
  for (; i < lines.length && lines[i] !== ''; i++) {
    const line = lines[i];
    const rest = line.slice(col);
    tokens.push({
      at: parseInt(line.slice(0, line.indexOf(' ')), 16),
      hex: line.slice(line.indexOf(' ') + 2, col).trim(),
      depth: (rest.length - rest.trimStart().length) / 2,
      text: rest.trimStart(),
    });
  }
  return { tokens, json: lines.slice(i + 1).join('\n') };
}

// Bytes from numbers, arrays and Uint8Arrays, nested as they come.
const flatten = (p) => (typeof p === 'number' ? [p] : Array.from(p).flatMap(flatten));
const bytesOf = (...parts) => Uint8Array.from(flatten(parts));
const utf8 = (s) => [...Buffer.from(s)];

// tests/c/fixtures.h: Small {Id, Name} as a map, Outer [before, bin(Envelope), 99]
// whose bin holds [7, "inner", 1.5], and the 100,007-byte [1, "A" x 100,000].
const small = bytesOf(0x82, 0xa2, utf8('Id'), 0x01, 0xa4, utf8('Name'), 0xa5, utf8('hello'));
const inner = bytesOf(0x93, 0x07, 0xa5, utf8('inner'), 0xcb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0);
const outer = bytesOf(0x93, 0xa6, utf8('before'), 0xc4, inner.length, inner, 0x63);
const big = bytesOf(0x92, 0x01, 0xdb, 0x00, 0x01, 0x86, 0xa0, new Array(100000).fill(0x41));

test('inspect prints each token of a file with its offset, bytes, format and length, then the JSON', () => {
  const r = run(['inspect', fixture('small.msgpack', small)]);
  assert.equal(r.status, 0, r.stderr);
  const { tokens, json } = parseDump(r.stdout);
  assert.deepEqual(tokens, [
    { at: 0, hex: '82', depth: 0, text: 'fixmap 2 entries' },
    { at: 1, hex: 'a2 49 64', depth: 1, text: 'fixstr 2 bytes "Id":' },
    { at: 4, hex: '01', depth: 1, text: 'fixint 1' },
    { at: 5, hex: 'a4 4e 61 6d 65', depth: 1, text: 'fixstr 4 bytes "Name":' },
    { at: 10, hex: 'a5 68 65 6c 6c 6f', depth: 1, text: 'fixstr 5 bytes "hello"' },
  ]);
  assert.deepEqual(JSON.parse(json), { Id: 1, Name: 'hello' });
});

test('inspect reads stdin when there is no file, or the file is -', () => {
  for (const args of [['inspect'], ['inspect', '-']]) {
    const r = run(args, outer);
    assert.equal(r.status, 0, r.stderr);
    const { tokens, json } = parseDump(r.stdout);
    assert.deepEqual(tokens.map((t) => t.at), [0, 1, 8, 27]);
    assert.match(tokens[2].text, /^bin8 17 bytes$/);
    assert.match(tokens[2].hex, / …$/, 'a long body is cut off');
    const value = JSON.parse(json);
    assert.deepEqual(value[0], 'before');
    assert.equal(value[2], 99);
    assert.deepEqual(Buffer.from(value[1], 'base64'), Buffer.from(inner), 'bin is base64');
  }
});

test('inspect --json prints only the value, and a long string is cut in the dump but whole in the JSON', () => {
  const file = fixture('big.msgpack', big);
  const r = run(['inspect', file, '--json']);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), [1, 'A'.repeat(100000)]);

  const dump = parseDump(run(['inspect', file]).stdout);
  assert.equal(dump.tokens[2].text, `str32 100000 bytes "${'A'.repeat(40)}…"`);
  assert.equal(dump.tokens[2].hex, 'db 00 01 86 a0 41 41 41 41 41 …');
  assert.ok(dump.tokens.every((t) => t.text.length < 100));
});

// One token of every format, inside an array 16: [name, bytes, value as JSON].
const everyFormat = [
  ['fixint', [0x05], 5],
  ['negative fixint', [0xff], -1],
  ['nil', [0xc0], null],
  ['false', [0xc2], false],
  ['true', [0xc3], true],
  ['bin8', [0xc4, 2, 1, 2], 'AQI='],
  ['bin16', [0xc5, 0, 1, 0xff], '/w=='],
  ['bin32', [0xc6, 0, 0, 0, 1, 0], 'AA=='],
  ['ext8 type 5', [0xc7, 1, 5, 9], { type: 5, data: 'CQ==' }],
  ['ext16 type 127', [0xc8, 0, 1, 0x7f, 9], { type: 127, data: 'CQ==' }],
  ['ext32 type -128', [0xc9, 0, 0, 0, 1, 0x80, 9], { type: -128, data: 'CQ==' }],
  ['float32', [0xca, 0x3f, 0xc0, 0, 0], 1.5],
  ['float64', [0xcb, 0x40, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18], Math.PI],
  ['uint8', [0xcc, 200], 200],
  ['uint16', [0xcd, 1, 0x2c], 300],
  ['uint32', [0xce, 0, 1, 0, 0], 65536],
  ['uint64', [0xcf, 255, 255, 255, 255, 255, 255, 255, 255], '18446744073709551615'],
  ['int8', [0xd0, 0x80], -128],
  ['int16', [0xd1, 0x80, 0], -32768],
  ['int32', [0xd2, 0x80, 0, 0, 0], -2147483648],
  ['int64', [0xd3, 0x80, 0, 0, 0, 0, 0, 0, 0], '-9223372036854775808'],
  ['fixext1 type 1', [0xd4, 1, 0xaa], { type: 1, data: 'qg==' }],
  ['fixext2 type 2', [0xd5, 2, 1, 2], { type: 2, data: 'AQI=' }],
  ['fixext4 type -1 timestamp', [0xd6, 0xff, 0, 0, 0, 1], '1970-01-01T00:00:01.000Z'],
  ['fixext8 type -1 timestamp', [0xd7, 0xff, 0x00, 0x3d, 0x09, 0x00, 0, 0, 0, 1], '1970-01-01T00:00:01.001Z'],
  ['fixext16 type 3', [0xd8, 3, new Array(16).fill(0)], { type: 3, data: 'AAAAAAAAAAAAAAAAAAAAAA==' }],
  ['ext8 type -1 timestamp', [0xc7, 12, 0xff, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255], '1969-12-31T23:59:59.000Z'],
  ['fixstr', [0xa1, 0x61], 'a'],
  ['str8', [0xd9, 3, utf8('abc')], 'abc'],
  ['str16', [0xda, 0, 3, utf8('hé')], 'hé'],
  ['str32', [0xdb, 0, 0, 0, 0], ''],
  ['fixarray', [0x91, 0x07], [7], ['fixint']],
  ['array16', [0xdc, 0, 0], []],
  ['array32', [0xdd, 0, 0, 0, 0], []],
  ['fixmap', [0x80], {}],
  ['map16', [0xde, 0, 1, 0x01, 0xc0], { 1: null }, ['fixint', 'nil']],
  ['map32', [0xdf, 0, 0, 0, 0], {}],
];

test('every format is named, with its ext type, and its value is in the JSON', () => {
  const bytes = bytesOf(0xdc, 0, everyFormat.length, everyFormat.map(([, b]) => b));
  const r = run(['inspect'], bytes);
  assert.equal(r.status, 0, r.stderr);
  const { tokens, json } = parseDump(r.stdout);
  const expected = ['array16', ...everyFormat.flatMap(([name, , , inside = []]) => [name, ...inside])];
  assert.equal(tokens.length, expected.length);
  tokens.forEach((t, i) => assert.ok(t.text === expected[i] || t.text.startsWith(`${expected[i]} `), `${t.text} is not ${expected[i]}`));
  assert.deepEqual(JSON.parse(json), everyFormat.map(([, , v]) => v));
  let at = 3;                                         // each token starts where the one before ended
  for (const t of tokens.slice(1).filter((x) => x.depth === 1)) {
    assert.equal(t.at, at);
    at += flatten(everyFormat.find(([name]) => t.text === name || t.text.startsWith(`${name} `))[1]).length;
  }
});

test('a truncated input stops at the token that ends too soon: TRUNCATED at its byte, exit code 1', () => {
  const r = run(['inspect'], bytesOf(0x93, 0x01, 0xa2, 0x68, 0x69, 0xcd, 0x01));
  assert.equal(r.status, 1);
  assert.deepEqual(parseDump(r.stdout).tokens.map((t) => t.at), [0, 1, 2], 'the tokens before the error');
  assert.match(r.stderr, /^error TRUNCATED at byte 5 \(0x5\): input ends inside a uint 16\n$/);
  // Every cut of the documents' values: the error decode() throws, at the same byte.
  for (const whole of [small, outer]) {
    for (let n = 0; n < whole.length; n++) {
      const cut = whole.subarray(0, n);
      const e = errorOf(() => decode(cut));
      const c = run(['inspect', '--json'], cut);
      assert.equal(c.status, 1);
      assert.equal(c.stdout, '');
      assert.match(c.stderr, new RegExp(`^error ${e.code} at byte ${e.offset} `));
    }
  }
});

test('invalid input (0xc1, trailing bytes, nesting past the limit) stops with the decoder\'s code and offset', () => {
  const bad = bytesOf(0x92, 0x01, 0xc1);
  const c1 = run(['inspect'], bad);
  assert.equal(c1.status, 1);
  assert.equal(c1.stderr, `error ${errorOf(() => decode(bad)).code} at byte 2 (0x2): 0xc1 is never used in MessagePack\n`);

  const trailing = run(['inspect'], bytesOf(small, 0x01));
  assert.equal(trailing.status, 1);
  assert.match(trailing.stderr, /^error TRAILING_BYTES at byte 16 /);

  const deep = bytesOf(new Array(501).fill(0x91), 0x01);
  const d = run(['inspect', '--json'], deep);
  assert.equal(d.status, 1);
  const e = errorOf(() => decode(deep));
  assert.match(d.stderr, new RegExp(`^error ${e.code} at byte ${e.offset} `));
  assert.equal(e.offset, 500);
});

test('--sequence reads values one after another to the end', () => {
  const r = run(['inspect', '--sequence'], bytesOf(small, 0x2a, inner));
  assert.equal(r.status, 0, r.stderr);
  const { tokens } = parseDump(r.stdout);
  assert.deepEqual(tokens.filter((t) => t.depth === 0).map((t) => t.at), [0, 16, 17]);
  const j = run(['inspect', '--sequence', '--json'], bytesOf(small, 0x2a, inner));
  assert.equal(j.stdout, `${JSON.stringify([{ Id: 1, Name: 'hello' }, 42, [7, 'inner', 1.5]], null, 2)}\n`, 'one JSON array');
});

test('--sequence of no values is valid: an empty array, exit 0', () => {
  const j = run(['inspect', '--sequence', '--json'], new Uint8Array(0));
  assert.equal(j.status, 0, j.stderr);
  assert.equal(j.stdout, '[]\n');
  assert.equal(run(['inspect', '--sequence'], new Uint8Array(0)).status, 0);
  assert.equal(run(['inspect'], new Uint8Array(0)).status, 1, 'one value is asked for without --sequence');
});

test('usage: --help exits 0, a bad command or option and an unreadable file exit 2', () => {
  const help = run(['--help']);
  assert.equal(help.status, 0);
  assert.match(help.stdout, /^Usage: scratchpack inspect \[file\]/);
  assert.match(help.stdout, /Exit codes: 0/);
  for (const args of [[], ['dump'], ['inspect', '--hex'], ['inspect', 'a', 'b'], ['inspect', join(work, 'missing')]]) {
    const r = run(args);
    assert.equal(r.status, 2, args.join(' '));
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^scratchpack: [^\n]*\n$/, 'one line');
  }
});

test('the walk and decode() agree on generated values and on every kind of damage to them', () => {
  const next = rng(21);
  const encoder = new Encoder({ useBigInt64: true });
  for (let i = 0; i < 400; i++) {
    const bytes = encoder.encode(randomValue(next, 0, { bigint: true, dates: true, maps: true }));
    let end = 0;
    walk(bytes, (t) => { assert.equal(t.at, end); end = t.end; });   // tokens tile the input
    assert.equal(end, bytes.length);
    assert.deepEqual(inspect(bytes), [decode(bytes)]);
    const damaged = [bytes.subarray(0, Math.floor(next() * bytes.length)), Uint8Array.from(bytes)];
    damaged[1][Math.floor(next() * bytes.length)] = [0xc1, 0xdf, 0xff, 0x00][i % 4];
    for (const d of damaged) {
      const want = errorOf(() => decode(d));
      const got = errorOf(() => inspect(d));
      assert.deepEqual(got && [got.code, got.offset], want && [want.code, want.offset]);
    }
  }
});

test('the JSON: BigInts as strings, bin and ext in base64, map keys that are not strings as their JSON text', () => {
  assert.deepEqual(jsonValue(new Map([[1, 'a'], [true, 'b'], [null, 'c'], [[1, 2], 'd'], ['s', 'e']])),
    { 1: 'a', true: 'b', null: 'c', '[1,2]': 'd', s: 'e' });
  assert.deepEqual(jsonValue(new Map([[1, 'a'], ['1', 'b']])), [[1, 'a'], ['1', 'b']], 'keys that would clash: pairs');
  assert.deepEqual(jsonValue({ n: 2n ** 64n - 1n, nan: NaN, inf: -Infinity, b: Uint8Array.of(0xff) }),
    { n: '18446744073709551615', nan: 'NaN', inf: '-Infinity', b: '/w==' });
  const proto = jsonValue(decode(bytesOf(0x81, 0xa9, utf8('__proto__'), 0x01)));
  assert.equal(JSON.stringify(proto), '{"__proto__":1}');
});

test('the inspector never loads the WebAssembly module', () => {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const [, spec] of text.matchAll(/^import [^'"]*['"](\.[^'"]+)['"]/gm))
      visit(fileURLToPath(new URL(spec, `file://${file}`)));
  };
  visit(cli);
  const names = [...seen].map((f) => f.slice(f.lastIndexOf('/') + 1));
  assert.ok(names.includes('decoder.js') && names.includes('inspect.js'), names.join(' '));
  assert.ok(!names.includes('wasm.js') && !names.includes('scratchpack.js'), names.join(' '));
});

function errorOf(fn) {
  try {
    fn();
    return null;
  } catch (e) {
    assert.ok(e instanceof ScratchpackError, String(e));
    return e;
  }
}
