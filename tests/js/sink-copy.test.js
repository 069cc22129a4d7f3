// The sinks' one copy loop (js/sink.js copyIn): bytes go in a piece at a
// time as more() gives room, in order, none lost at a span's end; copied
// from linear memory, the source is read again after each reservation
// (memory may have grown and the old view gone short). And bytesOf: a
// message's bytes in an array of their own, short or long.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { PIECE, bytesOf, copyIn } from '../../js/sink.js';

// A sink whose spans are `room` bytes each, kept in a list; more() starts a new one.
function spanSink(room, heap = null) {
  const spans = [];
  const s = {
    heap, u8: null, pos: 0, end: 0, asked: [],
    more(n) {
      s.asked.push(n);
      if (s.u8 !== null) spans.push(s.u8.subarray(0, s.pos));
      s.u8 = new Uint8Array(room); s.pos = 0; s.end = room;
      if (heap !== null) heap.grow();
    },
    bytes: () => Buffer.concat([...spans, s.u8.subarray(0, s.pos)]),
  };
  return s;
}

const ramp = (n) => Uint8Array.from({ length: n }, (_, i) => (i * 7) & 255);

test('copyIn: every byte, in order, across as many spans as it takes', () => {
  const s = spanSink(1000);
  copyIn(s, ramp(5000), 0, 4500);
  copyIn(s, ramp(10), 3, 5);
  assert.deepEqual(s.bytes(), Buffer.concat([ramp(4500), ramp(10).subarray(3, 8)]));
  assert.ok(s.asked.every((n) => n > 0 && n <= PIECE));
});

test('copyIn from linear memory reads the heap view as it is after each reservation', () => {
  const bytes = ramp(3000);
  const heap = { u8: bytes.slice(0, 10), grow() { heap.u8 = bytes.slice(); } };   // short until the first more()
  const s = spanSink(700, heap);
  copyIn(s, null, 100, 2500);
  assert.deepEqual(s.bytes(), Buffer.from(bytes.subarray(100, 2600)));
});

test('bytesOf copies a range into an array of its own, short (a loop) or long (slice)', () => {
  const src = ramp(200);
  for (const [from, to] of [[0, 0], [5, 20], [3, 51], [0, 200]]) {
    const out = bytesOf(src, from, to);
    assert.deepEqual(out, src.slice(from, to));
    assert.notEqual(out.buffer, src.buffer);
  }
});
