// flows/compare.js -- the x-compare of 000_*.txt: the same value through the
// three entries, and what one call allocates after warm-up, read from the
// module's allocation counters. Owns: the tabs' code, one traced call per
// entry (to show which buffer it writes), the measurement steps. Must not
// touch: the DOM or the module.

import { fmt, hex } from '../model.js';

// The document's figures (.NET 10, 200 warm-up calls, mean of 2,000).
const DOC = [
  { small: '48 B (result array)', big: '100,032 B (result array, LOH)' },
  { small: '0 B', big: '0 B' },
  { small: '0 B', big: '0 B' },
];

// What earlier runs of the other entries measured (same number of calls),
// so the table fills in as the reader visits the tabs.
const measured = new Map();

export default {
  id: 'compare',
  title: 'Three entries: allocation per call',
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
    { id: 'array', label: 'byte[] (to_array)', entry: 0, lines: [0], text: 'Writes into the thread\'s 64 KiB scratch; over it, migrates to a pooled sequence; then copies the result into a new array.' },
    { id: 'output', label: 'IBufferWriter (to_output)', entry: 1, lines: [2, 3], text: 'Writes straight into the caller\'s buffer, reused from call to call.' },
    { id: 'stream', label: 'Stream (to_stream)', entry: 2, lines: [5, 6], text: 'Writes into pooled segments, one at a time: each goes to the stream as soon as it is full, then back to the pool.' },
  ],
  inputs: [
    { name: 'calls', label: 'Measured calls', type: 'select', default: '2000',
      options: [['200', '200'], ['2000', '2,000 (as the document)']] },
  ],

  run(runner, caseIndex, input) {
    const c = this.cases[caseIndex];
    const n = Number(input.calls) || 2000;
    const trace = runner.entry({ entry: c.entry, big: false });
    const small = runner.measure({ entry: c.entry, big: false, warm: 200, n });
    const big = runner.measure({ entry: c.entry, big: true, warm: 200, n });
    measured.set(`${c.entry}/${n}`, { small, big });
    return { trace, small, big, n, measured: new Map(measured) };
  },

  steps(data, walk, caseIndex) {
    const c = this.cases[caseIndex];
    const frames = [`Serialize (${c.label.split(' ')[0]})`];
    const [first, last] = [c.lines[0], c.lines[c.lines.length - 1]];
    if (c.lines.length > 1) walk.emit({ line: first, frames: [], why: c.entry === 1
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
        sample = new Uint8Array([...sample, ...e.bytes]).slice(0, 24);
      }
      if (e.kind === 'COPY_OUT' || e.kind === 'SINK' || e.kind === 'EXIT' && e.depth === 1 && c.entry === 1) {
        walk.emit({ line: last, frames: [...frames, 'formatter'], name: 'written',
          why: `The small object (Small {7, "inner", 1.5}): ${fmt(written)} bytes written into ${where}: ${hex(sample, 17)}.` });
        walk.emit({ line: last, frames, name: 'handed-out',
          why: e.kind === 'COPY_OUT' ? `Copies them into a new array of exactly ${fmt(fact.size)} bytes: the one allocation of the call.`
            : e.kind === 'SINK' ? `Hands the segment (${fmt(fact.size)} B) to the stream, then gives it back to the pool.`
              : 'Commits them to the caller\'s buffer. Nothing was allocated.' });
        while (!walk.done()) walk.next();
      }
    }
    const seen = (i) => (data.measured && data.measured.get(`${this.cases[i].entry}/${data.n}`)) || {};
    const table = (upto) => this.cases.map((k, i) => ({ label: k.label, doc: DOC[i],
      small: i === caseIndex ? (upto >= 1 ? data.small : null) : seen(i).small,
      big: i === caseIndex ? (upto >= 2 ? data.big : null) : seen(i).big }));
    walk.emit({ line: last, frames, name: 'measured-small', table: table(1),
      why: `Small object (${fmt(data.small.length)} B): after 200 warm-up calls, ${fmt(data.n)} calls allocated ${fmt(data.small.bytesPerCall)} B each (${fmt(data.small.allocsPerCall)} allocation${data.small.allocsPerCall === 1 ? '' : 's'}). The document measured ${DOC[caseIndex].small} in .NET.` });
    walk.emit({ line: last, frames, name: 'measured-big', table: table(2),
      why: `Big object (${fmt(data.big.length)} B): ${fmt(data.big.bytesPerCall)} B per call. The document measured ${DOC[caseIndex].big}.`,
      out: `${c.label}: ${fmt(data.small.bytesPerCall)} B per call (small), ${fmt(data.big.bytesPerCall)} B per call (big), measured by the module's counters` });
    return { skip: this.lines.map((_, i) => i).filter((i) => !c.lines.includes(i)), note: c.text };
  },
};
