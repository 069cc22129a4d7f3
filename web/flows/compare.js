// flows/compare.js -- the x-compare of 000_*.txt: the same value through the
// three entries, and what one call allocates after warm-up, read from the
// module's allocation counters, beside what the real MessagePack-CSharp
// allocated for the same objects (bench/dotnet-peer.json). Owns: the tabs' code, one traced call per
// entry (to show which buffer it writes), the measurement steps. Must not
// touch: the DOM or the module.

import { dotnetArrayBytes, fmt, hex } from '../model.js';

// The document's figures (.NET 10, 200 warm-up calls, mean of 2,000).
const DOC = [
  { small: 48, big: 100032, note: 'result array; the big one on the LOH' },
  { small: 0, big: 0 },
  { small: 0, big: 0 },
];

export default {
  id: 'compare',
  title: 'Three entries: allocation per call',
  short: 'Three entries',
  source: '000_*.txt, x-compare: one value through the three entries, allocation of one call after warm-up',
  lines: [
    { code: 'byte[] bytes = MessagePackSerializer.Serialize(value);', c: 'sp_to_array(sp_format_value, &v, NULL, &out, NULL)' },
    { code: '' },
    { code: 'abw.ResetWrittenCount();', c: 'sp_buffer_clear(&abw)' },
    { code: 'MessagePackSerializer.Serialize(abw, value);', c: 'sp_to_output(&abw_output, sp_format_value, &v, NULL, NULL)' },
    { code: '' },
    { code: 'ms.SetLength(0);', c: 'streamed = 0  (the sink copies into a reused array)' },
    { code: 'MessagePackSerializer.Serialize(ms, value);', c: 'sp_to_stream(sink, ctx, sp_format_value, &v, NULL, NULL)' },
  ],
  cases: [
    { id: 'array', label: 'byte[] (to_array)', short: 'byte[]', entry: 0, lines: [0], text: 'Writes into the thread\'s 64 KiB scratch; over it, migrates to a pooled sequence; then copies the result into a new array.' },
    { id: 'output', label: 'IBufferWriter (to_output)', short: 'IBufferWriter', entry: 1, lines: [2, 3], text: 'Writes straight into the caller\'s buffer, reused from call to call.' },
    { id: 'stream', label: 'Stream (to_stream)', short: 'Stream', entry: 2, lines: [5, 6], text: 'Writes into pooled segments, one at a time: each goes to the stream as soon as it is full, then back to the pool.' },
  ],
  inputs: [
    { name: 'calls', label: 'Measured calls', type: 'select', default: '2000',
      options: [['200', '200'], ['2000', '2,000 (as the document)']] },
  ],

  /** One traced call of the case's entry, then the document's measurement
   *  of all three entries (so the table is whole whichever tab is open),
   *  and MessagePack-CSharp's recorded figures when the page has them. */
  async run(runner, caseIndex, input) {
    const c = this.cases[caseIndex];
    const n = Number(input.calls) || 2000;
    const trace = runner.entry({ entry: c.entry, big: false });
    const rows = this.cases.map((k) => ({
      small: runner.measure({ entry: k.entry, big: false, warm: 200, n }),
      big: runner.measure({ entry: k.entry, big: true, warm: 200, n }) }));
    const dotnet = runner.recordedDotnet ? await runner.recordedDotnet() : null;
    return { trace, rows, n, dotnet: dotnetOf(dotnet), build: runner.threaded ? 'the pthreads build' : 'the single-threaded build' };
  },

  steps(data, walk, caseIndex) {
    const c = this.cases[caseIndex];
    const frames = [`Serialize (${c.label.split(' ')[0]})`];
    const [first, last] = [c.lines[0], c.lines[c.lines.length - 1]];
    const table = (upto) => tableOf(this.cases, data, upto);
    if (c.lines.length > 1) walk.emit({ line: first, frames: [], table: table(0), why: c.entry === 1
      ? 'The caller keeps one buffer writer and only resets its written count.'
      : 'The caller keeps one stream and only resets its length.' });
    let written = 0, sample = new Uint8Array(0), where = 'scratch';
    while (!walk.done()) {
      const { e, fact } = walk.next();
      if (e.kind === 'SCRATCH') where = 'the thread\'s scratch';
      if (e.kind === 'SEGMENT') where = `a pooled segment (${fmt(fact.size)} B, ${fact.tier})`;
      if (e.kind === 'WRITE') {
        if (e.buffer === 'output') where = 'the caller\'s buffer';
        written += e.size;
        if (sample.length < 24) sample = Uint8Array.from([...sample, ...e.bytes.slice(0, 24 - sample.length)]);
      }
      if (e.kind === 'COPY_OUT' || e.kind === 'SINK' || e.kind === 'EXIT' && e.depth === 1 && c.entry === 1) {
        walk.emit({ line: last, frames: [...frames, 'formatter'], name: 'written', table: table(0),
          why: `The small object (Small {7, "inner", 1.5}): ${fmt(written)} bytes written into ${where}: ${hex(sample, 17)}.` });
        walk.emit({ line: last, frames, name: 'handed-out', table: table(0),
          why: e.kind === 'COPY_OUT' ? `Copies them into a new array of exactly ${fmt(fact.size)} bytes: the one allocation of the call.`
            : e.kind === 'SINK' ? `Hands the segment (${fmt(fact.size)} B) to the stream, then gives it back to the pool.`
              : 'Commits them to the caller\'s buffer. Nothing was allocated.' });
        while (!walk.done()) walk.next();
      }
    }
    const own = data.rows[caseIndex];
    walk.emit({ line: last, frames, name: 'measured-small', table: table(1),
      why: `Small object (${fmt(own.small.length)} B): after 200 warm-up calls, ${fmt(data.n)} calls allocated ${fmt(own.small.bytesPerCall)} B each (${allocs(own.small)}), measured for all three entries.${caseIndex === 0 ? ` The document says 48 B: the same array as .NET counts it (a 24-byte header plus ${fmt(own.small.length)} B, rounded up to 8).` : ` The document measured ${fmt(DOC[caseIndex].small)} B in .NET.`}` });
    walk.emit({ line: last, frames, name: 'measured-big', table: table(2),
      why: `Big object (${fmt(own.big.length)} B): ${fmt(own.big.bytesPerCall)} B per call (${allocs(own.big)}).${caseIndex === 0 ? ` In .NET terms ${fmt(dotnetArrayBytes(own.big.bytesPerCall))} B; the document measured ${fmt(DOC[0].big)} B.` : ` The document measured ${fmt(DOC[caseIndex].big)} B.`}${realBig(data.dotnet, caseIndex)}`,
      out: `${c.label}: ${fmt(own.small.bytesPerCall)} B per call (small), ${fmt(own.big.bytesPerCall)} B per call (big), from the module's allocation counters` });
    return { skip: this.lines.map((_, i) => i).filter((i) => !c.lines.includes(i)),
      note: `${c.text} ${whyNot48(data.rows[0].small)}` };
  },
};

// What the real library allocated for the big object, as a sentence; '' when not recorded.
function realBig(d, i) {
  const c = d && d.byEntry[DOTNET_ENTRY[i]];
  return c ? ` MessagePack-CSharp ${d.version} itself allocated ${fmt(c.big)} B per call (recorded by npm run peer:dotnet -- --record).` : '';
}

// A recorded row as "small / big"; null (not measured) when the recording lacks the entry.
const dotnetCell = (c) => (c ? `${fmt(c.small)} B / ${fmt(c.big)} B` : null);

const allocs = (m) => `${fmt(m.allocsPerCall)} allocation${m.allocsPerCall === 1 ? '' : 's'}`;

// The document's 48 B against what the module measured for to_array.
function whyNot48(m) {
  return `Why ${fmt(m.bytesPerCall)} B here and ${fmt(DOC[0].small)} B in the document: scratchpack counts the bytes it asks its allocator for, the ${fmt(m.length)}-byte result; .NET counts the array object, ${dotnetNote(m.length)} (001_*.txt: new byte[16] is 40 B).`;
}

function dotnetNote(n) {
  return `a 24-byte header (object header, type pointer, length) plus ${fmt(n)} B, rounded up to 8: ${fmt(dotnetArrayBytes(n))} B`;
}

// The recorded file's x-compare rows (bench/dotnet-peer.json), by entry, with
// the library's version; null when the page has no recording or it has no
// such rows (recorded before they existed).
function dotnetOf(rec) {
  if (!rec || !Array.isArray(rec.compare) || rec.compare.length === 0) return null;
  return { version: rec.messagePack, date: rec.date, runtime: rec.dotnet, os: rec.os, cores: rec.cores,
    byEntry: Object.fromEntries(rec.compare.map((c) => [c.entry, c])) };
}

// The entry names the recording uses for the cases' tabs.
const DOTNET_ENTRY = ['byte[]', 'IBufferWriter', 'Stream'];

// The big object's figures docs/dotnet.md explains (MessagePack-CSharp
// 3.1.12, recorded 2026-12-03), by entry, and its reason in one sentence.
const EXPLAINED = { 'byte[]': 400064, IBufferWriter: 0, Stream: 300032 };
const WHY_BIG = 'Why MessagePack-CSharp\'s big object takes 400,064 B through byte[] where the document says 100,032 B: '
  + 'its Write(string) reserves (100,000 + 1) × 3 + 5 = 300,008 contiguous bytes for the 100,000-character string, more than its pool\'s 128 KiB bucket, '
  + 'so each call makes a fresh 300,032-byte array (the Stream entry\'s 300,032 B) beside the 100,032-byte result; '
  + 'the document\'s 100,032 B reproduces with a byte[] payload of the same size (docs/dotnet.md).';

// A note for the recorded column: the reason docs/dotnet.md gives when the
// figures are the ones it explains; else, where they differ from the
// document's, that the reason is not established; '' when they agree.
function peerNote(d) {
  if (!d) return '';
  const rows = DOTNET_ENTRY.map((e) => d.byEntry[e]);
  if (rows.every((c, i) => c && c.small === DOC[i].small && c.big === EXPLAINED[DOTNET_ENTRY[i]])) return WHY_BIG;
  if (rows.every((c, i) => !c || (c.small === DOC[i].small && c.big === DOC[i].big))) return '';
  return `MessagePack-CSharp ${d.version}'s measured figures differ from the document's; the reason is not established.`;
}

// The recorded column's head: the library, and the run that measured it
// (the date, the .NET runtime, the OS and cores the recording names).
function peerHead(d) {
  const machine = [d.runtime, d.os, d.cores ? `${fmt(d.cores)} core${d.cores === 1 ? '' : 's'}` : ''].filter(Boolean).join(', ');
  return `MessagePack-CSharp ${d.version}, measured (recorded ${d.date.slice(0, 10)}${machine ? `; ${machine}` : ''})`;
}

// The table: measured small (upto >= 1) and big (upto >= 2) for every entry,
// what .NET would count for the same allocations, the document's figures,
// and (when recorded) what the real MessagePack-CSharp allocated.
function tableOf(cases, data, upto) {
  const size = (k) => (data.rows[0] ? data.rows[0][k].length : 0);
  const dotnet = (m) => (m.allocsPerCall > 0 ? dotnetArrayBytes(m.bytesPerCall / m.allocsPerCall) * m.allocsPerCall : 0);
  const here = `scratchpack in this browser${data.build ? ` (${data.build})` : ''}`;
  return {
    caption: `Allocation per call, small / big object: scratchpack measured in this browser, the document's figures${data.dotnet ? ', and MessagePack-CSharp\'s recorded ones' : ''}`,
    head: ['entry', `${here}: small (${fmt(size('small'))} B)`, `${here}: big (${fmt(size('big'))} B)`,
      'scratchpack, counted as .NET counts', 'the document says (.NET)',
      ...(data.dotnet ? [peerHead(data.dotnet)] : [])],
    rows: cases.map((k, i) => {
      const r = data.rows[i];
      const cell = (m, on) => (on ? `${fmt(m.bytesPerCall)} B` : null);
      const net = upto >= 2 ? `${fmt(dotnet(r.small))} B / ${fmt(dotnet(r.big))} B` : upto >= 1 ? `${fmt(dotnet(r.small))} B / —` : null;
      const same = upto >= 2 && dotnet(r.small) === DOC[i].small && dotnet(r.big) === DOC[i].big;
      return { label: k.label, cells: [cell(r.small, upto >= 1), cell(r.big, upto >= 2), net,
        `${fmt(DOC[i].small)} B / ${fmt(DOC[i].big)} B${DOC[i].note ? ` (${DOC[i].note})` : ''}`,
        ...(data.dotnet ? [dotnetCell(data.dotnet.byEntry[DOTNET_ENTRY[i]])] : [])], same };
    }),
    note: peerNote(data.dotnet),
  };
}
