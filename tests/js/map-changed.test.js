// A Map that a getter inside it changes while it is encoded: the header
// gives the size it had when the walk met it and exactly that many entries
// follow -- an entry added is left out, an entry deleted is INVALID_ARGUMENT
// (the message would be short of what its header says) -- on every entry,
// compressed or not, as encodeToStream's walk does with a big Map. Before,
// both gave a message the same instance's decode refused.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';

import { createScratchpack } from '../../js/index.js';

// A Map whose first value has a getter that changes the Map.
function changing(change) {
  const m = new Map();
  m.set('a', { get x() { change(m); return 1; } });
  m.set('b', 2);
  return m;
}
const add = (m) => { if (!m.has('c')) m.set('c', 3); };
const remove = (m) => { m.delete('b'); };

async function streamed(sp, v) {
  const parts = [];
  await sp.encodeToStream(v, new Writable({ write(c, _e, cb) { parts.push(c); cb(); } }));
  return new Uint8Array(Buffer.concat(parts));
}

// Uncompressed, encodeToStream sizes a small value before it writes it,
// running its getters once more (docs/errors.md): the Map has changed
// before it is written, and is written as it then is. Checked apart.
function entries(sp, compression) {
  const all = {
    encode: (v) => sp.encode(v),
    encodeView: (v) => { const l = sp.encodeView(v); const b = l.bytes.slice(); l.release(); return b; },
    encodeInto: (v) => { const t = new Uint8Array(200); return t.subarray(0, sp.encodeInto(v, t)); },
    encodeAsync: (v) => sp.encodeAsync(v),
  };
  if (compression !== 'none') all.encodeToStream = (v) => streamed(sp, v);
  return all;
}

test('uncompressed encodeToStream writes the Map as its getter left it (sized first, then written)', async () => {
  const sp = await createScratchpack({ threads: 0 });
  try {
    assert.deepEqual([...sp.decode(await streamed(sp, changing(add)), { maps: 'map' }).keys()], ['a', 'b', 'c']);
    assert.deepEqual([...sp.decode(await streamed(sp, changing(remove)), { maps: 'map' }).keys()], ['a']);
  } finally {
    sp.close();
  }
});

for (const compression of ['none', 'lz4blockarray']) {
  test(`a Map a getter adds to is written with the entries it had (${compression})`, async () => {
    const sp = await createScratchpack({ threads: 0, compression });
    try {
      for (const [name, f] of Object.entries(entries(sp, compression))) {
        const out = sp.decode(await f(changing(add)), { maps: 'map' });
        assert.deepEqual([...out.keys()], ['a', 'b'], name);
        assert.deepEqual(out.get('a'), new Map([['x', 1]]), name);
        assert.equal(out.get('b'), 2, name);
      }
    } finally {
      sp.close();
    }
  });

  test(`a Map a getter deletes from is INVALID_ARGUMENT, encodeInto's target untouched (${compression})`, async () => {
    const sp = await createScratchpack({ threads: 0, compression });
    try {
      for (const [name, f] of Object.entries(entries(sp, compression)))
        await assert.rejects(async () => f(changing(remove)),
          (e) => e.code === 'INVALID_ARGUMENT' && /lost entries/.test(e.message), name);
      const target = new Uint8Array(64).fill(0xee);
      assert.throws(() => sp.encodeInto([1, changing(remove)], target), (e) => e.code === 'INVALID_ARGUMENT' && e.path === '[1]');
      assert.ok(target.every((b) => b === 0xee));
    } finally {
      sp.close();
    }
  });
}
