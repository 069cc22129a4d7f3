// display.js -- the words and figures of a model as the page shows them:
// numbers in the documents' style, bytes in hex, each cell's state by name,
// what the first bytes of a buffer mean, the gauges', diffs' and pools'
// sentences. It runs in the worker (flows/index.js buildModel) and adds
// these as text to the model it posts, so that the page draws without a
// copy of the formats of its own (a module both imported would be fetched
// once by the page and once by its worker). Owns: that text. Must not
// touch: the DOM, what a step is (flows/, model.js), how it is drawn.

import { CELL_NAMES, fmt, hex } from './model.js';

const hex1 = (v) => hex([v]);

/** The model with the text the page draws added to every step (in place). */
export function display(model) {
  for (const s of model.steps) {
    for (const b of s.memory || []) bufferText(b);
    if (s.diff) diffText(s.diff);
    if (s.pool) poolText(s.pool);
  }
  if (model.board?.native) model.board.nativeText = nativeText(model.board.native);
  return model;
}

// Cells: hex, the byte each overwritten one was, the state's name, the
// index; the buffer's shown ranges, gauge and meaning.
function bufferText(b) {
  for (const c of b.cells) {
    c.x = c.v < 0 ? '' : hex1(c.v);
    c.px = c.p < 0 ? '' : hex1(c.p);
    c.st = c.v < 0 ? 'empty' : CELL_NAMES[c.s];
    c.n = fmt(c.i);
  }
  b.shown = b.ranges.map(([f, t]) => (t - f === 1 ? fmt(f) : `${fmt(f)}–${fmt(t - 1)}`)).join(' and ');
  if (b.gauge) Object.assign(b, gaugeText(b));
  const head = [];
  for (const c of [...b.cells].sort((x, y) => x.i - y.i)) {
    if (c.i !== head.length || c.v < 0) break;
    head.push(c.v);
  }
  const parts = byteMeanings(head, 5);
  b.meaning = parts.length ? `Read as MessagePack: ${parts.join(' · ')}` : '';
}

function gaugeText(b) {
  const g = b.gauge;
  const ask = g.pending;
  const short = ask ? ask.offset + ask.size - g.size : 0;
  const gaugeText = b.absent ? `${fmt(g.size)} B, not in use yet`
    : b.abandoned ? `abandoned with ${fmt(g.used)} of ${fmt(g.size)} B written: the writer moved to segment 0 and never comes back`
      : `${fmt(g.used)} of ${fmt(g.size)} B used${ask ? ` · asks ${fmt(ask.size)} B at ${fmt(ask.offset)}: ${short > 0 ? `${fmt(short)} B do not fit` : 'fits'}` : ''}`;
  return { gaugeText, short, shortText: short > 0 ? `+${fmt(short)} B` : '' };
}

function diffText(d) {
  for (const c of d.cells) {
    c.ex = c.e < 0 ? '' : hex1(c.e);
    c.ax = c.a < 0 ? '' : hex1(c.a);
  }
  d.verdictText = d.differ === 0 ? `identical: all ${fmt(d.length)} bytes are the expected ones`
    : `${fmt(d.differ)} of ${fmt(d.length)} bytes differ (${d.first === d.last ? `byte ${d.first}` : `bytes ${d.first}–${d.last}`})`;
}

function poolText(p) {
  p.title = `${p.store}${p.cap ? ` (${fmt(p.held)} of ${fmt(p.cap)} hold an array)` : ''}`;
  p.heldText = `${fmt(p.held)} of ${fmt(p.cap)} places hold an array`;
  p.squareText = `each square: ${fmt(p.perSquare)} places`;
  p.inFlightText = `buffers out with the threads: ${fmt(p.inFlight)}`;
  p.counters = p.counters.map(([k, v]) => [k, v, v === null ? 'not counted' : fmt(v)]);
}

function nativeText(native) {
  const n = native.ns, ns = (v) => `${v < 10 ? v.toFixed(1) : fmt(v)} ns`;
  return `shared pool ${ns(n.shared)}, lock-free pool ${ns(n.lockfree)}, no pool ${ns(n.nopool)} per return with ${native.consumers} returning threads — ${native.what}.`;
}

// ---- what bytes mean ---------------------------------------------------------

const plural = (n, one) => `${n} ${one}${n === 1 ? '' : 's'}`;
const char = (b) => (b >= 0x20 && b < 0x7f ? `'${String.fromCharCode(b)}'` : `byte ${b}`);

/** What the first bytes of a MessagePack message mean, read in order
 *  (0x93 = an array of 3, 0xAA = a string of 10 bytes, 0x41 = 'A' inside
 *  it), as "93 = an array of 3" parts; at most `max` parts, stopping where
 *  the bytes stop, or after a binary header (its bytes are opaque). */
export function byteMeanings(bytes, max = 6) {
  const out = [];
  let i = 0, chars = 0;                    // chars: string bytes still to come
  const len = (k) => (i + k < bytes.length ? bytes.slice(i + 1, i + 1 + k).reduce((a, b) => a * 256 + b, 0) : null);
  while (i < bytes.length && out.length < max) {
    const b = bytes[i];
    if (chars > 0) { out.push(`${hex1(b)} = ${char(b)}`); chars--; i++; continue; }
    let text, size = 1;
    if (b <= 0x7f) text = `the integer ${b}`;
    else if (b <= 0x8f) text = `a map of ${plural(b & 15, 'pair')}`;
    else if (b <= 0x9f) text = `an array of ${b & 15}`;
    else if (b <= 0xbf) { text = `a string of ${plural(b & 31, 'byte')}`; chars = b & 31; }
    else if (b === 0xc0) text = 'nil';
    else if (b === 0xc2 || b === 0xc3) text = b === 0xc3 ? 'true' : 'false';
    else if (b >= 0xc4 && b <= 0xc6) { size = 1 << (b - 0xc4); const n = len(size); if (n === null) break; text = `binary data of ${plural(n, 'byte')}`; size += 1;
      out.push(`${hex(bytes.slice(i, i + size))} = ${text}`); break; }   // its bytes are not read
    else if (b === 0xd9 || b === 0xda || b === 0xdb) { size = 1 << (b - 0xd9); const n = len(size); if (n === null) break; text = `a string of ${plural(n, 'byte')}`; chars = n; size += 1; }
    else if (b === 0xdc || b === 0xdd) { size = b === 0xdc ? 2 : 4; const n = len(size); if (n === null) break; text = `an array of ${n}`; size += 1; }
    else if (b === 0xde || b === 0xdf) { size = b === 0xde ? 2 : 4; const n = len(size); if (n === null) break; text = `a map of ${plural(n, 'pair')}`; size += 1; }
    else if (b >= 0xcc && b <= 0xcf) text = `an unsigned ${8 << (b - 0xcc)}-bit integer follows`;
    else if (b >= 0xd0 && b <= 0xd3) text = `a signed ${8 << (b - 0xd0)}-bit integer follows`;
    else if (b === 0xca || b === 0xcb) text = `a ${b === 0xca ? 32 : 64}-bit float follows`;
    else if (b >= 0xe0) text = `the integer ${b - 256}`;
    else text = 'an extension type (or a byte no message starts with)';
    out.push(`${hex(bytes.slice(i, i + size))} = ${text}`);
    i += size;
  }
  return out;
}
