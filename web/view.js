// view.js -- the page's side of a model (the main thread; the worker builds
// models in model.js): moving its cursor, and the number and byte formats
// and cell-state names the drawing uses, and what the first bytes of a
// message mean. Owns nothing else; must not touch the DOM or the module.
// The formats and names are a copy of model.js's (tests/web checks that they
// agree): the page and its worker are separate module worlds, so a module
// both imported would be fetched once for each.

export const CELL_NAMES = ['empty', 'written', 'nested', 'overwritten', 'rewritten', 'copied'];

/** The model moved by delta steps (clamped to the ends). */
export function step(model, delta) {
  return seek(model, model.cursor + delta);
}

/** The model at step i (clamped). */
export function seek(model, i) {
  const last = Math.max(0, model.steps.length - 1);
  return { ...model, cursor: Math.min(last, Math.max(0, i | 0)) };
}

/** The current step, or null for an empty model. */
export function currentStep(model) {
  return model.steps[model.cursor] || null;
}

export function atEnd(model) {
  return model.cursor >= model.steps.length - 1;
}

/** Index of the step named `name`, or -1. */
export function stepNamed(model, name) {
  return model.steps.findIndex((s) => s.name === name);
}

/** 1234567 -> "1,234,567" (the documents' style). */
export function fmt(n) {
  return Math.round(n).toLocaleString('en-US');
}

/** Bytes as spaced upper-case hex: 93 AA 41. */
export function hex(bytes, max = 24) {
  const a = Array.from(bytes.slice(0, max), (b) => b.toString(16).toUpperCase().padStart(2, '0'));
  return a.join(' ') + (bytes.length > max ? ' …' : '');
}


// ---- what bytes mean ---------------------------------------------------------

const h2 = (b) => b.toString(16).toUpperCase().padStart(2, '0');
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
    if (chars > 0) { out.push(`${h2(b)} = ${char(b)}`); chars--; i++; continue; }
    let text, size = 1;
    if (b <= 0x7f) text = `the integer ${b}`;
    else if (b <= 0x8f) text = `a map of ${plural(b & 15, 'pair')}`;
    else if (b <= 0x9f) text = `an array of ${b & 15}`;
    else if (b <= 0xbf) { text = `a string of ${plural(b & 31, 'byte')}`; chars = b & 31; }
    else if (b === 0xc0) text = 'nil';
    else if (b === 0xc2 || b === 0xc3) text = b === 0xc3 ? 'true' : 'false';
    else if (b >= 0xc4 && b <= 0xc6) { size = 1 << (b - 0xc4); const n = len(size); if (n === null) break; text = `binary data of ${plural(n, 'byte')}`; size += 1;
      out.push(`${Array.from(bytes.slice(i, i + size), h2).join(' ')} = ${text}`); break; }   // its bytes are not read
    else if (b === 0xd9 || b === 0xda || b === 0xdb) { size = 1 << (b - 0xd9); const n = len(size); if (n === null) break; text = `a string of ${plural(n, 'byte')}`; chars = n; size += 1; }
    else if (b === 0xdc || b === 0xdd) { size = b === 0xdc ? 2 : 4; const n = len(size); if (n === null) break; text = `an array of ${n}`; size += 1; }
    else if (b === 0xde || b === 0xdf) { size = b === 0xde ? 2 : 4; const n = len(size); if (n === null) break; text = `a map of ${plural(n, 'pair')}`; size += 1; }
    else if (b >= 0xcc && b <= 0xcf) text = `an unsigned ${8 << (b - 0xcc)}-bit integer follows`;
    else if (b >= 0xd0 && b <= 0xd3) text = `a signed ${8 << (b - 0xd0)}-bit integer follows`;
    else if (b === 0xca || b === 0xcb) text = `a ${b === 0xca ? 32 : 64}-bit float follows`;
    else if (b >= 0xe0) text = `the integer ${b - 256}`;
    else text = 'an extension type (or a byte no message starts with)';
    out.push(`${Array.from(bytes.slice(i, i + size), h2).join(' ')} = ${text}`);
    i += size;
  }
  return out;
}
