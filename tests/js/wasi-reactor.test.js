// The WASI reactor (dist/scratchpack-wasi.wasm) as a non-JS host would use
// it: instantiate with WASI preview 1, _initialize, call the exports.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, test } from 'node:test';
import { WASI } from 'node:wasi';

import { decode } from '../../js/index.js';
import { hex } from './helpers.js';

let x, u8;
before(async () => {
  const wasi = new WASI({ version: 'preview1', args: [], env: {} });
  const bytes = readFileSync(new URL('../../dist/scratchpack-wasi.wasm', import.meta.url));
  const inst = await WebAssembly.instantiate(await WebAssembly.compile(bytes), wasi.getImportObject());
  wasi.initialize(inst);
  x = inst.exports;
});

const mem = () => (u8 = new Uint8Array(x.memory.buffer));
function str(h, s) {
  const b = Buffer.from(s);
  const p = x.sp_alloc(b.length);
  mem().set(b, p);
  x.sp_w_str(h, p, b.length);
  x.sp_dealloc(p, b.length);
}
function finish(h) {
  const p = x.sp_w_finish(h);
  const n = x.sp_w_result_len(h);
  const out = mem().slice(p, p + n);
  x.sp_free_bytes(p, n);
  x.sp_w_free(h);
  return out;
}

test('a host writes the small object value by value and gets its 16 bytes', () => {
  const live = x.sp_live_bytes();
  const h = x.sp_w_new();
  x.sp_w_map(h, 2); str(h, 'Id'); x.sp_w_int(h, 1n); str(h, 'Name'); str(h, 'hello');
  assert.equal(hex(finish(h)), '82a2496401a44e616d65a568656c6c6f');
  assert.ok(x.sp_live_bytes() >= live);   // the first call keeps its scratch
});

test('a numeric array goes through the bulk writer and past the scratch', () => {
  const n = 30000;
  const p = x.sp_alloc(4 * n);
  new Int32Array(x.memory.buffer, p, n).set(Int32Array.from({ length: n }, (_, i) => i));
  const h = x.sp_w_new();
  x.sp_w_numeric(h, 4, p, n);
  const out = finish(h);
  x.sp_dealloc(p, 4 * n);
  assert.equal(out.length, 89619);
  assert.deepEqual(decode(out, { typedArrays: Int32Array }), Int32Array.from({ length: n }, (_, i) => i));
});

test('errors are sticky and reported, and a failed writer frees everything', () => {
  const live = x.sp_live_bytes();
  const h = x.sp_w_new();
  x.sp_w_array(h, 2);
  x.sp_w_timestamp(h, 0n, 2000000000);            // nanoseconds >= 10^9
  x.sp_w_nil(h);
  assert.equal(x.sp_w_finish(h), 0);
  assert.equal(x.sp_w_error(h), 5);               // SP_E_VALUE_RANGE
  const c = x.sp_w_cause(h);
  const u = mem();
  let s = '';
  for (let i = c; u[i]; i++) s += String.fromCharCode(u[i]);
  assert.match(s, /nanoseconds/);
  x.sp_w_free(h);
  assert.equal(x.sp_live_bytes(), live);
});
