// encodeToStream through a list contract (Rec.array()) goes element by
// element, as it does for a plain array: the writable has bytes before the
// last element is read, the bytes are the list's encode(), and errors carry
// the element's path.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';

import { contract, createScratchpack } from '../../js/index.js';

const Rec = contract({ id: 'uint32', name: 'string', score: 'float64' }, { keys: 'index' });
const List = Rec.array();
let sp;
before(async () => { sp = await createScratchpack(); });
after(() => sp.close());

function collector() {
  const chunks = [];
  const w = new Writable({ write(c, _e, cb) { chunks.push(c); cb(); } });
  return { w, chunks, received: () => chunks.reduce((n, c) => n + c.length, 0) };
}

const rows = (n) => Array.from({ length: n }, (_, i) => ({ id: i, name: `row ${i} of the list`, score: i / 4 }));

test('a big list goes to the writable while it is walked, and its bytes are the contract\'s', async () => {
  const list = rows(20000);
  const want = List.encode(list);
  const out = collector();
  let receivedAtLast = -1;
  const last = list[list.length - 1];
  list[list.length - 1] = { get id() { receivedAtLast = out.received(); return last.id; }, name: last.name, score: last.score };
  assert.equal(await sp.encodeToStream(list, out.w, { contract: List }), want.length);
  assert.deepEqual(new Uint8Array(Buffer.concat(out.chunks)), want);
  assert.ok(receivedAtLast > 0, `the writable had ${receivedAtLast} bytes when the last element was read`);
  assert.ok(out.chunks.length > 1);
  assert.deepEqual(sp.decode(want, { contract: List }), rows(20000));
});

test('a list contract\'s errors in a stream name the element, as encode()\'s do', async () => {
  for (const [bad, code] of [[{ id: 1, name: 'x', score: 'high' }, 'TYPE'], [null, 'TYPE'], [{ id: -1, name: 'x', score: 1 }, 'VALUE_RANGE']]) {
    const list = rows(5000);
    list[4321] = bad;
    const whole = (() => { try { sp.encode(list, { contract: List }); } catch (e) { return e; } })();
    assert.equal(whole.code, code);
    const streamed = await sp.encodeToStream(list, collector().w, { contract: List }).then(() => null, (e) => e);
    assert.equal(streamed?.code, code);
    assert.equal(streamed.path, whole.path);
    assert.match(streamed.path, /^\$\[4321\]/);
  }
});

test('a small list and a value that is not a list go whole, failing as encode() does', async () => {
  const out = collector();
  const few = rows(3);
  assert.equal(await sp.encodeToStream(few, out.w, { contract: List }), List.encode(few).length);
  assert.deepEqual(new Uint8Array(Buffer.concat(out.chunks)), List.encode(few));
  await assert.rejects(sp.encodeToStream({ not: 'a list' }, collector().w, { contract: List }), { code: 'TYPE' });
});

test('decodeStream with a contract waits for the rest of a value that a chunk cuts anywhere (TRUNCATED, not TYPE)', async () => {
  const fields = {
    name: 'string', n: 'int32', at: 'timestamp', ok: 'bool', big: 'int64', f: 'float32', d: 'float64',
    blob: 'bin', tags: ['string'], xs: 'int16[]', opt: 'string?', m: { map: ['string', 'uint8'] }, any: 'any',
  };
  const v = {
    name: 'abc', n: 70000, at: new Date(1000), ok: true, big: 2n ** 40n, f: 1.5, d: -2.25,
    blob: Uint8Array.of(1, 2, 3), tags: ['a', 'bc'], xs: Int16Array.of(-300, 5), opt: null, m: { k: 9 }, any: [1, 'z'],
  };
  for (const keys of ['index', 'name']) {
    for (const compile of [true, false]) {
      const R = contract(fields, { keys, compile });
      const bytes = R.encode(v);
      const whole = R.decode(bytes);
      for (let cut = 1; cut < bytes.length; cut++) {
        const got = [];
        for await (const x of sp.decodeStream([bytes.subarray(0, cut), bytes.subarray(cut)], { contract: R })) got.push(x);
        assert.deepEqual(got, [whole], `keys ${keys}, compile ${compile}, cut at ${cut}`);
        assert.throws(() => R.decode(bytes.subarray(0, cut)), (e) => e.code === 'TRUNCATED',
          `keys ${keys}, compile ${compile}: decode of the first ${cut} bytes`);
      }
    }
  }
});
