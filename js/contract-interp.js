// contract-interp.js -- a contract's encoder and decoder built from closures, no eval.
// Owns: the fallback for hosts that refuse generated code (a page whose
// Content-Security-Policy has no 'unsafe-eval'), or contracts made with
// compile: false. The same behaviour as contract-compile.js, field by
// field (tests run both). Must not touch: formats (writer.js W and
// decoder.js D primitives write and read every value), the vocabulary
// (contract.js gives the normal form).

import { KIND, kindOfCtor } from './typed.js';
import { headerToken, keyToken } from './contract-runtime.js';

const I64 = [-(2n ** 63n), 2n ** 63n - 1n];
const U64 = [0n, 2n ** 64n - 1n];

/** { enc(v, depth), dec(depth) } for contract c (see contract.js for depth). */
export function interpretContract(c, W, D, R) {
  const asNumber = c.int64 === 'number';
  const fields = c.fields.map((f, i) => ({
    name: f.name, i, enc: encoder(f.type, W, R), dec: decoder(f.type, D, R, asNumber),
    key: c.keys === 'name' ? keyToken(f.key) : null, hasDefault: f.hasDefault, def: f.default,
    nullable: f.type.nullable === true,
  }));
  const order = c.keys === 'index' ? new Array(c.slots).fill(null) : fields;
  if (c.keys === 'index') for (const f of fields) order[c.fields[f.i].key] = f;
  const header = headerToken(order.length, c.keys === 'name');
  const what = R.objectOf(c.name);
  const proto = c.class === null ? null : c.class.prototype;
  const byKey = new Map(c.keys === 'name' ? c.fields.map((f, i) => [f.key, i]) : []);
  const tokens = fields.map((f) => f.key);
  const inherited = order.map((f) => f !== null && R.inherited(f.name));   // read with R.read
  const missing = (f) => (!f.hasDefault ? (f.nullable ? null : undefined)
    : typeof f.def === 'object' && f.def !== null ? R.clone(f.def) : f.def);

  // Every field is read first, in order, then written: as the generated
  // encoder does, so a getter sees, and a getter's error wins, the same.
  function enc(v, depth) {
    if (typeof v !== 'object' || v === null) throw R.type(what, v);
    const xs = new Array(order.length);
    let f = null;
    try {
      for (let i = 0; i < order.length; i++) {
        f = order[i];
        if (f === null) continue;
        let x = inherited[i] ? R.read(v, f.name) : v[f.name];
        if (x === undefined && f.hasDefault) x = f.def;
        xs[i] = x;
      }
    } catch (e) {
      throw R.field(e, f.name);
    }
    W.raw(header);
    for (let i = 0; i < order.length; i++) {
      f = order[i];
      if (f === null) { W.nil(); continue; }
      if (f.key !== null) W.raw(f.key);
      try {
        f.enc(xs[i], depth);
      } catch (e) {
        throw R.field(e, f.name);
      }
    }
  }

  function dec(depth) {
    const vals = new Array(fields.length).fill(R.MISSING);
    let f = null;
    try {
      if (c.keys === 'index') {
        const n = D.array(depth, what);
        for (let i = 0; i < n; i++) {
          f = i < order.length ? order[i] : null;
          if (f === null) D.skip(depth + 1);
          else vals[f.i] = f.dec(depth + 1);
        }
      } else {
        const n = D.map(depth, what);
        for (let i = 0, h = 0; i < n; i++) {
          f = null;
          const t = D.keyIndex(tokens, h, byKey, depth + 1);
          h = t + 1;
          f = t < 0 ? null : fields[t];
          if (f === null) D.skip(depth + 1);
          else vals[f.i] = f.dec(depth + 1);
        }
      }
    } catch (e) {
      throw R.dfield(e, f === null ? null : f.name);
    }
    const o = proto === null ? {} : Object.create(proto);
    try {
      for (f of fields) R.set(o, f.name, vals[f.i] === R.MISSING ? missing(f) : vals[f.i]);
    } catch (e) {
      throw R.setFailed(e, c.name, f.name, D.at());
    }
    return o;
  }

  return { enc, dec };
}

// (x, depth) => void: writes x as type n (depth: the enclosing container's level).
export function encoder(n, W, R) {
  const what = n.type;
  let f;
  switch (n.kind) {
    case 'bool': f = (x) => { if (typeof x !== 'boolean') throw R.type(what, x); W.bool(x); }; break;
    case 'int': {
      const lo = n.lo, hi = n.hi;
      f = (x) => {
        if (typeof x !== 'number' || !Number.isInteger(x)) throw R.type(what, x);
        if (x < lo || x > hi) throw R.range(what, x);
        W.int(x);
      };
      break;
    }
    case 'big': {
      const [lo, hi] = n.signed ? I64 : U64;
      f = (x) => {
        if (typeof x === 'bigint') {
          if (x < lo || x > hi) throw R.range(what, x);
          W.big(x);
        } else if (typeof x === 'number' && Number.isInteger(x)) {
          if (!Number.isSafeInteger(x) || (!n.signed && x < 0)) throw R.range(what, x);
          W.int(x);
        } else {
          throw R.type(what, x);
        }
      };
      break;
    }
    case 'f32': f = (x) => { if (typeof x !== 'number') throw R.type(what, x); if (R.f32Over(x)) throw R.range(what, x); W.f32(x); }; break;
    case 'f64': f = (x) => { if (typeof x !== 'number') throw R.type(what, x); W.f64(x); }; break;
    case 'str': f = (x) => { if (typeof x !== 'string') throw R.type(what, x); W.str(x); }; break;
    case 'bin': f = (x) => { const b = R.bytes(x); if (b === null) throw R.type(what, x); W.bin(b); }; break;
    case 'date': f = (x) => { if (!(x instanceof Date)) throw R.type(what, x); W.date(x); }; break;
    case 'any': f = (x, d) => W.any(x, d); break;
    case 'contract': {
      const c = n.contract;
      f = (x, d) => {
        if (typeof x !== 'object' || x === null) throw R.type(what, x);
        W.nest(x, d + 1);
        c._enc(x, d + 1);
        W.unnest(x, d + 1);
      };
      break;
    }
    case 'array': {
      const el = encoder(n.elem, W, R);
      f = (x, d) => {
        if (!Array.isArray(x)) throw R.type(what, x);
        W.deeper(d + 1);
        const len = x.length;
        W.array(len);
        let i = 0;
        try {
          for (; i < len; i++) el(x[i], d + 1);
        } catch (e) {
          throw R.index(e, i);
        }
      };
      break;
    }
    case 'map': {
      const kenc = encoder(n.key, W, R), venc = encoder(n.value, W, R), intKeys = n.key.kind === 'int';
      f = (x, d) => {
        const isMap = x instanceof Map;
        if (!isMap && (typeof x !== 'object' || x === null || Array.isArray(x))) throw R.type(what, x);
        W.deeper(d + 1);
        const entries = isMap ? [...x] : Object.keys(x).map((k) => [intKeys ? Number(k) : k, x[k]]);
        W.map(entries.length);
        for (const [k, v] of entries) {
          try {
            kenc(k, d + 1);
            venc(v, d + 1);
          } catch (e) {
            throw R.entry(e, k);
          }
        }
      };
      break;
    }
    case 'typed': {
      const ctor = n.ctor, kind = kindOfCtor(ctor), el = typedElement(n, kind, R);
      f = (x, d) => {
        if (x instanceof ctor && ctor !== Uint8Array) { W.any(x, d); return; }   // C writes it (writer.js)
        if (!(x instanceof ctor) && !Array.isArray(x)) throw R.type(what, x);
        let i = 0;
        try {
          for (; i < x.length; i++) el(x[i]);
        } catch (e) {
          throw R.index(e, i);
        }
        W.deeper(d + 1);
        W.numbers(x, kind);
      };
      break;
    }
    default: throw new Error(`no encoder for ${n.kind}`);
  }
  if (!n.nullable) return f;
  return (x, d) => { if (x === null || x === undefined) W.nil(); else f(x, d); };
}

// A check of one element of a typed array field given as a plain array.
export function typedElement(n, kind, R) {
  const what = `an element of ${n.type}`;
  const range = [[-128, 127], [0, 255], [-32768, 32767], [0, 65535], [-2147483648, 2147483647], [0, 4294967295]][kind];
  // Another type is TYPE, an integer outside the element's range VALUE_RANGE (as for [T]).
  const [lo, hi] = kind === 9 ? U64 : I64;
  return (x) => {
    if (kind >= 8) {
      if (typeof x !== 'bigint') throw R.type(what, x);
      if (x < lo || x > hi) throw R.range(what, x);
    } else if (typeof x !== 'number') {
      throw R.type(what, x);
    } else if (range !== undefined && !(Number.isInteger(x) && x >= range[0] && x <= range[1])) {
      throw R.intFail(what, x);
    } else if (kind === KIND.F32 && R.f32Over(x)) {
      throw R.range(what, x);
    }
  };
}

// (depth) => value: reads a value of type n (depth: its own level).
export function decoder(n, D, R, asNumber) {
  const what = n.type;
  let f;
  switch (n.kind) {
    case 'bool': f = () => D.bool(what); break;
    case 'int': { const lo = n.lo, hi = n.hi; f = () => D.int(lo, hi, what); break; }
    case 'big': { const s = n.signed; f = () => D.big(s, asNumber, what); break; }
    case 'f32': case 'f64': f = () => D.num(what); break;
    case 'str': f = () => D.str(what); break;
    case 'bin': f = () => D.bin(what); break;
    case 'date': f = () => D.date(what); break;
    case 'any': f = (d) => D.any(d); break;
    case 'contract': { const c = n.contract; f = (d) => c._dec(d); break; }
    case 'array': {
      const el = decoder(n.elem, D, R, asNumber);
      f = (d) => {
        const len = D.array(d, what);
        const a = new Array(len);
        let i = 0;
        try {
          for (; i < len; i++) a[i] = el(d + 1);
        } catch (e) {
          throw R.dindex(e, i);
        }
        return a;
      };
      break;
    }
    case 'map': {
      const v = decoder(n.value, D, R, asNumber), k = n.key, kwhat = `a key of ${what}`;
      f = (d) => {
        const len = D.map(d, what);
        const o = k.kind === 'int' ? new Map() : {};
        let key;
        try {
          for (let i = 0; i < len; i++) {
            key = undefined;
            key = k.kind === 'int' ? D.int(k.lo, k.hi, kwhat) : D.str(kwhat);
            if (k.kind === 'int') o.set(key, v(d + 1));
            else R.set(o, key, v(d + 1));
          }
        } catch (e) {
          throw key === undefined ? e : R.dentry(e, key);
        }
        return o;
      };
      break;
    }
    case 'typed': { const ctor = n.ctor, big = kindOfCtor(ctor) >= 8; f = (d) => D.typed(ctor, big, d, what); break; }
    default: throw new Error(`no decoder for ${n.kind}`);
  }
  if (!n.nullable) return f;
  return (d) => (D.nil() ? null : f(d));
}
