// One vocabulary for C and JS: the JS tables that name C's numbers -- the
// error codes and the numeric kinds -- read from the C headers themselves,
// the README's error table lists exactly the codes there are, and the one
// str-header rule the page shares is the one the writer writes by.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { cCodes, codeFromC, codes } from '../../js/errors.js';
import { KIND } from '../../js/typed.js';
import { encodeWith, strHeaderSize } from '../../js/writer.js';

const read = (path) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

// The enumerators of `typedef enum <name> { ... } <name>;` as [name, number]
// pairs, numbered as C numbers them (explicit values, else one more).
function cEnum(header, name) {
  const body = new RegExp(`typedef enum ${name} \\{([\\s\\S]*?)\\} ${name};`).exec(header);
  assert.ok(body, `no enum ${name}`);
  const text = body[1].replace(/\/\*[\s\S]*?\*\//g, '');
  let next = 0;
  return text.split(',').map((s) => s.trim()).filter(Boolean).map((item) => {
    const m = /^([A-Z0-9_]+)(?:\s*=\s*(\d+))?$/.exec(item);
    assert.ok(m, `cannot read enumerator "${item}"`);
    const value = m[2] === undefined ? next : Number(m[2]);
    next = value + 1;
    return [m[1], value];
  });
}

test('each C error code is the JS code with SP_E_ in front, at the same number', () => {
  const c = cEnum(read('src/include/sp_error.h'), 'sp_code');
  assert.deepEqual(c[0], ['SP_OK', 0]);
  assert.deepEqual(c.slice(1).map(([name, n]) => [name.replace(/^SP_E_/, ''), n]),
    cCodes.map((code, i) => [code, i + 1]));
  for (const [name, n] of c.slice(1)) assert.equal(`SP_E_${codeFromC(n)}`, name);
  assert.equal(codeFromC(c.length), codes.INTERNAL);
  assert.equal(codeFromC(0), codes.INTERNAL);
});

test("js/typed.js's KIND is C's sp_num_kind", () => {
  const c = cEnum(read('src/include/sp_bulk.h'), 'sp_num_kind');
  assert.deepEqual(Object.fromEntries(c.map(([name, n]) => [name.replace(/^SP_NUM_/, ''), n])), { ...KIND });
});

test("the README's error table lists every code once, with its C name where C has it", () => {
  const readme = read('README.md');
  const table = /\| code \| meaning \| where it arises \| C \| JS \|\n\| --- [^\n]*\n((?:\|[^\n]*\n)+)/.exec(readme);
  assert.ok(table, 'README has no error table (| code | meaning | where it arises | C | JS |)');
  const rows = table[1].trim().split('\n').map((r) => r.split('|').slice(1, -1).map((cell) => cell.trim()));
  const listed = rows.map((r) => r[0].replace(/`/g, ''));
  assert.deepEqual([...listed].sort(), Object.keys(codes).sort());
  for (const r of rows) {
    const code = r[0].replace(/`/g, '');
    const [c, js] = [r[3], r[4]].map((cell) => cell.replace(/`/g, ''));
    assert.equal(c, cCodes.includes(code) ? `SP_E_${code}` : '—', `the C column of ${code}`);
    assert.ok(js === code || (js === '—' && cCodes.includes(code)), `the JS column of ${code}`);
  }
});

test('strHeaderSize is the size of the header the writer writes, at every boundary', () => {
  for (const n of [0, 1, 31, 32, 255, 256, 65535, 65536]) {
    for (const s of ['a'.repeat(n), 'é'.repeat(Math.ceil(n / 2)), '한'.repeat(Math.ceil(n / 3))]) {
      const len = Buffer.byteLength(s);
      const u8 = new Uint8Array(3 * len + 16);    // the worst case a str may ask for
      const sink = { u8, dv: new DataView(u8.buffer), pos: 0, end: u8.length, fixed: true,
        more() { throw new Error('the span was big enough'); } };
      encodeWith(sink, s, 500);
      assert.equal(sink.pos - len, strHeaderSize(len), `a str of ${len} bytes`);
    }
  }
});
