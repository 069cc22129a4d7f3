// flows/envelope.js -- the second x-flow of 000_*.txt: an envelope formatter
// calls the byte-array entry inside a formatter. Outer to_array in legacy
// mode (the outer's first bytes are overwritten), outer to_output (safe),
// and scratchpack's default (the nested call finds the scratch busy and
// writes to a pooled sequence). Owns: the document's code lines (plus the one
// line scratchpack adds), the event-to-line mapping, the why texts. Must not
// touch: the DOM or the module.

import { CELL, fmt, hex } from '../model.js';

const L = { HEAD: 0, TAKE: 2, ALLOC: 3, BUSY: 4, WRITER: 5, FORMAT: 6, RETURN: 7,
  OUT_WRITER: 12, OUT_FORMAT: 13, OUT_FLUSH: 14 };

export default {
  id: 'envelope',
  title: 'The overwrite bug: a nested call clobbers the outer result (scratchpack prevents it)',
  short: 'Overwrite bug',
  source: '000_*.txt, second x-flow: the envelope formatter calls the byte[] entry inside a formatter (source abridged)',
  lines: [
    { code: 'public static byte[] Serialize<T>(T value, MessagePackSerializerOptions? options = null, ...)', c: 'sp_to_array(fn, value, opt, &out, &err)' },
    { code: '{' },
    { code: '    byte[]? array = scratchArray;                   // [ThreadStatic]', c: 'sp_scratch_acquire(size, opt->legacy_nested_scratch, &fresh)' },
    { code: '    if (array == null) scratchArray = array = new byte[65536];', c: '(allocated on the thread\'s first call)' },
    { code: '    // scratchpack only: if (the scratch is in use) write to a pooled sequence', c: 'if (s == NULL) sp_writer_init_sequence(w, pool)' },
    { code: '    var msgpackWriter = new MessagePackWriter(options.SequencePool, array);', c: 'sp_writer_init_array(w, s->data, s->size, pool)' },
    { code: '    Serialize(ref msgpackWriter, value, options);   // the formatter writes', c: 'sp_serialize(w, fn, value)' },
    { code: '    return msgpackWriter.FlushAndGetArray();', c: 'copy_result(w, out)' },
    { code: '}' },
    { code: '' },
    { code: 'public static void Serialize<T>(IBufferWriter<byte> writer, T value, MessagePackSerializerOptions? options = null, ...)', c: 'sp_to_output(out, fn, value, opt, &err)' },
    { code: '{' },
    { code: '    var fastWriter = new MessagePackWriter(writer);', c: 'sp_writer_init_output(w, out)' },
    { code: '    Serialize(ref fastWriter, value, options);', c: 'sp_serialize(w, fn, value)' },
    { code: '    fastWriter.Flush();', c: 'sp_writer_flush(w)' },
    { code: '}' },
  ],
  cases: [
    { id: 'legacy', label: 'Outer byte[] entry (MessagePack-CSharp: overwritten)', short: 'Legacy byte[]', mode: 0 },
    { id: 'output', label: 'Outer IBufferWriter entry', short: 'IBufferWriter', mode: 1 },
    { id: 'safe', label: 'Outer byte[] entry, scratchpack\'s safe default', short: 'Safe byte[]', mode: 2 },
  ],
  inputs: [
    { name: 'before', label: 'Before', type: 'text', default: 'AAAAAAAAAA' },
    { name: 'id', label: 'Inner.Id', type: 'number', default: '7' },
    { name: 'name', label: 'Inner.Name', type: 'text', default: 'inner' },
  ],

  /** The case, and a reference run whose nested call cannot overwrite
   *  anything (legacy: the outer IBufferWriter entry, as the document's
   *  table; the safe cases: the other safe one): its result is what the
   *  outer call should have returned. */
  run(runner, caseIndex, input) {
    const c = this.cases[caseIndex];
    const args = { before: input.before ?? 'AAAAAAAAAA', id: Number(input.id ?? 7) | 0, name: input.name ?? 'inner' };
    const refMode = c.mode === 1 ? 2 : 1;
    const reference = runner.envelope({ mode: refMode, ...args });
    return { trace: runner.envelope({ mode: c.mode, ...args }), expected: reference.result,
      expectedLabel: refMode === 1 ? 'expected: the outer IBufferWriter entry\'s result' : 'expected: scratchpack\'s safe default\'s result' };
  },

  steps(data, walk, caseIndex) {
    const c = this.cases[caseIndex];
    const { trace } = data;
    const stack = [];                 // frames per active call
    let outerHead = 0, wroteInner = false;

    while (!walk.done()) {
      const e = walk.peek();
      if (e.kind === 'ENTRY') {
        walk.next();
        const nested = e.depth > 1;
        const array = e.flag === 1;
        const frames = nested ? [...stack[0], 'Outer formatter', 'EnvelopeFormatter', 'inner Serialize (byte[])']
          : [array ? 'outer Serialize (byte[])' : 'outer Serialize (IBufferWriter)'];
        stack.push(frames);
        if (!array) {
          walk.emit({ line: L.OUT_WRITER, frames, name: 'outer-start',
            why: 'The outer writer writes into the caller\'s buffer. It never touches the thread\'s scratch.' });
          continue;
        }
        const next = walk.next();
        if (next.e.kind === 'SCRATCH') {
          const s = next.fact;
          walk.emit({ line: L.TAKE, frames, name: nested ? 'inner-take' : 'outer-take',
            why: !nested ? `Takes this thread's scratch (${fmt(s.size)} B)${s.fresh ? ', allocated now' : ''}.`
              : s.shared ? 'The envelope formatter calls the same entry. Same thread, so the same scratch comes out, while the outer call is still writing in it: nothing marks it as in use.'
                : 'The envelope formatter calls the same entry; the scratch is free, so it takes it.' });
          if (c.mode === 2) walk.emit({ line: L.BUSY, verdict: false, frames,
            why: 'scratchpack checks first: the scratch is not in use, so this call writes into it.' });
          walk.emit({ line: L.WRITER, frames,
            why: nested && s.shared ? 'The inner writer also starts at offset 0 of the scratch, where the outer call\'s bytes are.'
              : 'The writer starts at offset 0 of the scratch.' });
        } else {                                               // SCRATCH_BUSY
          walk.emit({ line: L.TAKE, frames, name: 'inner-take',
            why: 'The envelope formatter calls the same entry. Same thread, same scratch, but scratchpack knows the outer call holds it.' });
          walk.emit({ line: L.BUSY, verdict: true, frames, name: 'inner-busy',
            why: 'The scratch is in use, so this call rents a sequence from the pool and writes there. The outer bytes stay as they are.' });
        }
      } else if (e.kind === 'RESERVE' || e.kind === 'WRITE' || e.kind === 'SEGMENT') {
        const depth = e.depth;
        const w = writes(walk);
        if (w.bytes === 0) continue;
        const frames = depth > 1 ? stack[stack.length - 1] : [...stack[0], 'Outer formatter'];
        const line = stack[0][0].includes('IBufferWriter') && depth === 1 ? L.OUT_FORMAT : L.FORMAT;
        if (depth === 1 && !wroteInner) {
          outerHead += w.bytes;
          walk.emit({ line, frames, name: 'outer-written', why: `The outer formatter writes the array header and Before: ${fmt(w.bytes)} bytes.`,
            state: `${where(w.key)} 0–${outerHead - 1} = ${hex(w.sample, 12)}` });
        } else if (depth > 1) {
          wroteInner = true;
          const over = changedIn(walk, CELL.OVERWRITTEN);
          walk.emit({ line, frames, name: 'inner-written', overwritten: over,
            why: over > 0 ? `The inner result, ${fmt(w.bytes)} bytes, lands on top of the ${fmt(over)} bytes the outer call had written: each red cell shows what it was before.`
              : `The inner call writes its ${fmt(w.bytes)} bytes into ${w.key.startsWith('seg') ? 'its own segment' : 'the scratch'}; the outer bytes are untouched.`,
            state: `${where(w.key)} 0–${w.bytes - 1} = ${hex(w.sample, 12)}${over ? ' (overwritten)' : ''}` });
        } else {
          const leftovers = changedIn(walk, CELL.REWRITTEN);
          walk.emit({ line, frames, name: 'outer-rest', rewritten: leftovers,
            why: `The outer writer goes on at offset ${fmt(outerHead)}: bin (C4 ${w.bytes > 2 ? hex(w.sample.slice(1, 2)) : ''} + the inner bytes) and After, ${fmt(w.bytes)} bytes.${c.mode === 0 ? ' It does not know its first bytes changed.' : ''}${leftovers ? ` Its first ${fmt(leftovers)} bytes land on the nested call's leftovers (rewritten: harmless, the inner result was already copied out).` : ''}` });
        }
      } else if (e.kind === 'COPY_OUT') {
        const frames = stack[stack.length - 1];
        const out = walk.next().fact;
        drainToExit(walk);
        stack.pop();
        const outer = e.depth === 1;
        if (!outer) {
          walk.emit({ line: L.RETURN, frames, name: 'inner-return',
            why: `The inner result is copied into a new array (${fmt(out.size)} B) and returned normally.` });
          continue;
        }
        const over = overwrittenIn(walk.mc, 'result1');          // the outer call is call 1
        const d = diff(data, trace);
        const differ = countDiffering(d);
        walk.emit({ line: L.RETURN, frames, name: 'outer-return', diff: d,
          why: `Returns without an error: ${fmt(out.size)} bytes copied out of the ${out.from}.${over ? ` ${fmt(over)} of them were written by the nested call, flagged in the result; ${fmt(differ)} differ from what the outer call should have returned${differ < over ? ' (the others happen to hold the same value)' : ''}: see expected against actual.` : ''}`,
          out: readBack(trace) });
      } else if (e.kind === 'EXIT' && e.depth === 1) {
        walk.next();
        walk.emit({ line: L.OUT_FLUSH, frames: stack.pop(), name: 'outer-return', diff: diff(data, trace),
          why: `Flush: ${fmt(e.size)} bytes committed to the caller's buffer.`, out: readBack(trace) });
      } else {
        walk.next();
      }
    }
    const skip = c.mode === 1 ? [L.BUSY] : c.mode === 0 ? [L.BUSY, 10, 11, 12, 13, 14] : [10, 11, 12, 13, 14];
    return { skip, note: 'What breaks is not the inner result but the front of the outer output.' };
  },
};

function where(key) {
  return key.startsWith('scratch') ? 'scratch' : key.startsWith('seg') ? 'segment' : 'ABW';
}

// Consumes one writer's reservations and writes (same depth, no entry between).
function writes(walk) {
  const depth = walk.peek().depth;
  let bytes = 0, key = '';
  const sample = [];
  while (!walk.done()) {
    const e = walk.peek();
    if (e.depth !== depth || !['RESERVE', 'WRITE', 'SEGMENT'].includes(e.kind)) break;
    const r = walk.next();
    if (e.kind === 'WRITE') {
      bytes += e.size;
      key = key || r.fact.key;
      if (sample.length < 24) sample.push(...e.bytes.slice(0, 24 - sample.length));
    }
  }
  return { bytes, key, sample: Uint8Array.from(sample) };
}

// Cells in `state` among those changed since the last step.
function changedIn(walk, state) {
  let n = 0;
  for (const [key, cells] of walk.mc.changed) {
    const b = walk.mc.buffers.get(key);
    for (const i of cells) if (b.state[i] === state) n++;
  }
  return n;
}

function overwrittenIn(mc, key) {
  const b = mc.buffers.get(key);
  let n = 0;
  if (b) for (let i = 0; i < b.used; i++) if (b.state[i] === CELL.OVERWRITTEN) n++;
  return n;
}

function countDiffering(d) {
  const a = d.expected.bytes, b = d.actual.bytes;
  let n = Math.abs(a.length - b.length);
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) n++;
  return n;
}

// The outer result against the reference run's.
function diff(data, trace) {
  return { expected: { label: data.expectedLabel || 'expected', bytes: data.expected || new Uint8Array(0) },
    actual: { label: 'actual: this call\'s result', bytes: trace.result } };
}

function drainToExit(walk) {
  while (!walk.done()) { if (walk.next().e.kind === 'EXIT') return; }
}

function readBack(trace) {
  return trace.readable ? `read back: ${trace.readBack}` : `read back fails: ${trace.readBack}`;
}
