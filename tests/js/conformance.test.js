// Conformance with msgpack-test-suite 1.0.0 (kawanet, MIT; a devDependency,
// read from node_modules): every encoding it lists for a value decodes to
// that value, in JS (decode) and in C (sp.decode), and what we encode is one
// of the encodings it lists. Its timestamps are [seconds, nanoseconds]: they
// decode to a Date floored to the millisecond (docs/javascript.md: the value table), and
// only those a Date holds exactly are encoded.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, test } from 'node:test';

import { createScratchpack, decode, Ext } from '../../js/index.js';

const suiteFile = createRequire(import.meta.url).resolve('msgpack-test-suite/dist/msgpack-test-suite.json');
const suite = JSON.parse(readFileSync(suiteFile, 'utf8'));

let sp;
before(async () => { sp = await createScratchpack({ threads: 0 }); });
after(() => sp.close());

const bytes = (h) => Uint8Array.from(h.split('-').filter(Boolean), (b) => parseInt(b, 16));
const hexOf = (u) => Array.from(u, (b) => b.toString(16).padStart(2, '0')).join('-');
const kindOf = (c) => Object.keys(c).find((k) => k !== 'msgpack' && k !== 'bignum');

// Each case as { file, kind, forms, want(decoded) -> true, value to encode or undefined }.
const cases = Object.entries(suite).flatMap(([file, list]) => list.map((c) => {
  const kind = kindOf(c);
  const raw = c[kind];
  switch (kind) {
    case 'binary': {
      const b = bytes(raw);
      return { file, kind, forms: c.msgpack, value: b, same: (v) => v instanceof Uint8Array && hexOf(v) === hexOf(b) };
    }
    case 'timestamp': {
      const [sec, nsec] = raw;
      const ms = sec * 1000 + Math.floor(nsec / 1e6);
      const exact = nsec % 1e6 === 0 && Number.isSafeInteger(ms);
      return { file, kind, forms: c.msgpack, value: exact ? new Date(ms) : undefined,
        same: (v) => v instanceof Date && v.getTime() === ms };
    }
    case 'ext': {
      const [type, data] = raw;
      return { file, kind, forms: c.msgpack, value: new Ext(type, bytes(data)),
        same: (v) => v instanceof Ext && v.type === type && hexOf(v.data) === hexOf(bytes(data)) };
    }
    default:
      if (c.bignum !== undefined) {              // int forms as BigInt, float forms as a number
        const big = BigInt(c.bignum);
        return { file, kind: 'bignum', forms: c.msgpack, value: big, int64: 'bigint',
          same: (v) => (typeof v === 'bigint' ? v === big : v === Number(big)) };
      }
      return { file, kind, forms: c.msgpack, value: raw, same: (v) => { assert.deepEqual(v, raw); return true; } };
  }
}));

test('the suite is there and has every kind', () => {
  const kinds = new Set(cases.map((c) => c.kind));
  for (const k of ['nil', 'bool', 'binary', 'number', 'bignum', 'string', 'array', 'map', 'timestamp', 'ext'])
    assert.ok(kinds.has(k), `no ${k} cases in ${suiteFile}`);
  assert.ok(cases.reduce((n, c) => n + c.forms.length, 0) > 200);
});

test('every listed encoding decodes to its value, in JS and in C', () => {
  for (const c of cases) {
    const opts = c.int64 ? { int64: c.int64 } : undefined;
    for (const form of c.forms) {
      for (const [who, dec] of [['decode', decode], ['sp.decode', (b, o) => sp.decode(b, o)]]) {
        let got;
        assert.doesNotThrow(() => { got = dec(bytes(form), opts); }, `${who} ${c.file} ${form}`);
        assert.ok(c.same(got), `${who} ${c.file} ${form}: got ${String(got)}`);
      }
    }
  }
});

test('what we encode is one of the listed encodings', () => {
  let encoded = 0;
  for (const c of cases) {
    if (c.value === undefined) continue;       // a timestamp a Date cannot hold exactly
    const got = hexOf(sp.encode(c.value));
    assert.ok(c.forms.includes(got), `${c.file}: ${String(c.value)} encoded as ${got}, listed: ${c.forms.join(' ')}`);
    encoded++;
  }
  assert.ok(encoded > 50);
});
