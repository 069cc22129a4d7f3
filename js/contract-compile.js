// contract-compile.js -- a contract's encoder and decoder generated as code, once per contract.
// Owns: the source text of the two functions (the analogue of
// MessagePack-CSharp's generated formatters: each field's read or write
// unrolled in declaration order, type checks inline, keys pre-encoded, the
// result built as one object literal of a fixed shape) and making them
// with new Function. Must not touch: formats (the generated code calls the
// writer's W and the decoder's D primitives: no second str or int writer),
// the vocabulary (contract.js), the no-eval fallback (contract-interp.js,
// whose closures it borrows for map and typed-array fields).

import { decoder, encoder, typedElement } from './contract-interp.js';
import { headerToken, keyToken } from './contract-runtime.js';

/** { enc(v, depth), dec(depth) } for contract c, generated (new Function throws under a strict CSP). */
export function compileContract(c, W, D, R) {
  const g = new Gen(c, W, D, R);
  const src = g.source();
  const make = new Function('W', 'D', 'R', 'C', src);
  return make(W, D, R, g.consts);
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

  encStruct() {
    const c = this.c, R = this.R;
    const order = this.slots();
    const lines = [];
    for (const f of order) {
      if (f === null) { lines.push('W.nil();'); continue; }
      lines.push(`f = ${this.k(f.name)};`);
      if (c.keys === 'name') lines.push(this.token(keyToken(f.key)));
      lines.push(`x = v[${q(f.name)}];`);
      if (f.hasDefault) lines.push(`if (x === undefined) x = ${this.k(f.default)};`);
      lines.push(this.encStmt(f.type, 'x', 'depth'));
    }
    void R;
    return `function enc(v, depth) {
  if (typeof v !== 'object' || v === null) throw R.type(${this.k(`a ${c.name} object`)}, v);
  ${this.header(headerToken(order.length, c.keys === 'name'))}
  let f = null, x;
  try {
${lines.map((l) => `    ${l}`).join('\n')}
  } catch (e) {
    throw R.field(e, f);
  }
}`;
  }

  // The struct's header: one byte (a fixarray or fixmap) written as such, else its token.
  header(token) {
    return token.length === 1 ? `W.byte(${token[0]});` : this.token(token);
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
      case 'f32': s = `if (typeof ${x} !== 'number') throw R.type(${what}, ${x}); W.f32(${x});`; break;
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
        s = `if (typeof ${x} !== 'object' || ${x} === null) throw R.type(${what}, ${x}); W.deeper(${d} + 1); ${this.k(n.contract)}._enc(${x}, ${d} + 1);`;
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
    void typedElement;
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

  result(vals) {
    const c = this.c;
    if (c.class === null) return `return { ${c.fields.map((f, i) => `${q(f.name)}: ${vals[i]}`).join(', ')} };`;
    return `const o = Object.create(${this.k(c.class.prototype)});
  ${c.fields.map((f, i) => `o[${q(f.name)}] = ${vals[i]};`).join('\n  ')}
  return o;`;
  }

  decStruct() {
    const c = this.c;
    const what = this.k(`a ${c.name} object`);
    const v = c.fields.map((_, i) => `v${i}`);
    const at = new Map(c.fields.map((f, i) => [f, i]));
    if (c.keys === 'index') {
      const order = this.slots();
      const lines = order.map((f, k) => (f === null ? `if (n > ${k}) { f = null; D.skip(depth + 1); }`
        : `if (n > ${k}) { f = ${this.k(f.name)}; v${at.get(f)} = ${this.decExpr(f.type, '(depth + 1)')}; } else v${at.get(f)} = ${this.missing(f)};`));
      return `function dec(depth) {
  const n = D.array(depth, ${what});
  let f = null, ${v.join(', ')};
  try {
    ${lines.join('\n    ')}
    for (let i = ${order.length}; i < n; i++) { f = null; D.skip(depth + 1); }
  } catch (e) {
    throw R.dfield(e, f);
  }
  ${this.result(v)}
}`;
    }
    const M = this.k(this.R.MISSING);
    const tokens = this.k(c.fields.map((f) => keyToken(f.key)));
    const byValue = this.k(new Map(c.fields.map((f, i) => [f.key, i])));
    const cases = c.fields.map((f, i) =>
      `case ${i}: f = ${this.k(f.name)}; v${i} = ${this.decExpr(f.type, '(depth + 1)')}; break;`);
    return `function dec(depth) {
  const n = D.map(depth, ${what});
  let f = null, ${v.map((x) => `${x} = ${M}`).join(', ')};
  try {
    for (let i = 0, h = 0; i < n; i++) {
      f = null;
      const t = D.keyIndex(${tokens}, h, ${byValue}, depth + 1);
      h = t + 1;
      switch (t) {
        ${cases.join('\n        ')}
        default: D.skip(depth + 1);
      }
    }
  } catch (e) {
    throw R.dfield(e, f);
  }
  ${this.result(c.fields.map((f, i) => `(v${i} === ${M} ? ${this.missing(f)} : v${i})`))}
}`;
  }
}
