// contract-compile.js -- a contract's encoder and decoder generated as code, once per contract.
// Owns: the source text of the two functions (the analogue of
// MessagePack-CSharp's generated formatters: each field's read or write
// unrolled in declaration order, type checks inline, keys pre-encoded, the
// result built as one object literal of a fixed shape) and making them
// with new Function. The common forms are written and read at a local
// cursor (encode: runs reserved at their worst case; decode: fixints,
// floats, short ASCII strings, bools, nils and fixarrays of those inline),
// everything else, and every error, through W and D.
// Must not touch: formats beyond those common forms (the generated code
// calls the writer's W and the decoder's D primitives for the rest), the
// vocabulary (contract.js), the no-eval fallback (contract-interp.js, whose
// closures it borrows for map and typed-array fields and whose bytes,
// values and errors tests/js/contract-runs.test.js holds it to).

import { decoder, encoder } from './contract-interp.js';
import { F32_OVER, headerToken, keyToken } from './contract-runtime.js';
import { RUN_STR_MAX } from './writer.js';

const RUN_FIXARRAY = 16;   // a fixarray holds fewer elements than this

/** { enc(v, depth), dec(depth) } for contract c, generated (new Function throws under a strict CSP). */
export function compileContract(c, W, D, R) {
  const g = new Gen(c, W, D, R);
  const src = g.source();
  const make = new Function('W', 'D', 'R', 'C', src);
  return make(W, D, R, g.consts);
}

// Whether a value of type n can go in a run (Gen.fast).
function runs(n) {
  switch (n.kind) {
    case 'bool': case 'f32': case 'f64': case 'str': return true;
    case 'int': return n.lo >= -2147483648 && n.hi <= 4294967295;
    case 'array': return !n.nullable && n.elem.kind !== 'array' && runs(n.elem);
    default: return false;
  }
}

const I64 = [-(2n ** 63n), 2n ** 63n - 1n];
const U64 = [0n, 2n ** 64n - 1n];
const q = (s) => JSON.stringify(s);

class Gen {
  constructor(c, W, D, R) {
    this.c = c;
    this.W = W;
    this.D = D;
    this.R = R;
    this.consts = [];
    this.ids = 0;
    this.helpers = [];
    this.asNumber = c.int64 === 'number';
  }

  // A constant the code reads as C[i] through a local: its name.
  k(v) {
    let i = this.consts.indexOf(v);
    if (i < 0 || typeof v === 'number') { i = this.consts.length; this.consts.push(v); }
    return `c${i}`;
  }

  id(base) {
    return `${base}${++this.ids}`;
  }

  source() {
    const enc = this.encStruct();
    const dec = this.decStruct();
    const locals = this.consts.map((_, i) => `const c${i} = C[${i}];`).join('\n');
    return `"use strict";\n${locals}\n${enc}\n${dec}\n${this.helpers.join('\n')}\nreturn { enc, dec };`;
  }

  slots() {
    const c = this.c;
    if (c.keys === 'name') return c.fields.slice();
    const order = new Array(c.slots).fill(null);
    for (const f of c.fields) order[f.key] = f;
    return order;
  }

  // The encoder: every field read once, in slot order, then written in
  // runs. A run is a stretch of constants (header, keys, nil gaps) and
  // fields whose worst case is known from the value (bool, int, floats,
  // short strings, arrays of those): when all its values pass their checks,
  // it reserves that worst case once and writes at a local cursor (the
  // analogue of C's sp_writer_reserve); else, or when an array changes
  // under it, it writes as the other fields do, one W call per value, whose
  // checks throw the field's error. (A run gives up before W.done: the
  // span's position has not moved.)
  encStruct() {
    const c = this.c;
    const order = this.slots();
    const x = new Map(c.fields.map((f, i) => [f, `x${i}`]));
    const reads = [];
    for (const f of order) {
      if (f === null) continue;
      const read = this.R.inherited(f.name) ? `R.read(v, ${q(f.name)})` : `v[${q(f.name)}]`;
      reads.push(`f = ${this.k(f.name)}; ${x.get(f)} = ${read};` +
        (f.hasDefault ? ` if (${x.get(f)} === undefined) ${x.get(f)} = ${this.k(f.default)};` : ''));
    }
    // Items in writing order: { bytes } constants, { f } fields.
    const items = [{ bytes: headerToken(order.length, c.keys === 'name') }];
    for (const f of order) {
      if (f === null) { items.push({ bytes: [0xc0] }); continue; }
      if (c.keys === 'name') items.push({ bytes: keyToken(f.key) });
      items.push({ f });
    }
    const lines = [];
    let run = [];
    const flush = () => { if (run.length > 0) lines.push(...this.encRun(run, x)); run = []; };
    for (const it of items) {
      if (it.bytes || runs(it.f.type)) { run.push(it); continue; }
      flush();
      lines.push(`f = ${this.k(it.f.name)};`, this.encStmt(it.f.type, x.get(it.f), 'depth'));
    }
    flush();
    return `function enc(v, depth) {
  if (typeof v !== 'object' || v === null) throw R.type(${this.k(this.R.objectOf(c.name))}, v);
  let f = null, ${c.fields.map((f) => x.get(f)).join(', ')};
  try {
${reads.map((l) => `    ${l}`).join('\n')}
${lines.map((l) => `    ${l}`).join('\n')}
  } catch (e) {
    throw R.field(e, f);
  }
}`;
  }

  // A run's statements: the fast way in a labelled block, the other way after it.
  encRun(run, x) {
    const r = this.id('r'), fast = this.id('fast');
    const pre = [], conds = [], sizes = [], deep = [], puts = [], slow = [];
    let constBytes = 0;
    for (const it of run) {
      if (it.bytes) {
        constBytes += it.bytes.length;
        puts.push(it.bytes.length <= 16 ? Array.from(it.bytes, (b) => `u[p++] = ${b};`).join(' ') : `p = W.putBytes(u, p, ${this.k(it.bytes)});`);
        slow.push(this.constStmt(it.bytes));
        continue;
      }
      const name = x.get(it.f);
      const g = this.fast(it.f.type, name, fast);
      pre.push(...g.pre);
      if (g.cond !== 'true') conds.push(g.cond);
      if (typeof g.size === 'number') constBytes += g.size; else sizes.push(g.size);
      if (g.deep) deep.push(`f = ${this.k(it.f.name)}; W.deeper(depth + 1);`);   // before the reservation
      puts.push(g.write);
      slow.push(`f = ${this.k(it.f.name)};`, this.encStmt(it.f.type, name, 'depth'));
    }
    const size = [String(constBytes), ...sizes].join(' + ');
    if (pre.length === 0 && conds.length === 0) {     // constants only: nothing to check, no other way
      return ['{', `  const z = ${size};`, '  let p = W.reserve(z);', '  const u = W.buf();',
        ...(puts.some((w) => w.includes('dv.')) ? ['  const dv = W.view();'] : []),
        ...puts.map((l) => `  ${l}`), '  W.done(p);', '}'];
    }
    return [`${r}: {`,
      `  ${fast}: {`,
      ...pre.map((l) => `    ${l}`),
      ...(conds.length > 0 ? [`    if (!(${conds.join(' && ')})) break ${fast};`] : []),
      ...deep.map((l) => `    ${l}`),
      `    const z = ${size};`,
      '    let p = W.reserve(z);',
      '    const u = W.buf();',
      ...(puts.some((w) => w.includes('dv.')) ? ['    const dv = W.view();'] : []),
      ...puts.map((l) => `    ${l}`),
      '    W.done(p);',
      `    break ${r};`,
      '  }',
      ...slow.map((l) => `  ${l}`),
      '}'];
  }

  // Constant bytes written the W way: one byte (a fixarray or fixmap header, a nil) as such, else as a token.
  constStmt(bytes) {
    return bytes.length === 1 ? `W.byte(${bytes[0]});` : this.token(bytes);
  }

  // How a value of type n (runs(n)) in variable x goes in a run: { pre,
  // cond, size, write, deep } (size a number or an expression; pre:
  // statements before the checks; deep: an array, whose level is checked).
  // fast: the run's label, which the write breaks to when an array changed
  // since it was sized.
  fast(n, x, fast) {
    let g = null;
    switch (n.kind) {
      case 'bool': g = { cond: `typeof ${x} === 'boolean'`, size: 1, write: `u[p++] = ${x} ? 0xc3 : 0xc2;` }; break;
      case 'int': {
        const test = n.lo === 0 && n.hi === 4294967295 ? `(${x} >>> 0) === ${x}`
          : n.lo === -2147483648 && n.hi === 2147483647 ? `(${x} | 0) === ${x}`
            : `(${x} | 0) === ${x} && ${x} >= ${n.lo} && ${x} <= ${n.hi}`;
        g = { cond: `typeof ${x} === 'number' && ${test}`, size: 5, write: `p = W.putInt(u, p, ${x} + 0);` };
        break;
      }
      case 'f32': g = { cond: `typeof ${x} === 'number' && !(${x} >= ${F32_OVER} || ${x} <= -${F32_OVER})`, size: 5, write: `u[p] = 0xca; dv.setFloat32(p + 1, ${x}); p += 5;` }; break;
      case 'f64': g = { cond: `typeof ${x} === 'number'`, size: 9, write: `u[p] = 0xcb; dv.setFloat64(p + 1, ${x}); p += 9;` }; break;
      case 'str':
        g = { cond: `typeof ${x} === 'string' && ${x}.length <= ${RUN_STR_MAX}`, size: `(3 * ${x}.length + 2)`, write: `p = W.putStr(u, p, ${x});` };
        break;
      case 'array': {
        const e = this.id('e');
        const el = this.fast(n.elem, e, fast);
        const h = this.id('s'), len = this.id('n'), i = this.id('i'), z = this.id('z'), sz = this.id('sz'), top = this.id('top');
        const elSize = typeof el.size === 'number' ? String(el.size) : el.size;
        // A fixarray (up to 15 elements) asks for its elements' largest
        // worst case, with no pass over them first; longer arrays are sized.
        // The write keeps to what was asked for the array itself: its
        // elements' getters or a Proxy may change it, or another array of
        // the run, between sizing and writing.
        const most = { bool: 1, int: 5, f32: 5, f64: 9, str: 3 * RUN_STR_MAX + 2 }[n.elem.kind];
        this.helpers.push(`function ${h}(a) {
  const n = a.length;
  if (n > 0xffff) return -1;
  let s = 3;
  for (let i = 0; i < n; i++) { const ${e} = a[i]; if (!(${el.cond})) return -1; s += ${elSize}; }
  return s;
}`);
        return {
          pre: [`const ${sz} = !Array.isArray(${x}) ? -1 : ${x}.length < ${RUN_FIXARRAY} ? 1 + ${x}.length * ${most} : ${h}(${x});`],
          cond: `${sz} >= 0`,
          size: sz,
          deep: true,
          write: `{ const ${len} = ${x}.length, ${top} = p + ${sz}; if (${len} > 0xffff || p + (${len} < 16 ? 1 : 3) > ${top}) break ${fast};
      if (${len} < 16) u[p++] = 0x90 | ${len}; else { u[p] = 0xdc; u[p + 1] = ${len} >>> 8; u[p + 2] = ${len} & 0xff; p += 3; }
      for (let ${i} = 0; ${i} < ${len}; ${i}++) { const ${e} = ${x}[${i}]; if (!(${el.cond})) break ${fast}; const ${z} = ${elSize}; if (p + ${z} > ${top}) break ${fast}; ${el.write} } }`,
        };
      }
      default: throw new Error(`not a run's type: ${n.kind}`);
    }
    g.pre = [];
    if (!n.nullable) return g;
    const isNil = `(${x} === null || ${x} === undefined)`;
    return {
      pre: [],
      cond: `(${isNil} || ${g.cond})`,
      size: `(${isNil} ? 1 : ${g.size})`,
      write: `if (${isNil}) u[p++] = 0xc0; else { ${g.write} }`,
    };
  }

  // Constant bytes (a map key, a header): up to 8 as two words in the code
  // itself (W.token: no array to read, no loop), longer ones as an array.
  token(t) {
    if (t.length > 8) return `W.raw(${this.k(t)});`;
    const word = (from) => {
      let w = 0;
      for (let i = from; i < from + 4; i++) w = w * 256 + (i < t.length ? t[i] : 0);
      return w;
    };
    return `W.token(${t.length}, ${word(0)}, ${word(4)});`;
  }

  // Statements that write the value in variable x as type n (d: the enclosing level).
  encStmt(n, x, d) {
    const what = this.k(n.type);
    let s;
    switch (n.kind) {
      case 'bool': s = `if (typeof ${x} !== 'boolean') throw R.type(${what}, ${x}); W.bool(${x});`; break;
      case 'int': {
        const test = n.lo === 0 && n.hi === 4294967295 ? `(${x} >>> 0) !== ${x}`
          : n.lo === -2147483648 && n.hi === 2147483647 ? `(${x} | 0) !== ${x}`
            : `(${x} | 0) !== ${x} || ${x} < ${n.lo} || ${x} > ${n.hi}`;
        s = `if (typeof ${x} !== 'number' || ${test}) throw R.intFail(${what}, ${x}); W.int(${x});`;
        break;
      }
      case 'big': {
        const [lo, hi] = n.signed ? I64 : U64;
        s = `if (typeof ${x} === 'bigint') { if (${x} < ${this.k(lo)} || ${x} > ${this.k(hi)}) throw R.range(${what}, ${x}); W.big(${x}); }
    else if (typeof ${x} === 'number' && Number.isSafeInteger(${x})${n.signed ? '' : ` && ${x} >= 0`}) W.int(${x});
    else throw R.bigFail(${what}, ${x});`;
        break;
      }
      case 'f32': s = `if (typeof ${x} !== 'number') throw R.type(${what}, ${x}); if (R.f32Over(${x})) throw R.range(${what}, ${x}); W.f32(${x});`; break;
      case 'f64': s = `if (typeof ${x} !== 'number') throw R.type(${what}, ${x}); W.f64(${x});`; break;
      case 'str': s = `if (typeof ${x} !== 'string') throw R.type(${what}, ${x}); W.str(${x});`; break;
      case 'bin': {
        const b = this.id('b');
        s = `if (${x} instanceof Uint8Array) W.bin(${x}); else { const ${b} = R.bytes(${x}); if (${b} === null) throw R.type(${what}, ${x}); W.bin(${b}); }`;
        break;
      }
      case 'date': s = `if (!(${x} instanceof Date)) throw R.type(${what}, ${x}); W.date(${x});`; break;
      case 'any': s = `W.any(${x}, ${d});`; break;
      case 'contract':
        s = `if (typeof ${x} !== 'object' || ${x} === null) throw R.type(${what}, ${x}); W.nest(${x}, ${d} + 1); ${this.k(n.contract)}._enc(${x}, ${d} + 1); W.unnest(${x}, ${d} + 1);`;
        break;
      case 'array': {
        const a = this.id('a'), len = this.id('n'), i = this.id('i'), e = this.id('x');
        s = `if (!Array.isArray(${x})) throw R.type(${what}, ${x});
    W.deeper(${d} + 1);
    { const ${a} = ${x}, ${len} = ${a}.length; W.array(${len}); let ${i} = 0;
      try { for (; ${i} < ${len}; ${i}++) { const ${e} = ${a}[${i}]; ${this.encStmt(n.elem, e, `(${d} + 1)`)} } }
      catch (e) { throw R.index(e, ${i}); } }`;
        break;
      }
      default:                                  // map, typed: the interpreter's closure
        return `${this.k(encoder(n, this.W, this.R))}(${x}, ${d});`;
    }
    if (!n.nullable) return s;
    return `if (${x} === null || ${x} === undefined) W.nil(); else { ${s} }`;
  }

  // An expression that reads a value of type n at level d.
  decExpr(n, d) {
    const what = this.k(n.type);
    let e;
    switch (n.kind) {
      case 'bool': e = `D.bool(${what})`; break;
      case 'int': e = `D.int(${n.lo}, ${n.hi}, ${what})`; break;
      case 'big': e = `D.big(${n.signed}, ${this.asNumber}, ${what})`; break;
      case 'f32': case 'f64': e = `D.num(${what})`; break;
      case 'str': e = `D.str(${what})`; break;
      case 'bin': e = `D.bin(${what})`; break;
      case 'date': e = `D.date(${what})`; break;
      case 'any': e = `D.any(${d})`; break;
      case 'contract': e = `${this.k(n.contract)}._dec(${d})`; break;
      case 'array': {
        const h = this.id('h');
        this.helpers.push(`function ${h}(d) {
  const n = D.array(d, ${what});
  const a = new Array(n);
  let i = 0;
  try { for (; i < n; i++) a[i] = ${this.decExpr(n.elem, '(d + 1)')}; }
  catch (e) { throw R.dindex(e, i); }
  return a;
}`);
        e = `${h}(${d})`;
        break;
      }
      default:
        return `${this.k(decoder(n, this.D, this.R, this.asNumber))}(${d})`;
    }
    return n.nullable ? `(D.nil() ? null : ${e})` : e;
  }

  // The value of a field that is not in the message: its default, else
  // null when it is nullable (as its type says), else undefined.
  missing(f) {
    if (!f.hasDefault) return f.type.nullable ? 'null' : 'undefined';
    const v = this.k(f.default);
    return typeof f.default === 'object' && f.default !== null ? `R.clone(${v})` : v;
  }

  // The decoded object: a literal of one shape (a computed key for
  // '__proto__', which a literal's plain key would take as the prototype),
  // or an object of the class whose fields are assigned (its setters run;
  // one that throws is CALLBACK, with the field's path).
  result(vals) {
    const c = this.c;
    const key = (name) => (name === '__proto__' ? `[${q(name)}]` : q(name));
    if (c.class === null) return `return { ${c.fields.map((f, i) => `${key(f.name)}: ${vals[i]}`).join(', ')} };`;
    return `const o = Object.create(${this.k(c.class.prototype)});
  try {
    ${c.fields.map((f, i) => `f = ${this.k(f.name)}; ${f.name === '__proto__' ? `R.set(o, f, ${vals[i]})` : `o[${q(f.name)}] = ${vals[i]}`};`).join('\n    ')}
  } catch (e) {
    throw R.setFailed(e, ${this.k(c.name)}, f, D.at());
  }
  return o;`;
  }

  // Statements that read a value of type n (at level d) into variable t at
  // the local cursor p: the common forms inline (fixints, uint 8/16,
  // floats, short ASCII fixstr, bool, nil, fixarrays of those), with the
  // checks and limits the primitives make; anything else through the
  // decoder's primitive at p (D.seek, then p back), whose errors are the
  // ones a value read the slow way gets.
  decAt(n, t, d) {
    const slow = `{ D.seek(p); ${t} = ${this.decExpr(n, d)}; p = D.at(); }`;
    const fast = this.decFast(n, t, d);
    if (fast === null) return slow;
    const nil = n.nullable && n.kind !== 'array' ? `if (c === 0xc0) { ${t} = null; p++; } else ` : '';
    return `{ const c = p < end ? u[p] : 0xc1; ${nil}${fast} else ${slow} }`;
  }

  // The inline forms of decAt as an if-chain on the byte c, or null.
  decFast(n, t, d) {
    switch (n.kind) {
      case 'bool': return `if (c === 0xc3) { ${t} = true; p++; } else if (c === 0xc2) { ${t} = false; p++; }`;
      case 'int': {
        const within = (x) => [n.lo > 0 ? `${x} >= ${n.lo}` : null, n.hi < 0xffff ? `${x} <= ${n.hi}` : null]
          .filter((e) => e !== null).map((e) => ` && ${e}`).join('');
        let s = `if (c < 0x80${n.hi < 127 ? ` && c <= ${n.hi}` : ''}${n.lo > 0 ? ` && c >= ${n.lo}` : ''}) { ${t} = c; p++; }`;
        if (n.lo < 0) s += ` else if (c >= 0xe0${n.lo > -32 ? ` && c - 256 >= ${n.lo}` : ''}) { ${t} = c - 256; p++; }`;
        if (n.hi >= 0x80) s += ` else if (c === 0xcc && p + 2 <= end${within('u[p + 1]')}) { ${t} = u[p + 1]; p += 2; }`;
        if (n.hi >= 0x100) s += ` else if (c === 0xcd && p + 3 <= end${within('((u[p + 1] << 8) | u[p + 2])')}) { ${t} = (u[p + 1] << 8) | u[p + 2]; p += 3; }`;
        return s;
      }
      case 'f32': case 'f64':
        return `if (c === 0xcb && p + 9 <= end) { ${t} = dv.getFloat64(p + 1); p += 9; } ` +
          `else if (c === 0xca && p + 5 <= end) { ${t} = dv.getFloat32(p + 1); p += 5; } ` +
          `else if (c < 0x80) { ${t} = c; p++; }`;
      case 'str':
        return `if (c >= 0xa0 && c <= 0xb0 && c - 0xa0 < end - p && c - 0xa0 <= limits.maxStrLength && (${t} = D.ascii(u, p + 1, c - 0xa0)) !== null) p += c - 0x9f;`;
      case 'array': {
        if (n.nullable || !runs(n) ) return null;
        const a = this.id('a'), m = this.id('m'), i = this.id('i');
        return `if (c >= 0x90 && c < 0xa0 && ${d} < limits.maxDepth && c - 0x90 <= limits.maxArrayLength && c - 0x90 < end - p) {
        const ${m} = c - 0x90, ${a} = new Array(${m}); p++;
        for (let ${i} = 0; ${i} < ${m}; ${i}++) {
          try ${this.decAt(n.elem, `${a}[${i}]`, `(${d} + 1)`)}
          catch (e) { throw R.dindex(e, ${i}); }
        }
        ${t} = ${a};
      }`;
      }
      default: return null;
    }
  }

  // Whether a value of type n is read with a DataView (decAt).
  usesView(n) {
    return n.kind === 'f32' || n.kind === 'f64' || (n.kind === 'array' && this.usesView(n.elem));
  }

  // The decoder's locals (the input, its end, the options' limits, the
  // cursor) and n, the struct's element count: a fix header of the count
  // the contract writes inline, any other through D.array or D.map.
  decLocals(what) {
    const c = this.c, map = c.keys === 'name';
    const count = map ? c.fields.length : c.slots;
    const view = c.fields.some((f) => this.usesView(f.type)) ? ', dv = D.view()' : '';
    const head = count < 16
      ? `if (p < end && u[p] === ${(map ? 0x80 : 0x90) | count} && depth < limits.maxDepth && ${count} <= limits.${map ? 'maxMapLength' : 'maxArrayLength'} && ${map ? 2 * count : count} < end - p) { n = ${count}; p++; }
  else { n = D.${map ? 'map' : 'array'}(depth, ${what}); p = D.at(); }`
      : `n = D.${map ? 'map' : 'array'}(depth, ${what}); p = D.at();`;
    return `const u = D.bytes(), end = D.end(), limits = D.opts()${view};
  let p = D.at(), n;
  ${head}`;
  }

  decStruct() {
    const c = this.c;
    const what = this.k(this.R.objectOf(c.name));
    const v = c.fields.map((_, i) => `v${i}`);
    const at = new Map(c.fields.map((f, i) => [f, i]));
    if (c.keys === 'index') {
      const order = this.slots();
      const lines = order.map((f, k) => (f === null
        ? `if (n > ${k}) { f = null; D.seek(p); D.skip(depth + 1); p = D.at(); }`
        : `if (n > ${k}) { f = ${this.k(f.name)}; ${this.decAt(f.type, `v${at.get(f)}`, '(depth + 1)')} } else v${at.get(f)} = ${this.missing(f)};`));
      return `function dec(depth) {
  ${this.decLocals(what)}
  let f = null, ${v.join(', ')};
  try {
    ${lines.join('\n    ')}
    D.seek(p);
    for (let i = ${order.length}; i < n; i++) { f = null; D.skip(depth + 1); }
  } catch (e) {
    throw R.dfield(e, f);
  }
  ${this.result(v)}
}`;
    }
    const M = this.k(this.R.MISSING);
    const toks = c.fields.map((f) => keyToken(f.key));
    const tokens = this.k(toks);
    const byValue = this.k(new Map(c.fields.map((f, i) => [f.key, i])));
    // The key expected next (the writer keeps the order) compared inline.
    const expect = toks.map((k, i) => (k.length > 16 ? `case ${i}: break;`
      : `case ${i}: if (${k.length} <= end - p && ${Array.from(k, (b, j) => `u[p${j ? ` + ${j}` : ''}] === ${b}`).join(' && ')}) { t = ${i}; p += ${k.length}; } break;`));
    const cases = c.fields.map((f, i) =>
      `case ${i}: f = ${this.k(f.name)}; ${this.decAt(f.type, `v${i}`, '(depth + 1)')} break;`);
    return `function dec(depth) {
  ${this.decLocals(what)}
  let f = null, ${v.map((x) => `${x} = ${M}`).join(', ')};
  try {
    for (let i = 0, h = 0; i < n; i++) {
      f = null;
      let t = -1;
      switch (h < ${toks.length} ? h : 0) {
        ${expect.join('\n        ')}
      }
      if (t < 0) { D.seek(p); t = D.keyIndex(${tokens}, h, ${byValue}, depth + 1); p = D.at(); }
      h = t + 1;
      switch (t) {
        ${cases.join('\n        ')}
        default: D.seek(p); D.skip(depth + 1); p = D.at();
      }
    }
    D.seek(p);
  } catch (e) {
    throw R.dfield(e, f);
  }
  ${this.result(c.fields.map((f, i) => `(v${i} === ${M} ? ${this.missing(f)} : v${i})`))}
}`;
  }
}
