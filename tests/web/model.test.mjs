// model.test.mjs -- the page's pure parts without a browser or module:
// replaying trace events into byte cells, the writer flow's steps, the
// cursor, the hash, and the clock's generation counter.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CELL, createMachine, apply, snapshot, seek, step, createModel, hex } from '../../web/model.js';
import { buildModel, flowById } from '../../web/flows/index.js';
import { createClock, formatHash, parseHash } from '../../web/player.js';

const ev = (kind, o = {}) => ({ kind, depth: 1, buffer: null, flag: 0, index: 0, offset: 0, size: 0, addr: 0, ...o });
const write = (buffer, offset, bytes, o = {}) => ev('WRITE', { buffer, offset, size: bytes.length, bytes: Uint8Array.from(bytes), ...o });

// The events sp_flow_writer records for [1..6, "ABCD"] in an 8-byte scratch.
function exceedsTrace() {
  const e = [ev('ENTRY', { flag: 1, size: 8 }), ev('SCRATCH', { addr: 100, size: 8 })];
  for (let i = 0; i < 7; i++) e.push(ev('RESERVE', { flag: 1, offset: i, size: 1 }), write('scratch', i, [i ? i : 0x97]));
  e.push(ev('RESERVE', { flag: 0, offset: 7, size: 5 }), ev('SEGMENT', { size: 32768, flag: 1 }), ev('MIGRATE', { size: 7 }),
    write('segment', 7, [0xa4, 0x41, 0x42, 0x43, 0x44]), ev('COPY_OUT', { flag: 2, size: 12 }), ev('RELEASE', { size: 1 }),
    ev('EXIT', { size: 12 }));
  return e;
}

test('a write by a nested call over the caller\'s bytes is marked overwritten', () => {
  const mc = createMachine();
  for (const e of [ev('ENTRY', { flag: 1 }), ev('SCRATCH', { addr: 8, size: 64 }), write('scratch', 0, [0x93, 0xaa, 0x41]),
    ev('ENTRY', { flag: 1, depth: 2 }), ev('SCRATCH', { addr: 8, size: 64, depth: 2, index: 1 }),
    write('scratch', 0, [0x93, 0x07], { depth: 2 })]) apply(mc, e);
  const [scratch] = snapshot(mc);
  assert.equal(hex(scratch.cells), '93 07 41');
  assert.deepEqual([...scratch.state], [CELL.OVERWRITTEN, CELL.OVERWRITTEN, CELL.WRITTEN]);
});

test('migration copies the scratch\'s bytes into segment 0 and the result is the segments\' bytes', () => {
  const mc = createMachine();
  for (const e of exceedsTrace()) apply(mc, e);
  const bufs = snapshot(mc);
  const seg = bufs.find((b) => b.kind === 'segment'), result = bufs.find((b) => b.kind === 'result');
  assert.equal(hex(seg.cells), '97 01 02 03 04 05 06 A4 41 42 43 44');
  assert.deepEqual([...seg.state.slice(0, 7)], new Array(7).fill(CELL.COPIED));
  assert.equal(hex(result.cells), hex(seg.cells));
  assert.equal(seg.released, true);
});

test('the writer flow names the migration step and dims the scratch-mode copy line', () => {
  const flow = flowById('writer');
  const model = buildModel(flow, 1, { value: flow.value(flow.cases[1], { scratch: '8', text: 'ABCD' }),
    trace: { events: exceedsTrace(), result: new Uint8Array(12) } });
  const m = model.steps.find((s) => s.name === 'migrate');
  assert.equal(m.line, 4);
  assert.equal(m.migrated, 7);
  assert.match(m.why, /the 7 bytes written so far/);
  assert.deepEqual(model.skip, [6]);
  assert.equal(model.steps.find((s) => s.name === 'ensure-miss').verdict, true);
  assert.equal(model.steps[model.steps.length - 1].line, 7);
});

test('the exceeding case repeats the text until the result exceeds the scratch', () => {
  const flow = flowById('writer');
  const v = flow.value(flow.cases[1], { scratch: '65536', text: 'ABCD' });
  assert.ok(v.size > 65536 && v.reps > 1);
  assert.equal(flow.value(flow.cases[1], { scratch: '8', text: 'ABCD' }).reps, 1);
});

test('stepping and seeking stay within the steps', () => {
  const m = createModel('writer', 0, [{}, {}, {}]);
  assert.equal(step(m, -1).cursor, 0);
  assert.equal(step(step(m, 1), 1).cursor, 2);
  assert.equal(step(seek(m, 2), 1).cursor, 2);
  assert.equal(seek(m, 99).cursor, 2);
});

test('the hash round-trips flow, case, inputs and a 1-based step', () => {
  const h = formatHash({ flowId: 'envelope', caseIndex: 2, input: { before: 'A B', id: '7', name: 'inner' }, step: 4 });
  const back = parseHash(h);
  assert.deepEqual(back, { flowId: 'envelope', caseIndex: 2, input: { before: 'A B', id: '7', name: 'inner' }, step: '5' });
  assert.equal(parseHash('#flow=nope').flowId, 'writer');
});

test('pausing bumps the clock\'s generation so a stale frame does nothing', () => {
  const frames = [];
  let t = 0, ticks = 0;
  const clock = createClock({ raf: (f) => frames.push(f), now: () => t });
  clock.play(() => ticks++, 100);
  t = 150;
  frames.shift()();                                  // due: ticks once, schedules the next
  assert.equal(ticks, 1);
  clock.pause();
  t = 400;
  frames.shift()();                                  // the old loop's frame: ignored
  assert.equal(ticks, 1);
  assert.equal(frames.length, 0);
  clock.play(() => ticks++, 100);
  clock.flush();
  assert.equal(ticks, 2);
});
