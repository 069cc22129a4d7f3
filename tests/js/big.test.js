// Messages far beyond the old fixed 128 MiB heap, through every entry, on
// both builds: a 200 MiB Uint8Array, a 150 MiB string, 3,000,000 small
// objects (encode, encodeView, encodeInto, encodeToStream, decode), and
// typed arrays up to 256 MiB through encodeAsync; RSS back after a 300 MB
// message (it never enters linear memory, which cannot shrink) and 200,000
// forgotten leases in one synchronous loop (issue 20). Heavy (~1.2 GB of RSS at
// the peak, ~40 s on 2 cores): run when CI=true or SP_BIG_TESTS=1
// (`SP_BIG_TESTS=1 node --test tests/js/big.test.js`); otherwise skipped.
// Each test has an instance of its own, closed and collected after it, so
// one test's linear memory is gone before the next grows its own.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { afterEach, describe, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { createScratchpack, decode } from '../../js/index.js';

const MiB = 1 << 20;
const enabled = process.env.CI === 'true' || process.env.SP_BIG_TESTS === '1';
const skip = enabled ? false : 'set SP_BIG_TESTS=1 (CI=true runs them)';

function pattern(n) {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i += 4093) b[i] = (i / 4093) & 0xff;
  b[n - 1] = 0x5a;
  return b;
}

const same = (a, b) => a.length === b.length && Buffer.compare(a, b) === 0;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');

// The bytes written to a stream, compared with want chunk by chunk as they come.
async function streamMatches(sp, value, want) {
  let at = 0, ok = true;
  const n = await sp.encodeToStream(value, new Writable({
    highWaterMark: 4 * MiB,
    write(c, _e, cb) { ok &&= same(c, want.subarray(at, at + c.length)); at += c.length; cb(); },
  }));
  return ok && n === want.length && at === want.length;
}

// Every entry on one value: each result the same bytes as encode(), each
// decoding back (check), and the heap back within 16 MiB of where it was.
async function everyEntry(sp, value, check) {
  const base = sp.stats().heap.used;
  let want = sp.encode(value);
  check(decode(want));
  const lease = sp.encodeView(value);
  assert.ok(same(lease.bytes, want), 'encodeView');
  lease.release();
  let target = new Uint8Array(want.length);
  assert.equal(sp.encodeInto(value, target), want.length);
  assert.ok(same(target, want), 'encodeInto');
  target = null;
  assert.ok(await streamMatches(sp, value, want), 'encodeToStream');
  want = null;
  const used = sp.stats().heap.used;
  assert.ok(used - base < 16 * MiB, `heap.used ${used} after, ${base} before`);
}

for (const wasm of ['threads', 'single']) {
  describe(`${wasm} build: big messages`, { skip }, () => {
    let sp;
    const fresh = async () => {
      sp = await createScratchpack({ wasm, threads: wasm === 'threads' ? 2 : 0 });
      sp.encode({ warm: 'up' });
    };
    afterEach(() => {
      sp.close();
      sp = null;
      gc();
      if (process.env.SP_BIG_RSS) console.log(`rss ${(process.memoryUsage().rss / MiB).toFixed(0)} MiB`);
    });

    test('a 200 MiB Uint8Array', async () => {
      await fresh();
      const bin = pattern(200 * MiB);
      await everyEntry(sp, bin, (back) => assert.ok(same(back, bin)));
    });

    test('a 150 MiB string (and one of 2-byte characters)', async () => {
      await fresh();
      const ascii = 'abcdefghijklmnopqrstuvwxy\n'.repeat(150 * MiB / 26 | 0);
      await everyEntry(sp, ascii, (back) => assert.ok(back === ascii));
      const korean = '한국어 텍스트 '.repeat(3 * MiB);     // 48 MiB of UTF-8
      await everyEntry(sp, [korean], (back) => assert.ok(back[0] === korean));
    });

    test('3,000,000 small objects', async () => {
      await fresh();
      const rows = Array.from({ length: 3e6 }, (_, i) => ({ id: i, name: `n${i % 1000}`, ok: i % 3 === 0 }));
      await everyEntry(sp, rows, (back) => {
        assert.equal(back.length, rows.length);
        for (const i of [0, 1, 999999, 2999999]) assert.deepEqual(back[i], rows[i]);
      });
    });

    test('a Float64Array of 256 MiB through encodeAsync', async () => {
      await fresh();
      const f64 = new Float64Array(32 * MiB);                  // 256 MiB
      for (let i = 0; i < f64.length; i += 997) f64[i] = i / 7;
      let out = await sp.encodeAsync(f64);
      assert.ok(await streamMatches(sp, f64, out));            // the same bytes as the other entries
    });

    test('an Int32Array of 256 MiB through encodeAsync', async () => {
      await fresh();
      let out;
      const i32 = new Int32Array(64 * MiB);                    // 256 MiB
      for (let i = 0; i < i32.length; i += 991) i32[i] = i * (i & 1 ? -1 : 1);
      out = await sp.encodeAsync(i32);
      assert.deepEqual(sp.decode(out, { typedArrays: Int32Array }), i32);
      out = null;
      const s = sp.stats();
      assert.ok(s.pool.cachedBytes <= 4 * MiB && s.heap.staging <= 4 * MiB);
      assert.ok(sp.trim() > 0);
    });
  });
}

// RSS, measured after collections: its own figure before and after, in this
// process (no timing). Linear memory must not grow at all for a message
// past bigMessage (stats().heap.size), and RSS comes back within 64 MiB of
// where it was once the results are dropped (it stayed ~300 MB up before).
const rss = () => process.memoryUsage().rss;
async function collected() {
  for (let i = 0; i < 4; i++) { gc(); await new Promise((r) => setTimeout(r, 20)); }
}

for (const wasm of ['threads', 'single']) {
  describe(`${wasm} build: memory that comes back`, { skip }, () => {
    test('a 300 MB bin and a 300 MB string, encoded and decoded, results dropped: RSS back within 64 MiB', async () => {
      const sp = await createScratchpack({ wasm });
      sp.encode({ warm: 'up' });
      const size0 = sp.stats().heap.size;
      for (const make of [() => new Uint8Array(300e6).fill(7), () => 'abcdefghij'.repeat(30e6)]) {
        let value = make();
        if (typeof value === 'string') value.indexOf('z');     // flat before the count
        await collected();
        const before = rss();
        let bytes = sp.encode(value);
        let back = decode(bytes);
        assert.ok(typeof value === 'string' ? back === value : same(back, value));
        bytes = back = null;
        await collected();
        const after = rss();
        assert.ok(after - before < 64 * MiB, `RSS ${after} after, ${before} before`);
        assert.equal(sp.stats().heap.size, size0);
        value = null;
      }
      sp.close();
    });

    test('200,000 forgotten leases in one synchronous loop: none fails, RSS grows at most 256 MiB', async () => {
      const sp = await createScratchpack({ wasm });
      sp.encode({ warm: 'up' });
      await collected();
      const before = rss();
      let failed = 0;
      (function forget() {
        for (let i = 0; i < 200000; i++) {
          try { sp.encodeView({ id: i, name: `lease ${i}`, ok: (i & 1) === 0 }); } catch { failed++; }
        }
      })();
      const grew = rss() - before;
      assert.equal(failed, 0);
      assert.ok(grew <= 256 * MiB, `RSS grew ${grew}`);
      sp.close();
    });
  });
}
