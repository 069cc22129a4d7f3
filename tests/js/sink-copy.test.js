// The sinks' one copy loop (js/sink.js copyIn): bytes go in a piece at a
// time as more() gives room, in order, none lost at a span's end; copied
// from linear memory, the source is read again after each reservation
// (memory may have grown and the old view gone short). And bytesOf: a
// message's bytes in an array of their own, short or long. And copyBytes /
// copyWithin: where V8 would copy shared memory a byte at a time (ends that
// disagree modulo 8), a bounce buffer -- the same bytes wherever they sit.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { PIECE, bytesOf, copyBytes, copyIn, copyWithin } from '../../js/sink.js';

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

// Every alignment of both ends, shared and plain on either side, lengths
// below, at and past the bounce's bound and past one PIECE (the bounce
// buffer's size), bytes around the copy untouched.
const LENGTHS = [1, 255, 256, 257, 4099, PIECE - 3, PIECE, PIECE + 13, 3 * PIECE + 5];
const memories = {
  plain: (n) => new Uint8Array(n),
  shared: (n) => new Uint8Array(new SharedArrayBuffer(n)),
};

test('copyBytes: the same bytes as set(), for every alignment and side', () => {
  for (const [srcKind, mkSrc] of Object.entries(memories)) {
    for (const [dstKind, mkDst] of Object.entries(memories)) {
      for (const n of LENGTHS) {
        const whole = mkSrc(n + 16);
        whole.set(ramp(n + 16));
        for (const from of [0, 3, 8]) {
          const src = whole.subarray(from, from + n);
          for (const at of [0, 1, 4, 7]) {
            const dst = mkDst(n + 16).fill(0xee);
            const want = new Uint8Array(n + 16).fill(0xee);
            want.set(src, at);
            copyBytes(dst, at, src);
            assert.deepEqual(new Uint8Array(dst), want, `${srcKind} -> ${dstKind}, n ${n}, from ${from}, at ${at}`);
          }
        }
      }
    }
  }
});

test('copyWithin: the same bytes as copyWithin(), moving forwards and back, overlapping or not', () => {
  for (const [kind, mk] of Object.entries(memories)) {
    for (const n of LENGTHS) {
      for (const [to, from] of [[0, n + 5], [n + 5, 0], [3, n + 16], [n + 17, 2], [1, 6], [6, 1]]) {
        const size = 2 * n + 40;
        const u = mk(size);
        u.set(ramp(size));
        const want = ramp(size).copyWithin(to, from, from + n);
        copyWithin(u, to, from, from + n);
        assert.deepEqual(new Uint8Array(u), want, `${kind}, n ${n}, to ${to}, from ${from}`);
      }
    }
  }
});

test('bytesOf out of shared memory at any offset: the bytes, in an array of their own', () => {
  const u = memories.shared(3 * PIECE + 64);
  u.set(ramp(u.length));
  for (const n of LENGTHS) {
    for (const from of [0, 1, 5, 8, 13]) {
      const got = bytesOf(u, from, from + n);
      assert.deepEqual(got, ramp(u.length).subarray(from, from + n), `n ${n}, from ${from}`);
      assert.equal(got.buffer.byteLength, n);
      assert.ok(!(got.buffer instanceof SharedArrayBuffer));
    }
  }
});
