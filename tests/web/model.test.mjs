// model.test.mjs -- the page's pure parts without a browser or module:
// replaying trace events into byte cells (overwritten, rewritten, copied,
// abandoned), the layout that keeps every step's memory the same size, the
// writer flow's steps and value, the expected-against-actual rows, the
// three entries' table, the fan-out's summary and the recorded fan-out, the
// cursor, the hash, the keys and the clock's generation counter.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { CELL, apply, createMachine, createModel, dotnetArrayBytes, hex, layout, snapshot } from '../../web/model.js';
import * as view from '../../web/player.js';
import { byteMeanings, display } from '../../web/display.js';

const { seek, step } = view;
import { buildModel, describe, flowById } from '../../web/flows/index.js';
import { RUNS, summary } from '../../web/flows/fanout.js';
import { LONGEST, longestFanout } from '../../web/flows/fanout-longest.js';
import { strHeaderSize } from '../../web/flows/writer.js';
import { strHeaderSize as packageStrHeaderSize } from '../../js/writer.js';
import { createClock, formatHash, keyAction, parseHash, useFlows } from '../../web/player.js';

useFlows(describe());

const ev = (kind, o = {}) => ({ kind, depth: 1, buffer: null, flag: 0, index: 0, offset: 0, size: 0, addr: 0, ...o });
const write = (buffer, offset, bytes, o = {}) => ev('WRITE', { buffer, offset, size: bytes.length, bytes: Uint8Array.from(bytes), ...o });

// The events sp_flow_writer records for [1..6, "ABCD"] in an 8-byte scratch.
function exceedsTrace() {
  const e = [ev('ENTRY', { flag: 1, size: 8 }), ev('SCRATCH', { addr: 100, size: 8 })];
  for (let i = 0; i < 7; i++) e.push(ev('RESERVE', { flag: 1, offset: i, size: 1 }), write('scratch', i, [i ? i : 0x97]));
  e.push(ev('RESERVE', { flag: 0, offset: 7, size: 5, buffer: 'scratch' }), ev('SEGMENT', { size: 32768, flag: 1 }), ev('MIGRATE', { size: 7 }),
    write('segment', 7, [0xa4, 0x41, 0x42, 0x43, 0x44]), ev('COPY_OUT', { flag: 2, size: 12 }), ev('RELEASE', { size: 1 }),
    ev('EXIT', { size: 12 }));
  return e;
}

// The legacy envelope: the outer call writes 3 bytes, a nested call writes 5
// from offset 0 and returns, the outer goes on at 3 and copies 6 out.
function nestedTrace() {
  return [ev('ENTRY', { flag: 1 }), ev('SCRATCH', { addr: 8, size: 64 }), write('scratch', 0, [0x93, 0xaa, 0x41]),
    ev('ENTRY', { flag: 1, depth: 2 }), ev('SCRATCH', { addr: 8, size: 64, depth: 2, index: 1 }),
    write('scratch', 0, [0x93, 0x07, 0xa5, 0x69, 0x6e], { depth: 2 }), ev('COPY_OUT', { flag: 1, size: 5, depth: 2 }),
    ev('EXIT', { depth: 2, size: 5 }), write('scratch', 3, [0xc4, 0x05, 0x63]), ev('COPY_OUT', { flag: 1, size: 6 }), ev('EXIT', { size: 6 })];
}

test('a nested call over the running caller\'s bytes overwrites them and keeps what they were', () => {
  const mc = createMachine();
  for (const e of nestedTrace().slice(0, 6)) apply(mc, e);
  const [scratch] = snapshot(mc);
  assert.equal(hex(scratch.cells), '93 07 A5 69 6E');
  assert.deepEqual([...scratch.state], [CELL.OVERWRITTEN, CELL.OVERWRITTEN, CELL.OVERWRITTEN, CELL.NESTED, CELL.NESTED]);
  assert.equal(hex(scratch.prev.slice(0, 3)), '93 AA 41');
});

test('the caller writing over a finished nested call\'s leftovers is rewritten, not overwritten', () => {
  const mc = createMachine();
  for (const e of nestedTrace()) apply(mc, e);
  const bufs = snapshot(mc);
  const scratch = bufs.find((b) => b.kind === 'scratch');
  assert.deepEqual([...scratch.state.slice(3, 6)], [CELL.REWRITTEN, CELL.REWRITTEN, CELL.WRITTEN]);
});

test('only the caller\'s copy flags the overwritten bytes; the nested call\'s own result is plainly copied', () => {
  const mc = createMachine();
  for (const e of nestedTrace()) apply(mc, e);
  const bufs = snapshot(mc);
  const inner = bufs.find((b) => b.key === 'result2'), outer = bufs.find((b) => b.key === 'result1');
  assert.deepEqual([...inner.state], new Array(5).fill(CELL.COPIED));
  assert.deepEqual([...outer.state], [CELL.OVERWRITTEN, CELL.OVERWRITTEN, CELL.OVERWRITTEN, CELL.COPIED, CELL.COPIED, CELL.COPIED]);
  assert.equal(hex(outer.prev.slice(0, 3)), '93 AA 41');
});

test('migration copies the scratch\'s bytes into segment 0, abandons the scratch, and the result is the segments\' bytes', () => {
  const mc = createMachine();
  for (const e of exceedsTrace()) apply(mc, e);
  const bufs = snapshot(mc);
  const seg = bufs.find((b) => b.kind === 'segment'), result = bufs.find((b) => b.kind === 'result');
  const scratch = bufs.find((b) => b.kind === 'scratch');
  assert.equal(hex(seg.cells), '97 01 02 03 04 05 06 A4 41 42 43 44');
  assert.deepEqual([...seg.state.slice(0, 7)], new Array(7).fill(CELL.COPIED));
  assert.equal(hex(result.cells), hex(seg.cells));
  assert.equal(seg.released, true);
  assert.equal(scratch.abandoned, true);
});

test('a reservation that does not fit is pending on the buffer until the writer moves on', () => {
  const mc = createMachine();
  const events = exceedsTrace();
  const miss = events.findIndex((e) => e.kind === 'RESERVE' && !e.flag);
  for (const e of events.slice(0, miss + 1)) apply(mc, e);
  assert.deepEqual(snapshot(mc)[0].pending, { offset: 7, size: 5 });
  apply(mc, events[miss + 1]);
  apply(mc, events[miss + 2]);
  assert.equal(snapshot(mc)[0].pending, null);
});

test('the writer flow names the migration step, dims the scratch-mode copy line and shows the overflow before it', () => {
  const flow = flowById('writer');
  const model = buildModel(flow, 1, { value: flow.value(flow.cases[1], { scratch: '8', text: 'ABCD' }),
    trace: { events: exceedsTrace(), result: new Uint8Array(12) } });
  const m = model.steps.find((s) => s.name === 'migrate');
  assert.equal(m.line, 4);
  assert.equal(m.migrated, 7);
  assert.match(m.why, /the 7 bytes written so far/);
  assert.deepEqual(model.skip, [6]);
  const miss = model.steps.find((s) => s.name === 'ensure-miss');
  assert.equal(miss.verdict, true);
  assert.deepEqual(miss.memory[0].gauge, { size: 8, used: 7, pending: { offset: 7, size: 5 } });
  assert.match(miss.why, /only 1 of 8 are left \(4 B short\)/);
  assert.equal(m.memory.find((b) => b.kind === 'scratch').abandoned, true);
  assert.equal(model.steps[model.steps.length - 1].line, 7);
});

test('every step of a case draws the same buffers with the same number of cells', () => {
  const flow = flowById('writer');
  const model = buildModel(flow, 1, { value: flow.value(flow.cases[1], { scratch: '8', text: 'ABCD' }),
    trace: { events: exceedsTrace(), result: new Uint8Array(12) } });
  const shape = (s) => s.memory.map((b) => `${b.key}:${b.cells.length}`).join(' ');
  const first = shape(model.steps[0]);
  assert.equal(first, 'scratch@100:8 seg1.0:16 result1:12');
  for (const s of model.steps) assert.equal(shape(s), first);
  assert.equal(model.steps[0].memory[1].absent, true);
  assert.deepEqual(model.legend, ['empty', 'written', 'copied']);
});

test('a big buffer shows its head and a window on the writing, or its end when a reservation overflows it', () => {
  const steps = [{ memory: [{ key: 's', kind: 'scratch', label: 's', size: 65536, used: 100, released: false, abandoned: false,
    pending: null, cells: new Uint8Array(100), state: new Uint8Array(100).fill(CELL.WRITTEN), prev: new Uint8Array(100), changed: [99] }] },
  { memory: [{ key: 's', kind: 'scratch', label: 's', size: 65536, used: 100, released: false, abandoned: false,
    pending: { offset: 100, size: 65500 }, cells: new Uint8Array(100), state: new Uint8Array(100).fill(CELL.WRITTEN),
    prev: new Uint8Array(100), changed: [] }] }];
  layout(steps);
  assert.deepEqual(steps[0].memory[0].ranges, [[0, 12], [90, 102]]);
  assert.deepEqual(steps[1].memory[0].ranges, [[0, 12], [65524, 65536]]);
  assert.equal(steps[0].memory[0].cells.length, steps[1].memory[0].cells.length);
});

test('the repeated string is found by size, not by re-encoding: the smallest repetition over the scratch', () => {
  const flow = flowById('writer');
  for (const [scratch, text] of [['65536', 'A'], ['65536', 'ABCD'], ['65536', '한글'], ['8', 'ABCD'], ['8', 'x']]) {
    const v = flow.value(flow.cases[1], { scratch, text });
    const len = new TextEncoder().encode(text).length;
    const size = (r) => 1 + 6 + (len * r < 32 ? 1 : len * r < 256 ? 2 : len * r < 65536 ? 3 : 5) + len * r;
    assert.equal(v.text, text.repeat(v.reps));
    assert.ok(v.size > Number(scratch), `${scratch}/${text}: ${v.size} exceeds`);
    assert.ok(v.reps === 1 || size(v.reps - 1) <= Number(scratch), `${scratch}/${text}: one repetition fewer fits`);
  }
  assert.equal(flow.value(flow.cases[1], { scratch: '8', text: '' }).text, '');
});

test('the nested call ends with expected against actual, byte by byte', () => {
  const flow = flowById('envelope');
  const trace = { events: nestedTrace(), result: Uint8Array.from([0x93, 0x07, 0xa5, 0xc4, 0x05, 0x63]), readable: false, readBack: 'x' };
  const model = buildModel(flow, 0, { trace, expected: Uint8Array.from([0x93, 0xaa, 0x41, 0xc4, 0x05, 0x63]), expectedLabel: 'expected' });
  const end = model.steps.find((s) => s.name === 'outer-return');
  assert.equal(end.diff.differ, 2);
  assert.deepEqual([end.diff.first, end.diff.last], [1, 2]);
  assert.deepEqual(end.diff.cells.map((c) => c.same), [true, false, false, true, true, true]);
  assert.match(end.why, /3 of them were written by the nested call, flagged in the result; 2 differ/);
  const rest = model.steps.find((s) => s.name === 'outer-rest');
  assert.equal(rest.rewritten, 2);
});

test('.NET counts a byte[] with its 24-byte header, rounded up to 8: 17 B is 48 B, as 001 measured 16 B as 40 B', () => {
  assert.equal(dotnetArrayBytes(16), 40);
  assert.equal(dotnetArrayBytes(17), 48);
  assert.equal(dotnetArrayBytes(8), 32);
  assert.equal(dotnetArrayBytes(100007), 100032);
});

test('the three entries\' table is whole at the measuring steps and explains 17 B against 48 B', () => {
  const flow = flowById('compare');
  const m = (bytes, length) => ({ bytesPerCall: bytes, allocsPerCall: bytes ? 1 : 0, length, usPerCall: 1 });
  const rows = [{ small: m(17, 17), big: m(100007, 100007) }, { small: m(0, 17), big: m(0, 100007) }, { small: m(0, 17), big: m(0, 100007) }];
  const trace = { events: [ev('ENTRY', { flag: 1 }), ev('SCRATCH', { addr: 1, size: 65536 }), write('scratch', 0, [0x93, 7]),
    ev('COPY_OUT', { flag: 1, size: 2 }), ev('EXIT', { size: 2 })], result: new Uint8Array(2) };
  const model = buildModel(flow, 1, { trace, rows, n: 2000 });
  const big = model.steps.find((s) => s.name === 'measured-big');
  assert.deepEqual(big.table.rows.map((r) => r.cells.slice(0, 3)), [['17 B', '100,007 B', '48 B / 100,032 B'],
    ['0 B', '0 B', '0 B / 0 B'], ['0 B', '0 B', '0 B / 0 B']]);
  assert.deepEqual(big.table.rows.map((r) => r.same), [true, true, true]);
  assert.equal(model.steps[0].table.rows[0].cells[0], null);
  assert.match(model.note, /Why 17 B here and 48 B in the document: .*plus 17 B, rounded up to 8: 48 B/);
});

// A fan-out run: per wave a rent sample and a return sample, `ns` per return.
function fanRun(ns, { lockWaits = 0, fresh = 64 } = {}) {
  const out = [];
  let returns = 0, returnNs = 0;
  for (let w = 0; w < 4; w++) {
    out.push({ phase: 1, wave: w, rents: returns + 64, returns, returnNs, lockWaits: 0, fresh, drops: 0, cached: 0, phaseUs: 5, returned: [1] });
    returns += 64;
    returnNs += 64 * ns;
    out.push({ phase: 2, wave: w, rents: returns, returns, returnNs, lockWaits: lockWaits * (w + 1), fresh, drops: 0, cached: 64, phaseUs: 900, returned: [returns] });
  }
  return out;
}

test('the fan-out\'s conclusion follows the numbers, whichever pool is faster', () => {
  const config = { consumers: 1, waves: [64, 64, 64, 64], parts: 2, perPart: 32, queue: 64 };
  const faster = summary({ config, runs: { shared: [fanRun(120, { lockWaits: 3 })], lockfree: [fanRun(40)], nopool: [fanRun(200, { fresh: 256 })] } });
  assert.deepEqual(faster.rows.map((r) => r.ns), [120, 40, 200]);
  assert.match(faster.headline, /lock-free 3\.0× faster than the shared pool/);
  assert.match(faster.conclusion, /wait for a partition lock 12 times in 256 returns/);
  assert.match(faster.conclusion, /No pool is no fix: its frees took 200 ns each, 5\.0× the lock-free pool's/);
  const slower = summary({ config, runs: { shared: [fanRun(40)], lockfree: [fanRun(120)], nopool: [fanRun(30, { fresh: 256 })] } });
  assert.match(slower.headline, /was not faster/);
  assert.match(slower.conclusion, /never had to wait for a lock/);
  assert.match(slower.conclusion, /No pool freed each buffer in 30 ns, no slower here/);
  assert.deepEqual(faster.bars.find((b) => b.key === 'ns').items.map((i) => i.width), [0.6, 0.2, 1]);
});

test('the recorded fan-out still parses and plays every case to its summary', () => {
  const data = JSON.parse(readFileSync(new URL('../../web/recorded/fanout.json', import.meta.url), 'utf8'));
  assert.match(data.recorded.what, /pthread build/);
  const flow = flowById('fanout');
  for (let ci = 0; ci < flow.cases.length; ci++) {
    const model = buildModel(flow, ci, data);
    const names = model.steps.map((s) => s.name);
    assert.deepEqual([names[0], names[names.length - 1]], ['setup', 'summary'], flow.cases[ci].id);
    assert.ok(names.includes('return-1') && names.includes('steady'));
    assert.equal(model.board.rows.length, 3);
    const perRun = data.config.waves.reduce((a, b) => a + b, 0);
    assert.ok(model.board.rows.every((r) => r.ns > 0 && r.runs === data.config.runs && r.returns === data.config.runs * perRun));
    assert.ok(data.config.runs >= 5, `${data.config.runs} runs recorded`);
    assert.equal(model.recorded.what, data.recorded.what);
    assert.notEqual(model.steps[model.steps.length - 1].why, '');
  }
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

test('the page\'s keys leave fields, radios, the scrubber and the tabs alone', () => {
  const at = (tagName, role = null) => ({ tagName, getAttribute: (k) => (k === 'role' ? role : null) });
  assert.equal(keyAction('ArrowRight', at('BODY')), 'next');
  assert.equal(keyAction('ArrowLeft', at('BUTTON')), 'back');
  assert.equal(keyAction('Home', at('DIV')), 'first');
  assert.equal(keyAction(' ', at('BODY')), 'play');
  assert.equal(keyAction(' ', at('BUTTON')), null);                   // the button's own click
  for (const t of [at('INPUT'), at('SELECT'), at('TEXTAREA'), at('BUTTON', 'tab')]) {
    assert.equal(keyAction('ArrowRight', t), null);
    assert.equal(keyAction(' ', t), null);
  }
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

test('the model the worker posts carries the text the page draws: hex, state names, sentences (display.js)', () => {
  const m = display(createModel('x', 0, [{ memory: [{ key: 's', kind: 'scratch', label: 'scratch', size: 70000, ranges: [[0, 2], [1000, 1001]],
    cells: [{ i: 0, v: 0x93, s: CELL.OVERWRITTEN, p: 0xaa, c: true }, { i: 1, v: 0x41, s: CELL.NESTED, p: -1, c: false }, { i: 1000, v: -1, s: CELL.EMPTY, p: -1, c: false }],
    gauge: { size: 70000, used: 2, pending: { offset: 69990, size: 20 } } }] }]));
  const b = m.steps[0].memory[0];
  assert.deepEqual(b.cells.map((c) => [c.x, c.px, c.st, c.n]), [['93', 'AA', 'overwritten', '0'], ['41', '', 'nested', '1'], ['', '', 'empty', '1,000']]);
  assert.equal(b.shown, '0–1 and 1,000');
  assert.equal(b.gaugeText, '2 of 70,000 B used · asks 20 B at 69,990: 10 B do not fit');
  assert.equal(b.shortText, '+10 B');
  assert.equal(b.meaning, "Read as MessagePack: 93 = an array of 3 · 41 = the integer 65");
});

test('a focused scroll box keeps the arrow, Home, End and Space keys', () => {
  const region = { tagName: 'DIV', getAttribute: (a) => (a === 'role' ? 'region' : null) };
  for (const k of ['ArrowRight', 'ArrowLeft', 'Home', 'End', ' ']) assert.equal(keyAction(k, region), null, k);
  assert.equal(keyAction('ArrowRight', { tagName: 'DIV', getAttribute: () => null }), 'next');
});

test('byteMeanings reads the first bytes of a message in order', () => {
  assert.deepEqual(byteMeanings([0x93, 0xaa, 0x41, 0x42]), ['93 = an array of 3', 'AA = a string of 10 bytes', "41 = 'A'", "42 = 'B'"]);
  assert.deepEqual(byteMeanings([0x82, 0xc3, 0xc0, 0xff, 0x05]), ['82 = a map of 2 pairs', 'C3 = true', 'C0 = nil', 'FF = the integer -1', '05 = the integer 5']);
  assert.deepEqual(byteMeanings([0xd9, 0x02, 0x68, 0x69, 0x01]), ['D9 02 = a string of 2 bytes', "68 = 'h'", "69 = 'i'", '01 = the integer 1']);
  assert.deepEqual(byteMeanings([0xc4, 0x0c, 0x93, 0x01]), ['C4 0C = binary data of 12 bytes']);
  assert.deepEqual(byteMeanings([0xda, 0x01]), [], 'a header cut short is not read');
  assert.equal(byteMeanings(Array(20).fill(1), 6).length, 6);
});

// A run whose waves take the given ns per return, one wave each (the first is warm-up).
function fanWaves(nsList, opts = {}) {
  const out = [];
  let returns = 0, returnNs = 0;
  nsList.forEach((ns, w) => {
    out.push({ phase: 1, wave: w, rents: returns + 64, returns, returnNs, lockWaits: 0, fresh: opts.fresh ?? 64, drops: 0, cached: 0, phaseUs: 5, returned: [1] });
    returns += 64;
    returnNs += 64 * ns;
    out.push({ phase: 2, wave: w, rents: returns, returns, returnNs, lockWaits: opts.lockWaits ?? 0, fresh: opts.fresh ?? 64, drops: 0, cached: 64, phaseUs: 900, returned: [returns] });
  });
  return out;
}

// Runs of two waves each (the first warms up), the second at each of `ns`.
const fanRuns = (ns, opts = {}) => ns.map((x, i) => fanWaves([50, x], i === 0 ? opts : { ...opts, lockWaits: 0 }));

test('the fan-out states a verdict only when the runs\' ranges separate, draws times from zero and a few lock waits as a sliver', () => {
  const config = { consumers: 1, waves: [64, 64], parts: 2, perPart: 32, queue: 64, runs: 5 };
  const overlap = summary({ config, runs: { shared: fanRuns([42, 30, 45, 38, 40], { lockWaits: 3 }), lockfree: fanRuns([37, 44, 31, 36, 41]),
    nopool: fanRuns([60, 61, 62, 63, 64], { fresh: 384 }) } });
  assert.match(overlap.headline, /^No difference is measurable on this machine: 37 ns per return on the lock-free pool \(5 runs: 31–44 ns\) against 40 ns on the shared pool \(5 runs: 30–45 ns\)/);
  assert.doesNotMatch(overlap.headline + overlap.conclusion, /faster/);
  // From zero, against the slowest run: 40 against 37 ns draws as 40 against 37.
  const ns = overlap.bars.find((b) => b.key === 'ns');
  assert.deepEqual(ns.items.map((i) => i.width), [40 / 64, 37 / 64, 62 / 64]);
  assert.deepEqual(ns.items[0].range, [30 / 64, 45 / 64]);
  assert.match(ns.label, /the median of 5 runs, the line their range/);
  const apart = summary({ config, runs: { shared: fanRuns([80, 82, 85, 90, 84], { lockWaits: 3 }), lockfree: fanRuns([30, 31, 33, 29, 30]),
    nopool: fanRuns([60, 61, 62, 63, 64], { fresh: 384 }) } });
  assert.match(apart.headline, /^The fix holds here: lock-free 2\.8× faster/);
  assert.match(apart.conclusion, /every run of it faster than every run of the shared pool \(5 runs: 29–33 ns against 5 runs: 80–90 ns\)/);
  const waits = apart.bars.find((b) => b.key === 'lockWaits').items.find((i) => i.id === 'shared');
  assert.equal(waits.value, 3);
  assert.ok(waits.width < 0.01, `3 waits in 640 returns drawn at ${waits.width}`);
  assert.match(apart.bars.find((b) => b.key === 'ns').items[0].text, /^84 ns \(5 runs: 80–90\)$/);
  // One run of the lock-free pool as slow as the shared pool's fastest: no verdict.
  const touching = summary({ config, runs: { shared: fanRuns([80, 82, 85, 90, 84]), lockfree: fanRuns([30, 31, 80, 29, 30]),
    nopool: fanRuns([60, 61, 62, 63, 64]) } });
  assert.match(touching.headline, /^No difference is measurable/);
});

test('the fan-out runs each pool RUNS times, taking turns; switching the case keeps the runs; another thread count runs them anew', async () => {
  const flow = flowById('fanout');
  let calls = 0;
  const kinds = [];
  const runner = { threaded: true, async fanout({ kind }) { calls++; kinds.push(kind); return fanWaves([50, 40]); } };
  const a = await flow.run(runner, 0, { consumers: '3' });
  assert.equal(calls, 3 * RUNS);
  assert.deepEqual(kinds.slice(0, 6), [0, 1, 2, 0, 1, 2], 'the pools take turns');
  assert.deepEqual(Object.values(a.runs).map((r) => r.length), [RUNS, RUNS, RUNS]);
  const b = await flow.run(runner, 1, { consumers: '3' });
  assert.equal(calls, 3 * RUNS);
  assert.equal(b, a);
  await flow.run(runner, 2, { consumers: '2' });
  assert.equal(calls, 6 * RUNS);
});

test('?recorded=longest: its made-up fan-out gives each sentence the longest form any branch of the conclusion writes', () => {
  const flow = flowById('fanout');
  const lengths = (data) => [0, 1, 2].map((ci) => {
    const m = buildModel(flow, ci, data);
    return { headline: m.board.headline.length, why: Math.max(...m.steps.map((s) => s.why.length)),
      bars: Math.max(...m.board.bars.flatMap((b) => b.items.map((i) => i.text.length))) };
  });
  const base = lengths(longestFanout());
  const hi = [9876, 9123, 9999, 9555, 9321], lo = [1876, 1123, 1999, 1555, 1321];
  const variants = [];
  for (const [shared, lockfree] of [[hi, lo], [lo, hi], [hi, hi]]) {
    for (const nopool of [lo, hi]) {
      for (const [lockWaits, drops] of [[0, 0], [2047, 0], [0, 1234], [2047, 1234]]) {
        variants.push({ ...LONGEST, shared, lockfree, nopool, lockWaits, drops });
      }
    }
  }
  for (const v of variants) {
    lengths(longestFanout(v)).forEach((l, ci) => {
      for (const k of Object.keys(l)) assert.ok(l[k] <= base[ci][k], `case ${ci} ${k}: ${l[k]} > ${base[ci][k]} for ${JSON.stringify(v)}`);
    });
  }
  assert.equal(buildModel(flow, 0, longestFanout()).recorded.label, 'Not a measurement');
});

test('the writer flow sizes a str header as the package does (fixstr, str8, str16, str32 edges)', () => {
  for (const n of [0, 31, 32, 255, 256, 65535, 65536, 1 << 20]) assert.equal(strHeaderSize(n), packageStrHeaderSize(n), `n = ${n}`);
});

// A fan-out run whose steady waves (3 on) allocate and drop: `fresh` new
// arrays and `drops` drops per wave from wave 3 on.
function leakyRun(fresh, drops) {
  const out = [];
  let c = { rents: 0, returns: 0, returnNs: 0, fresh: 0, drops: 0 };
  for (let w = 0; w < 4; w++) {
    c = { ...c, rents: c.rents + 64, fresh: c.fresh + (w === 0 ? 64 : w >= 2 ? fresh : 0) };
    out.push({ phase: 1, wave: w, ...c, lockWaits: 0, partitionHits: 0, slotHits: 0, cached: 0, phaseUs: 5, returned: [1] });
    c = { ...c, returns: c.returns + 64, returnNs: c.returnNs + 64 * 40, drops: c.drops + (w >= 2 ? drops : 0) };
    out.push({ phase: 2, wave: w, ...c, lockWaits: 0, partitionHits: 0, slotHits: 0, cached: 64, phaseUs: 900, returned: [c.returns] });
  }
  return out;
}

test('the fan-out\'s steady step says every rent is a hit only when no array was allocated or dropped', () => {
  const flow = flowById('fanout');
  const config = { consumers: 1, waves: [64, 64, 64, 64], parts: 2, perPart: 32, queue: 64, runs: 1 };
  const steady = (fresh, drops, ci = 0) => {
    const runs = { shared: [leakyRun(fresh, drops)], lockfree: [leakyRun(fresh, drops)], nopool: [leakyRun(64, 0)] };
    return buildModel(flow, ci, { config, runs, recorded: null }).steps.find((s) => s.name === 'steady').why;
  };
  assert.match(steady(0, 0), /every rent is a hit/);
  for (const [fresh, drops] of [[5, 0], [0, 7], [5, 7]]) {
    for (const ci of [0, 1]) {
      const why = steady(fresh, drops, ci);
      assert.doesNotMatch(why, /every rent is a hit|holds a whole wave/, `${fresh} new, ${drops} drops`);
      // Two steady waves (3 and 4): twice the per-wave figures.
      if (fresh) assert.match(why, new RegExp(`${2 * fresh} rents found the pool empty`));
      if (drops) assert.match(why, new RegExp(`${2 * drops} returns found it full`));
    }
  }
  // ?recorded=longest: its made-up drops are described, not denied.
  const longest = buildModel(flow, 0, longestFanout()).steps.find((s) => s.name === 'steady').why;
  assert.doesNotMatch(longest, /every rent is a hit/);
});

test('the fan-out\'s conclusion says where its figures come from: this machine, the recorded run, or made-up figures that claim no measurement', () => {
  const data = JSON.parse(readFileSync(new URL('../../web/recorded/fanout.json', import.meta.url), 'utf8'));
  const recorded = summary(data);
  const all = (s) => `${s.headline} ${s.conclusion}`;
  assert.doesNotMatch(all(recorded), /this machine|\b[Hh]ere\b/);
  assert.match(recorded.headline, new RegExp(`in the recorded run \\(Node ${data.recorded.node.replace(/\./g, '\\.')}, ${data.recorded.cores} cores\\)`));
  const live = summary({ ...data, recorded: null });
  assert.match(all(live), /this machine|\bhere\b|^Here/);
  const madeUp = summary(longestFanout());
  assert.doesNotMatch(all(madeUp), /measurable|this machine|\b[Hh]ere\b|recorded run/);
  assert.match(madeUp.headline, /made-up figures \(not a measurement: no pool ran\)/);
  assert.match(madeUp.brief, /made-up figures \(not a measurement: no pool ran\)/);
});

test('the three entries\' table names what measured each column: this browser\'s build, and the recorded .NET runtime, OS and cores', async () => {
  const flow = flowById('compare');
  const m = (bytes, length) => ({ bytesPerCall: bytes, allocsPerCall: bytes ? 1 : 0, length, usPerCall: 1 });
  const trace = { events: [ev('ENTRY', { flag: 1 }), ev('SCRATCH', { addr: 1, size: 65536 }), write('scratch', 0, [0x93, 7]),
    ev('COPY_OUT', { flag: 1, size: 2 }), ev('EXIT', { size: 2 })], result: new Uint8Array(2) };
  const peer = JSON.parse(readFileSync(new URL('../../bench/dotnet-peer.json', import.meta.url), 'utf8'));
  const runner = { threaded: false, entry: () => trace, measure: ({ entry, big }) => m(entry ? 0 : big ? 100007 : 17, big ? 100007 : 17),
    recordedDotnet: async () => peer };
  const model = buildModel(flow, 0, await flow.run(runner, 0, { calls: '200' }));
  const { head } = model.steps.find((s) => s.name === 'measured-big').table;
  assert.match(head[1], /^scratchpack in this browser \(the single-threaded build\): small \(17 B\)$/);
  assert.match(head[2], /^scratchpack in this browser \(the single-threaded build\): big/);
  assert.equal(head.at(-1), `MessagePack-CSharp ${peer.messagePack}, measured (recorded ${peer.date.slice(0, 10)}; ${peer.dotnet}, ${peer.os}, ${peer.cores} cores)`);
  assert.match(model.steps.find((s) => s.name === 'measured-big').table.caption, /allocat/i);
});

test('a deep link\'s select value the select does not offer becomes the nearest one it offers', () => {
  assert.equal(parseHash('#flow=writer&case=exceeds&scratch=16').input.scratch, '8');
  assert.equal(parseHash('#flow=writer&case=exceeds&scratch=40000').input.scratch, '65536');
  assert.equal(parseHash('#flow=compare&case=array&calls=7').input.calls, '200');
  assert.equal(parseHash('#flow=compare&case=array&calls=5000').input.calls, '2000');
  assert.equal(parseHash('#flow=fanout&case=shared&consumers=9').input.consumers, '3');
  assert.equal(parseHash('#flow=fanout&case=shared&consumers=0').input.consumers, '1');
  assert.equal(parseHash('#flow=fanout&case=shared&consumers=two').input.consumers, '3', 'not a number: the default');
  assert.equal(parseHash('#flow=fanout&case=shared&consumers=2').input.consumers, '2');
  assert.equal(parseHash('#flow=envelope&case=legacy&id=12345').input.id, '12345', 'a free field keeps its value');
  const h = parseHash('#flow=writer&case=exceeds&scratch=16&step=2');
  assert.match(formatHash({ ...h, step: 1 }), /scratch=8&/);
});
