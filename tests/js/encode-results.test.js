// encode()'s results: 'pooled' (Node's default) are views of the instance's
// JS scratch, one after another, as Node's small Buffers are views of its
// pool; 'own' each have an ArrayBuffer of their own. These prove that a
// pooled result is never written over (by later messages, failed ones,
// nested ones, messages that restart in a new array or migrate into C),
// that the pool's arrays cannot be transferred away from the results that
// share them, and that leases and 'own' results still own their bytes.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, test } from 'node:test';

import { createScratchpack, decode } from '../../js/index.js';
import { randomValue, rng } from './helpers.js';

const pooled = await createScratchpack();
const own = await createScratchpack({ results: 'own' });
const single = await createScratchpack({ wasm: 'single' });
after(() => { pooled.close(); own.close(); single.close(); });

// A value whose message is about n bytes (a str of n - 16 after a small map).
const sized = (i, n) => ({ i, s: String.fromCharCode(97 + (i % 26)).repeat(Math.max(0, n - 16)) });

// A deterministic mix of sizes: tiny, around the pool array's boundaries,
// just under and past the 16 KiB scratch (past it: C, then an array of its own).
function sizes(count) {
  const out = [];
  let x = 12345;
  for (let i = 0; i < count; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    const r = x % 100;
    out.push(r < 50 ? 1 + (x >>> 8) % 200 : r < 85 ? 200 + (x >>> 8) % 4000 : r < 97 ? 12000 + (x >>> 8) % 4400 : 16400 + (x >>> 8) % 9000);
  }
  return out;
}

test('results default to pooled under Node, and to own when asked', () => {
  assert.equal(pooled.results, 'pooled');
  assert.equal(own.results, 'own');
});

test('where marking a buffer untransferable does nothing, results default to own; pooled asked for survives a detach', () => {
  // A runtime may offer markAsUntransferable as a no-op: a transfer then detaches the pool.
  const script = "const wt = process.getBuiltinModule('node:worker_threads'); wt.markAsUntransferable = () => {};" +
    `const { createScratchpack, decode } = await import(${JSON.stringify(new URL('../../js/index.js', import.meta.url).href)});` +
    "const sp = await createScratchpack({ wasm: 'single' }); console.log(sp.results); sp.close();" +
    "const p = await createScratchpack({ wasm: 'single', results: 'pooled' });" +
    "const a = p.encode({ a: 1 }); structuredClone(a, { transfer: [a.buffer] });" +
    "const b = p.encode({ b: 'two' }); console.log(a.length, JSON.stringify(decode(b)), b.buffer.byteLength); p.close();";
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60000 });
  assert.deepEqual(out.trim().split('\n'), ['own', '0 {"b":"two"} 32768']);
});

test('pooled results share arrays without overlapping, each 8-aligned', () => {
  const rs = sizes(400).map((n, i) => pooled.encode(sized(i, n)));
  const byBuffer = new Map();
  for (const r of rs) {
    if (!byBuffer.has(r.buffer)) byBuffer.set(r.buffer, []);
    byBuffer.get(r.buffer).push(r);
  }
  assert.ok([...byBuffer.values()].some((g) => g.length > 1), 'no two results share an array');
  for (const group of byBuffer.values()) {
    group.sort((a, b) => a.byteOffset - b.byteOffset);
    for (let k = 0; k < group.length; k++) {
      assert.equal(group[k].byteOffset % 8, 0, 'a result not 8-aligned');
      if (k > 0) assert.ok(group[k - 1].byteOffset + group[k - 1].length <= group[k].byteOffset, 'two results overlap');
    }
  }
});

test('no later message writes over a pooled result: sizes across arrays, failures, nesting, C', () => {
  const made = [];
  const keep = (v) => made.push([v, pooled.encode(v)]);
  const ns = sizes(1500);
  for (let i = 0; i < ns.length; i++) {
    keep(sized(i, ns[i]));
    if (i % 97 === 0) {
      // A message that fails part-way, after writing into the scratch.
      const bad = { a: 'x'.repeat(ns[i] % 3000), get b() { throw new Error('no'); } };
      assert.throws(() => pooled.encode(bad), { code: 'CALLBACK' });
    }
    if (i % 89 === 0) {
      // A getter that encodes (the next nesting level has a scratch of its own) and keeps its result.
      const inner = [];
      const r = pooled.encode({ outer: i, get nested() { inner.push(pooled.encode(sized(i, 700))); return 1; } });
      made.push([{ outer: i, nested: 1 }, r], [sized(i, 700), inner[0]]);
    }
    if (i % 53 === 0) made.push([[Array(8).fill(i), 'C'], pooled.encode([new Float64Array(8).fill(i), 'C'])]);
  }
  for (const [v, r] of made) assert.deepEqual(decode(r), v);
});

test('after a message that went into C for a typed array, the next small one is in the scratch again', () => {
  for (const v of [[new Float64Array(8), 'x'], new Int32Array(3)]) {
    pooled.encode(v);
    const r = pooled.encode({ small: 1 });
    assert.ok(r.buffer.byteLength > r.length, 'an array of its own: written in C, not in the scratch');
    assert.deepEqual(decode(r), { small: 1 });
  }
});

test('after a message that outgrew the scratch the next starts in C, and comes back once one is small', () => {
  const big = Array.from({ length: 3000 }, (_, i) => `item ${i}`);     // about 25 KB, no body past 16 KiB
  const r1 = pooled.encode(big);
  assert.equal(r1.buffer.byteLength, r1.length);
  const r2 = pooled.encode({ small: 2 });                                // started in C: its own array
  assert.equal(r2.buffer.byteLength, r2.length);
  const r3 = pooled.encode({ small: 3 });
  assert.ok(r3.buffer.byteLength > r3.length);
  assert.deepEqual([decode(r1), decode(r2), decode(r3)], [big, { small: 2 }, { small: 3 }]);
});

test('random values: every pooled result keeps the bytes an own result has, to the end', () => {
  const next = rng(20261203);
  const kept = [];
  for (let i = 0; i < 3000; i++) {
    const v = randomValue(next, 0, { bigint: true, maps: true, dates: true });
    // Now and then a big one (past the scratch: C, or a body in JS memory) or a typed array (C).
    const value = i % 211 === 0 ? [v, 'b'.repeat(20000 + i)] : i % 97 === 0 ? [v, new Int16Array(50).fill(i)] : v;
    kept.push([own.encode(value), pooled.encode(value)]);
  }
  for (const [want, got] of kept) assert.deepEqual(got, want);
});

test('writing into one pooled result changes no other', () => {
  const vs = sizes(300).map((n, i) => sized(i, n));
  const rs = vs.map((v) => pooled.encode(v));
  for (let k = 0; k < rs.length; k += 3) rs[k].fill(0xc1);
  for (let k = 0; k < rs.length; k++) if (k % 3 !== 0) assert.deepEqual(decode(rs[k]), vs[k]);
});

test('a pooled result\'s array cannot be transferred away from the others (as Node\'s Buffer pool)', () => {
  const a = pooled.encode({ first: 1 });
  const b = pooled.encode({ second: 2 });
  assert.equal(a.buffer, b.buffer);
  let cloned = null;
  try {
    cloned = structuredClone(b, { transfer: [b.buffer] });
  } catch (e) {
    assert.equal(e.name, 'DataCloneError');       // Node >= 21
  }
  if (cloned !== null) assert.deepEqual(decode(cloned), { second: 2 });   // Node 20: copied, not moved
  assert.equal(b.buffer.byteLength > 0, true, 'the array was detached');
  assert.deepEqual(decode(a), { first: 1 });
  assert.deepEqual(decode(b), { second: 2 });
  assert.deepEqual(decode(pooled.encode({ third: 3 })), { third: 3 });
});

test('own results each have an ArrayBuffer of exactly their size, which transfers', () => {
  const vs = sizes(200).map((n, i) => sized(i, n));
  const rs = vs.map((v) => own.encode(v));
  for (let k = 0; k < rs.length; k++) {
    assert.equal(rs[k].byteOffset, 0);
    assert.equal(rs[k].buffer.byteLength, rs[k].length);
  }
  const moved = structuredClone(rs[0], { transfer: [rs[0].buffer] });
  assert.equal(rs[0].length, 0);
  assert.deepEqual(decode(moved), vs[0]);
  for (let k = 1; k < rs.length; k++) assert.deepEqual(decode(rs[k]), vs[k]);
});

test('a lease of the single-threaded build owns its bytes though results are pooled', () => {
  assert.equal(single.results, 'pooled');
  for (const n of [10, 3000, 20000]) {
    single.encode(sized(0, 100));                    // the scratch's array has pooled results in it
    const lease = single.encodeView(sized(n, n));
    assert.equal(lease.bytes.byteOffset, 0);
    assert.equal(lease.bytes.buffer.byteLength, lease.bytes.length);
    assert.deepEqual(decode(lease.bytes), sized(n, n));
    lease.release();
  }
});

test('results other than pooled or own are INVALID_ARGUMENT', async () => {
  await assert.rejects(createScratchpack({ results: 'shared' }),
    { code: 'INVALID_ARGUMENT', message: /results must be 'pooled' or 'own', not shared/ });
});
