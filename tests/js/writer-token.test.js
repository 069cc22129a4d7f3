// W.token (a contract's constant map keys and headers, up to 8 bytes packed
// in two words): the same bytes at any distance from the span's end, where
// the fast path would store past it and the slow one must grow first.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { GrowSink } from '../../js/sink-grow.js';
import { W, encodeWith } from '../../js/writer.js';

const words = (t) => [0, 4].map((from) => t.slice(from, from + 4).concat([0, 0, 0, 0]).slice(0, 4)
  .reduce((w, b) => w * 256 + b, 0));

test('a token of 1 to 8 bytes is written whole at every offset from the end of the span', () => {
  for (let n = 1; n <= 8; n++) {
    const token = Array.from({ length: n }, (_, i) => 0xa0 + i * 3);
    const [hi, lo] = words(token);
    for (let before = 4080; before <= 4096; before++) {   // the first buffer has 4,096 bytes
      const s = new GrowSink();
      s.begin();
      encodeWith(s, null, 10, null, () => {
        for (let i = 0; i < before; i++) W.byte(i & 0x7f);
        W.token(n, hi, lo);
        W.byte(0xc3);
      });
      const out = s.copyOut();
      assert.equal(out.length, before + n + 1, `${n} bytes after ${before}`);
      assert.deepEqual([...out.subarray(before, before + n)], token, `${n} bytes after ${before}`);
      assert.equal(out[before + n], 0xc3);
    }
  }
});
