// flows/writer.js -- the first x-flow of 000_*.txt: the to_array writer in
// scratch mode, and the one-way migration to a pooled sequence when the
// result does not fit. Owns: the document's code lines (its comments in
// English), the mapping from trace events to those lines, the why texts.
// Must not touch: the DOM or the module (it gets a runner from trace.js).

import { fmt, hex } from '../model.js';

/** MessagePack's str header for a body of n bytes (fixstr, str8, str16,
 *  str32). The rule here rather than js/writer.js's: importing that module
 *  would fetch it and its four imports on every load of the page for one
 *  line (tests/web holds the two to the same answers). */
export const strHeaderSize = (n) => (n < 32 ? 1 : n < 0x100 ? 2 : n < 0x10000 ? 3 : 5);

const L = { SCRATCH: 0, WRITER: 1, FORMAT: 2, ENSURE: 3, MIGRATE: 4, FLUSH: 5, TO_ARRAY: 6, SEQ_TO_ARRAY: 7 };

const utf8Length = (s) => new TextEncoder().encode(s).length;

export default {
  id: 'writer',
  title: 'to_array: scratch, then sequence',
  short: 'Scratch → sequence',
  source: '000_*.txt, first x-flow: the byte[] entry\'s writer in its two modes (code abridged)',
  lines: [
    { code: 'scratchArray ??= new byte[65536];            // once per thread', c: 'sp_scratch_acquire(size, legacy, &fresh)' },
    { code: 'var writer = new MessagePackWriter(pool, scratchArray);   // _output = null', c: 'sp_writer_init_array(w, s->data, s->size, pool)' },
    { code: 'formatter.Serialize(ref writer, value, options);', c: 'sp_serialize(w, fn, value)' },
    { code: '    Ensure(n): if (_span.Length < n) EnsureMore(n);', c: 'sp_writer_reserve(w, n) -> reserve_slow' },
    { code: '    MigrateToSequence(): rental = pool.Rent(); copy what was written; _sequencePool = null;', c: 'migrate(w, need)' },
    { code: 'return writer.FlushAndGetArray();', c: 'sp_writer_flush(w); copy_result(w, out)' },
    { code: '    scratch mode: return span.ToArray();', c: 'memcpy(out->data, w->base, len)' },
    { code: '    sequence mode: Flush(); var r = sequence.ToArray(); rental.Dispose(); return r;', c: 'sp_seq_copy_to(w->seq, out->data); sp_writer_release(w)' },
  ],
  cases: [
    { id: 'fits', label: 'The result fits in the scratch', short: 'Fits', nints: 1, text: 'hi' },
    { id: 'exceeds', label: 'The result exceeds the scratch', short: 'Exceeds', nints: 6, text: 'ABCD' },
  ],
  inputs: [
    { name: 'scratch', label: 'Scratch size', type: 'select', default: '8',
      options: [['8', '8 B (as the document draws it)'], ['65536', '65,536 B (the real size)']] },
    { name: 'text', label: 'The string written last', type: 'text', default: 'hi', perCase: true },
  ],

  /** The value the case writes: [1, .. nints, text], the text repeated in the
   *  second case until the result just exceeds the scratch. The number of
   *  repetitions is found by bisection over the size formula (the size grows
   *  with them), so a 1-byte text at 65,536 B costs one repeat(), not 65,000
   *  re-encodings. */
  value(c, input) {
    const scratch = Number(input.scratch) || 8;
    const unit = input.text === undefined ? c.text : String(input.text);
    const len = utf8Length(unit);
    const size = (reps) => 1 + c.nints + strHeaderSize(len * reps) + len * reps;
    let reps = 1;
    if (c.id === 'exceeds' && len > 0 && size(1) <= scratch) {
      let lo = 1, hi = Math.ceil((scratch + 1) / len);         // size(lo) <= scratch < size(hi)
      while (hi - lo > 1) { const mid = (lo + hi) >> 1; if (size(mid) > scratch) hi = mid; else lo = mid; }
      reps = hi;
    }
    return { nints: c.nints, text: unit.repeat(reps), reps, scratch, size: size(reps) };
  },

  run(runner, caseIndex, input) {
    const v = this.value(this.cases[caseIndex], input);
    return { value: v, trace: runner.writer({ nints: v.nints, text: v.text, scratch: v.scratch }) };
  },

  steps(data, walk) {
    const { value } = data;
    const frames = ['Serialize (byte[])'];
    const inFormatter = [...frames, 'formatter'];
    let scratchSize = value.scratch, migrated = false, written = 0;

    walk.next();                                            // ENTRY
    const s = walk.next().fact;                             // SCRATCH
    scratchSize = s.size;
    walk.emit({ line: L.SCRATCH, frames, name: 'scratch',
      why: (s.fresh ? `The first call on this thread: the ${fmt(s.size)}-byte scratch is allocated now, once.`
        : `This thread has called before, so its ${fmt(s.size)}-byte scratch already exists and is used as it is.`)
        + (s.size < 65536 ? ' This demo shrinks the scratch to a few bytes so that the overflow happens on screen; '
          + 'the real one is 64 KiB (65,536 B): choose it under Inputs.' : '') });
    walk.emit({ line: L.WRITER, frames,
      why: `The writer holds only the scratch's span (${fmt(s.size)} B). The pool is not touched.` });

    while (!walk.done()) {
      const e = walk.peek();
      if (e.kind === 'RESERVE' || e.kind === 'WRITE' || e.kind === 'SEGMENT' && migrated) {
        const chunk = formatterWrites(walk);
        written += chunk.bytes;
        if (chunk.bytes > 0) {
          walk.emit({ line: L.FORMAT, frames: inFormatter, name: migrated ? 'write-segment' : 'write-scratch',
            why: migrated
              ? `The formatter goes on in the segment: ${fmt(chunk.bytes)} more bytes (${hex(chunk.sample, 8)}).`
              : `The formatter writes ${fmt(chunk.bytes)} bytes into the scratch (${hex(chunk.sample, 12)}), each reservation exactly its size.`,
            state: `${migrated ? 'written so far' : 'scratch'}: ${fmt(written)} B` });
        }
        if (chunk.miss && migrated) {
          walk.next();                                      // a segment filled: the sequence rents the next
        } else if (chunk.miss) {
          walk.next();                                      // the RESERVE that did not fit: on the gauge now
          const left = scratchSize - chunk.miss.offset;
          walk.emit({ line: L.ENSURE, verdict: true, frames: inFormatter, name: 'ensure-miss',
            why: `It asks for ${fmt(chunk.miss.size)} bytes at offset ${fmt(chunk.miss.offset)}; only ${fmt(left)} of ${fmt(scratchSize)} are left (${fmt(chunk.miss.size - left)} B short), so EnsureMore runs.`,
            state: `scratch: ${fmt(chunk.miss.offset)} of ${fmt(scratchSize)} B used; asks ${fmt(chunk.miss.size)} more: overflows by ${fmt(chunk.miss.size - left)} B` });
        } else if (!migrated && walk.peek()?.kind === 'COPY_OUT') {
          walk.emit({ line: L.ENSURE, verdict: false, frames: inFormatter, name: 'ensure-fits',
            why: `Every reservation fit: ${fmt(written)} of ${fmt(scratchSize)} bytes used. EnsureMore never runs.` });
        }
      } else if (e.kind === 'SEGMENT') {
        const seg = walk.next().fact;
        const m = walk.next().fact;                         // MIGRATE
        migrated = true;
        walk.emit({ line: L.MIGRATE, frames: inFormatter, name: 'migrate', migrated: m.size,
          why: `Rents a sequence: segment 0, ${fmt(seg.size)} B, from ${seg.tier}. Copies the ${fmt(m.size)} bytes written so far into it. The scratch is abandoned (grey): the writer never comes back to it.`,
          state: `segment 0: ${fmt(m.size)} B copied from the scratch` });
      } else if (e.kind === 'COPY_OUT') {
        walk.emit({ line: L.FLUSH, frames,
          why: `FlushAndGetArray: the copy depends on where the writer ended, in the ${migrated ? 'sequence' : 'scratch'}.` });
        const out = walk.next().fact;
        let released = 0;
        while (!walk.done()) { const r = walk.next(); if (r.e.kind === 'RELEASE') released = r.fact.segments; }
        walk.emit({ line: migrated ? L.SEQ_TO_ARRAY : L.TO_ARRAY, frames, name: 'result',
          why: migrated
            ? `Copies the ${fmt(out.size)} bytes out of the segment${released > 1 ? 's' : ''} into one new array and returns the sequence (${released} segment${released === 1 ? '' : 's'}) to the pool.`
            : `Copies the first ${fmt(out.size)} bytes of the scratch into a new array.`,
          out: migrated ? `new byte[${fmt(out.size)}]: the only allocation; the sequence went back to the pool`
            : `new byte[${fmt(out.size)}]: the only allocation` });
      } else {
        walk.next();
      }
    }
    return { skip: migrated ? [L.TO_ARRAY] : [L.MIGRATE, L.SEQ_TO_ARRAY],
      note: noteFor(value, migrated, this) };
  },
};

// Consumes fitting reservations and their writes; stops at a reservation
// that does not fit (returned as miss, not consumed) or at anything else.
function formatterWrites(walk) {
  let bytes = 0, miss = null;
  const sample = [];
  while (!walk.done()) {
    const e = walk.peek();
    if (e.kind === 'RESERVE' && !e.flag) { miss = e; break; }
    if (e.kind !== 'RESERVE' && e.kind !== 'WRITE' && e.kind !== 'SEGMENT') break;
    walk.next();
    if (e.kind === 'WRITE') { bytes += e.size; if (sample.length < 16) sample.push(...e.bytes.slice(0, 16 - sample.length)); }
  }
  return { bytes, miss, sample: Uint8Array.from(sample) };
}

function noteFor(value, migrated, flow) {
  const parts = [];
  if (value.reps > 1) parts.push(`The string is your text repeated ${fmt(value.reps)} times, so that the result (${fmt(value.size)} B) exceeds the ${fmt(value.scratch)}-byte scratch.`);
  const expect = flow.cases.find((c) => c.nints === value.nints)?.id;
  if (expect === 'fits' && migrated) parts.push(`With this input the result (${fmt(value.size)} B) does not fit the scratch: the writer migrated.`);
  parts.push('The real scratch is 65,536 bytes: 64 KiB is where the pool starts to be touched, not where extra allocation starts.');
  return parts.join(' ');
}
