// contract.js -- typed contracts: MessagePack-CSharp's [MessagePackObject] with [Key] in JS.
// Owns: the vocabulary of field types, checking a contract's description
// (fields, keys, defaults, options) into its normal form, loading a JSON
// file of contracts, the Contract object (its own encode and decode, the
// decode options it stands for), registering its class with the writer,
// and choosing how its code is made: generated once (contract-compile.js)
// or, where eval is refused (a Content-Security-Policy) or asked for, built
// from closures (contract-interp.js). Must not touch: formats (writer.js
// and decoder.js read and write every value) or the entries
// (scratchpack.js takes a contract as an option).
//
// Normal form of a type (a "node"): { kind, type, nullable, ... } where
// kind is one of bool int big f32 f64 str bin date any contract array map
// typed; type is its name in the vocabulary ('uint32', 'string[]'...), for
// messages and the C generator.

import { EncodeFailure, ScratchpackError, codes, describeValue, finishDecodeError } from './errors.js';
import { decodeDefaults, decodeOptions } from './decode-options.js';
import { decodeTop } from './decompress.js';
import { GrowSink } from './sink-grow.js';
import { contractClasses } from './classify.js';
import { W, encodeWith } from './writer.js';
import { D } from './decoder.js';
import { compileContract } from './contract-compile.js';
import { interpretContract } from './contract-interp.js';
import { runtime } from './contract-runtime.js';
import { KIND, kindOfCtor } from './typed.js';

const bad = (what) => new ScratchpackError(codes.INVALID_ARGUMENT, what);

/** Integer types that JS holds as numbers: [min, max]. */
export const INT_TYPES = Object.freeze({
  int8: [-128, 127], uint8: [0, 255], int16: [-32768, 32767], uint16: [0, 65535],
  int32: [-2147483648, 2147483647], uint32: [0, 4294967295],
});
/** 64-bit integer types: signed or not. BigInt by default, numbers with int64: 'number'. */
export const BIG_TYPES = Object.freeze({ int64: true, uint64: false });
const SCALARS = Object.freeze({
  bool: 'bool', float32: 'f32', float64: 'f64', string: 'str', bin: 'bin', timestamp: 'date', any: 'any',
});
/** Typed array element types ('int32[]') and their constructors. */
export const TYPED = Object.freeze({
  'int8[]': Int8Array, 'uint8[]': Uint8Array, 'int16[]': Int16Array, 'uint16[]': Uint16Array,
  'int32[]': Int32Array, 'uint32[]': Uint32Array, 'float32[]': Float32Array, 'float64[]': Float64Array,
  ...(typeof BigInt64Array === 'function' ? { 'int64[]': BigInt64Array, 'uint64[]': BigUint64Array } : {}),
});
const TYPE_NAMES = [...Object.keys(INT_TYPES), ...Object.keys(BIG_TYPES), ...Object.keys(SCALARS), ...Object.keys(TYPED)];

const OPTIONS = ['keys', 'class', 'int64', 'compile', 'name'];
const FIELD_KEYS = ['type', 'nullable', 'default', 'key'];
const MAX_INT_KEY = 65535;           // as C's SP_MAX_INT_KEY: the array form has maxKey + 1 slots

// Whether this host lets code be generated (a page whose CSP forbids eval throws EvalError).
let compilable = null;
/** True when new Function works here (checked once). */
export function canCompile() {
  if (compilable === null) {
    try {
      compilable = new Function('return 1')() === 1;
    } catch {
      compilable = false;
    }
  }
  return compilable;
}

// The entries the package's encode and decode call a contract (or a list
// of one) through: the top level, where an error's path gets its root.
function addEntries(c) {
  c._top = (depth) => {
    try {
      return c._dec(depth);
    } catch (e) {
      throw finishDecodeError(e);
    }
  };
  c._encTop = (v) => {
    try {
      W.deeper(1);
      c._enc(v, 1);
    } catch (e) {
      if (e instanceof EncodeFailure) e.root = '$';
      throw e;
    }
  };
}

/**
 * A typed contract. Made by contract(); see index.d.ts. Its value is
 * written as an array (keys: 'index') or a map (keys: 'name').
 */
export class Contract {
  constructor(name, keys, options) {
    this.name = name;
    this.keys = keys;
    this.class = options.class ?? null;
    this.int64 = options.int64 ?? 'bigint';
    this.fields = [];                 // filled by define(): [{ name, key, type: node, hasDefault, default }]
    this.slots = 0;                   // index form: the array's length (max key + 1)
    this._mode = options.compile ?? 'auto';
    /** Whether its code is generated (else built from closures: eval refused, or compile: false). */
    this.compiled = this._mode === true || (this._mode === 'auto' && canCompile());
    this._built = false;
    this._byBase = new WeakMap();     // decode options with this contract, per base options
    this._sinks = [];                 // encode()'s GrowSinks, one per nesting level
    // Until the code is made (on first use: a contract file's contracts may
    // refer to each other in any order), these make it and go on.
    this._unbuild();
    addEntries(this);
    Object.defineProperty(this, '_sinks', { enumerable: false });
  }

  // Back to making the code on next use (its fields' defaults changed).
  _unbuild() {
    this._built = false;
    this._enc = (v, depth) => { this._build(); return this._enc(v, depth); };
    this._dec = (depth) => { this._build(); return this._dec(depth); };
  }

  // Makes the encoder and decoder: generated, unless this host refuses eval or the contract asks not to.
  _build() {
    if (this._built) return;
    this._built = true;
    const made = this.compiled ? compileContract(this, W, D, runtime) : interpretContract(this, W, D, runtime);
    this._enc = made.enc;
    this._dec = made.dec;
  }

  /** Encodes value (a plain object or an instance of the class) into a new Uint8Array. */
  encode(value) {
    const s = this._sinks.pop() || new GrowSink();
    try {
      s.begin();
      encodeWith(s, value, decodeDefaults.maxDepth, null, this._encTop);
      return s.copyOut();
    } catch (e) {
      throw runtime.finishEncode(e);
    } finally {
      this._sinks.push(s);
    }
  }

  /** Decodes bytes as a value of this contract (options: decode's, limits etc.). */
  decode(bytes, options) {
    return decodeTop(bytes, options === undefined ? this._options(decodeDefaults)
      : decodeOptions({ ...options, contract: this }));
  }

  /**
   * The contract of an array of this contract's values (as MessagePack-CSharp
   * writes a T[] or List<T>): the same object every call.
   */
  array() {
    if (this._list === undefined) this._list = new ListContract(this);
    return this._list;
  }

  /** The decode options base with this contract (cached per base). */
  _options(base) {
    let o = this._byBase.get(base);
    if (o === undefined) {
      o = Object.freeze({ ...base, contract: this });
      this._byBase.set(base, o);
    }
    return o;
  }
}

/** An array of a contract's values; its encode, decode and entry option work as a contract's. */
export class ListContract {
  constructor(of) {
    this.of = of;
    this.name = `${of.name}[]`;
    this._byBase = new WeakMap();
    this._sinks = [];
    this.compiled = of.compiled;
    const what = `an array of ${of.name}`, each = runtime.objectOf(of.name);
    // (v, depth): v at level depth (checked); its elements one level down.
    this._enc = (v, depth) => {
      if (!Array.isArray(v)) throw runtime.type(what, v);
      const n = v.length;
      W.array(n);
      if (n > 0) W.deeper(depth + 1);         // the same level for every element: checked once
      let i = 0;
      try {
        for (; i < n; i++) {
          const x = v[i];
          if (typeof x !== 'object' || x === null) throw runtime.type(each, x);
          of._enc(x, depth + 1);
        }
      } catch (e) {
        throw runtime.index(e, i);
      }
    };
    // One element as a piece of its own (encodeToStream walks a list element by element).
    // (Its errors' paths are relative: the walk puts the element's before them.)
    this._encElement = (x) => {
      if (typeof x !== 'object' || x === null) throw runtime.type(each, x);
      W.deeper(1);
      of._enc(x, 1);
    };
    this._dec = (depth) => {
      const n = D.array(depth, what);
      const a = new Array(n);
      let i = 0;
      try {
        for (; i < n; i++) a[i] = of._dec(depth + 1);
      } catch (e) {
        throw runtime.dindex(e, i);
      }
      return a;
    };
    addEntries(this);
  }
}
for (const k of ['encode', 'decode', '_options', 'array']) ListContract.prototype[k] = Contract.prototype[k];

/**
 * contract(fields, options): a contract. contract(doc, options), doc a
 * contract file ({ contracts: { Name: { keys, fields, ... } } }): an object
 * of its contracts by name (options.classes: { Name: class }).
 */
export function contract(fields, options = {}) {
  if (isContractFile(fields)) return loadContracts(fields, options);
  const o = options !== null && typeof options === 'object' ? options : null;
  const cls = o !== null && typeof o.class === 'function' ? o.class : null;
  const name = o?.name ?? (cls !== null && cls.name !== '' ? cls.name : 'contract');   // for messages
  const c = makeContract(fields, options, null, name);
  return c;
}

// A file's contracts are all descriptions: plain objects with fields (not
// a field named 'contracts' whose wrapper holds a contract, or a type).
function isContractFile(x) {
  if (x === null || typeof x !== 'object' || Array.isArray(x) || x.contracts === null ||
    typeof x.contracts !== 'object' || Array.isArray(x.contracts)) return false;
  const all = Object.values(x.contracts);
  return all.length > 0 && all.every((c) => isPlainObject(c) && 'fields' in c);
}

const isPlainObject = (v) => v !== null && typeof v === 'object' &&
  (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);

// A contract as messages name it: its name, or none for an unnamed one
// (contract() names those 'contract').
const what = (name) => (name === 'contract' ? 'the contract' : `contract ${name}`);

// makeContract's fields when loadContracts gives them later.
const LATER = Symbol('fields given later');

function makeContract(fields, options, names, name) {
  if (options === null || typeof options !== 'object') throw bad('contract options must be an object');
  for (const k of Object.keys(options))
    if (!OPTIONS.includes(k)) throw bad(`unknown contract option '${k}'; known: ${OPTIONS.join(', ')}`);
  const keys = options.keys ?? 'name';
  if (keys !== 'index' && keys !== 'name') throw bad(`${what(name)}: keys must be 'index' or 'name', not ${String(keys)}`);
  if (options.int64 !== undefined && options.int64 !== 'bigint' && options.int64 !== 'number')
    throw bad(`${what(name)}: int64 must be 'bigint' or 'number'`);
  if (options.compile !== undefined && ![true, false, 'auto'].includes(options.compile))
    throw bad(`${what(name)}: compile must be true, false or 'auto'`);
  const cls = options.class;
  if (cls !== undefined && cls !== null) {
    if (typeof cls !== 'function' || cls.prototype == null) throw bad(`${what(name)}: class must be a class`);
    if (cls === Object || cls === Array || cls === Map) throw bad(`${what(name)}: class cannot be ${cls.name}`);
    if (contractClasses.has(cls)) throw bad(`${what(name)}: class ${cls.name} already has a contract`);
  }
  const c = new Contract(name, keys, options);
  if (options.compile === true && !canCompile())
    throw bad(`${what(name)}: compile: true, but this host refuses generated code (a Content-Security-Policy without 'unsafe-eval'?)`);
  if (fields === LATER) return c;                // loadContracts: defined and bound once all are made
  define(c, fields, names);
  complete([c]);
  return c;
}

// Contracts whose fields are defined: their defaults settled (those of all
// first, then the contracts inside them), then their classes checked, and
// bound once all are (a list that fails binds none).
function complete(list) {
  for (const c of list) settleDefaults(c, false);
  for (const c of list) settleDefaults(c, true);
  for (const c of list) checkClass(c);
  for (const c of list) bindClass(c);
}

// Makes c's class encode through c, once its fields are known and checked.
function bindClass(c) {
  if (c.class !== null) contractClasses.set(c.class, (v, depth) => c._enc(v, depth));
}

// INVALID_ARGUMENT when decode could not set one of c's fields on its class's objects.
function checkClass(c) {
  for (const f of c.class === null ? [] : c.fields) {
    const why = unsettable(c.class.prototype, f.name);
    if (why !== null) throw bad(`contract ${c.name}, field ${f.name}: ${why}: decode could not set it`);
  }
}

// Why assigning o[k] fails on an object made from proto (a getter without
// a setter, a read-only property on the chain), or null.
function unsettable(proto, k) {
  if (k === '__proto__') return null;            // set as an own property (runtime.set)
  for (let o = proto; o !== null; o = Object.getPrototypeOf(o)) {
    const d = Object.getOwnPropertyDescriptor(o, k);
    if (d === undefined) continue;
    if (d.get !== undefined || d.set !== undefined)
      return d.set === undefined ? `the class's prototype has a getter '${k}' without a setter` : null;
    return d.writable ? null : `'${k}' is read-only on the class's prototype`;
  }
  return null;
}

// Fills in c's fields from their description.
function define(c, fields, names) {
  const where = what(c.name);
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields))
    throw bad(`${where}: fields must be an object { name: type }`);
  const list = [];
  const seen = new Map();
  let next = 0;
  for (const [name, spec] of Object.entries(fields)) {
    const at = `${where}, field ${name}`;
    let key, hasDefault = false, def;
    let typeSpec = spec;
    if (isWrapper(spec)) {
      for (const k of Object.keys(spec))
        if (!FIELD_KEYS.includes(k)) throw bad(`${at}: unknown '${k}'; known: ${FIELD_KEYS.join(', ')}`);
      key = spec.key;
      if ('default' in spec) { hasDefault = true; def = spec.default; }
      typeSpec = isNullable(spec, at) ? { type: spec.type, nullable: true } : spec.type;
    }
    const node = typeOf(typeSpec, names, at);
    if (c.keys === 'index') {
      // JS lists integer-like names first, whatever order they were written
      // in: with one among others, implicit keys are not what the
      // description shows.
      if (key === undefined && mixedIntegerNames(fields) !== null)
        throw bad(`${where}, field ${mixedIntegerNames(fields)}: a field named like an integer needs every field to have an explicit key (keys: 'index'): JS orders such names before the others, not where they are written`);
      if (key === undefined) key = next;
      if (!Number.isInteger(key) || key < 0 || key > MAX_INT_KEY)
        throw bad(`${at}: key must be an integer in 0..${MAX_INT_KEY} (keys: 'index'), not ${String(key)}`);
      next = key + 1;
    } else {
      if (key === undefined) key = name;
      if (typeof key !== 'string') throw bad(`${at}: key must be a string (keys: 'name'), not ${String(key)}`);
    }
    if (seen.has(key)) throw bad(`${at}: key ${JSON.stringify(key)} is also field ${seen.get(key)}'s`);
    seen.set(key, name);
    list.push(Object.freeze({ name, key, type: node, hasDefault, default: def }));
  }
  if (list.length === 0) throw bad(`${where}: no fields`);
  c.fields = Object.freeze(list);
  c.slots = c.keys === 'index' ? Math.max(...list.map((f) => f.key)) + 1 : list.length;
}

// The first integer-like field name among others, or null.
function mixedIntegerNames(fields) {
  const names = Object.keys(fields);
  return names.length > 1 ? names.find((n) => /^(?:0|[1-9]\d{0,8})$/.test(n)) ?? null : null;
}

function isWrapper(spec) {
  return spec !== null && typeof spec === 'object' && !Array.isArray(spec) && !(spec instanceof Contract) &&
    'type' in spec;
}

// The normal form of a type description.
function typeOf(spec, names, at) {
  if (spec instanceof Contract) return node('contract', spec.name, { contract: spec });
  if (Array.isArray(spec)) {
    if (spec.length !== 1) throw bad(`${at}: an array type is [elementType] (one element), not ${spec.length}`);
    const elem = typeOf(spec[0], names, at);
    return node('array', `[${elem.type}]`, { elem });
  }
  if (spec !== null && typeof spec === 'object') {
    if ('map' in spec) {
      const m = spec.map;
      if (!Array.isArray(m) || m.length !== 2) throw bad(`${at}: a map type is { map: [keyType, valueType] }`);
      const key = typeOf(m[0], names, at);
      if (key.kind !== 'str' && key.kind !== 'int') throw bad(`${at}: map keys must be 'string' or an integer type up to 32 bits`);
      if (key.nullable) throw bad(`${at}: map keys cannot be nullable`);
      const value = typeOf(m[1], names, at);
      const n = node('map', `{map:[${key.type},${value.type}]}`, { key, value });
      return isNullable(spec, at) ? nullable(n) : n;
    }
    if ('type' in spec) {
      for (const k of Object.keys(spec))
        if (k !== 'type' && k !== 'nullable') throw bad(`${at}: '${k}' is only allowed on a field, not inside a type`);
      const n = typeOf(spec.type, names, at);
      return isNullable(spec, at) ? nullable(n) : n;
    }
    throw bad(`${at}: a type is a name, [type], { map: [k, v] }, { type, nullable } or a contract`);
  }
  if (typeof spec !== 'string') throw bad(`${at}: a type is a name, [type], { map: [k, v] }, { type, nullable } or a contract`);
  if (spec.endsWith('?')) return nullable(typeOf(spec.slice(0, -1), names, at));
  if (spec in INT_TYPES) return node('int', spec, { lo: INT_TYPES[spec][0], hi: INT_TYPES[spec][1] });
  if (spec in BIG_TYPES) return node('big', spec, { signed: BIG_TYPES[spec] });
  if (spec in SCALARS) return node(SCALARS[spec], spec, {});
  if (spec in TYPED) return node('typed', spec, { ctor: TYPED[spec] });
  if (names !== null && names.has(spec)) return node('contract', spec, { contract: names.get(spec) });
  if (spec.endsWith('[]')) {
    const elem = typeOf(spec.slice(0, -2), names, at);
    return node('array', `[${elem.type}]`, { elem });
  }
  throw bad(`${at}: unknown type '${spec}'; known: ${TYPE_NAMES.join(', ')}${names ? `, and the file's contracts: ${[...names.keys()].join(', ')}` : ''}`);
}

// A wrapper's nullable: true or false, or left out (false); anything else
// is a mistake ('no' would have made the field nullable).
function isNullable(spec, at) {
  const v = spec.nullable;
  if (v === undefined || typeof v === 'boolean') return v === true;
  throw bad(`${at}: nullable is true or false, not ${describeValue(v)}`);
}

const node = (kind, type, more) => Object.freeze({ kind, type, nullable: false, ...more });
const nullable = (n) => (n.nullable ? n : Object.freeze({ ...n, type: `${n.type}?`, nullable: true }));

// ---- defaults ------------------------------------------------------------------

// Each default in the form decode gives the field's value, so that a
// missing field and a written one read back alike: a number default of an
// int64 field a BigInt (a number with int64: 'number'), a map's an object
// (string keys) or a Map (integer keys), a typed-array field's a typed
// array, a contract's what that contract decodes from it written (its
// missing fields given their defaults) -- converted from what a contract
// file (JSON) can say: numbers, arrays, objects. A default that is none of
// the type is INVALID_ARGUMENT saying why. In two passes, after define():
// first every default but the contracts inside them, then those, written
// and read through their contracts, whose own defaults are settled by then.
function settleDefaults(c, contracts) {
  if (!c.fields.some((f) => f.hasDefault && (!contracts || holdsContract(f.type)))) return;
  c.fields = Object.freeze(c.fields.map((f) => {
    if (!f.hasDefault || (contracts && !holdsContract(f.type))) return f;
    try {
      return Object.freeze({ ...f, default: decodedForm(f.type, f.default, c.int64, new Map(), contracts) });
    } catch (e) {
      if (!(e instanceof Unfit)) throw e;
      throw bad(`${what(c.name)}, field ${f.name}: the default is ${e.message}`);
    }
  }));
  c._unbuild();                         // code made meanwhile (to write a default) had the old ones
}

const holdsContract = (n) => n.kind === 'contract' || (n.kind === 'array' && holdsContract(n.elem)) ||
  (n.kind === 'map' && holdsContract(n.value));

class Unfit extends Error {}

const INT64 = { true: [-(2n ** 63n), 2n ** 63n - 1n], false: [0n, 2n ** 64n - 1n] };

// v as decode would give a value of type n, or Unfit. seen: copies made so
// far (a default that holds itself is copied once).
function decodedForm(n, v, int64, seen, contracts = true) {
  if (v === null || v === undefined) {
    if (n.nullable || n.kind === 'any') return v;
    throw new Unfit(`${describeValue(v)}, and the type is not nullable`);
  }
  const no = () => new Unfit(`${describeValue(v)}, not a ${n.type}`);
  if (typeof v === 'object' && seen.has(v)) return seen.get(v);
  switch (n.kind) {
    case 'big': return bigForm(n, v, int64, no);
    case 'array': {
      if (!Array.isArray(v)) throw no();
      const out = [];
      seen.set(v, out);
      for (const x of v) out.push(decodedForm(n.elem, x, int64, seen, contracts));
      return out;
    }
    case 'typed': return typedForm(n, v, no);
    case 'bin':
      if (v instanceof Uint8Array) return v.constructor === Uint8Array ? v : new Uint8Array(v);   // a Buffer: decode gives a Uint8Array
      if (Array.isArray(v) && v.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) return Uint8Array.from(v);
      throw no();
    case 'map': return n.key.kind === 'str' ? strMapForm(n, v, int64, seen, no, contracts) : intMapForm(n, v, int64, seen, no, contracts);
    case 'contract': return contracts ? contractForm(n.contract, v, seen, no) : v;
    default:
      if (n.kind === 'f32' && typeof v === 'number' && runtime.f32Over(v)) throw new Unfit(`${v}, past float32's range (it would be written as an infinity)`);
      if (!fitsScalar(n, v)) throw no();
      return v;
  }
}

function bigForm(n, v, int64, no) {
  const b = typeof v === 'bigint' ? v : Number.isSafeInteger(v) ? BigInt(v) : null;
  const [lo, hi] = INT64[n.signed];
  if (b === null || b < lo || b > hi) throw no();
  if (int64 !== 'number') return b;
  if (b < BigInt(Number.MIN_SAFE_INTEGER) || b > BigInt(Number.MAX_SAFE_INTEGER))
    throw new Unfit(`${v}, beyond what a number holds exactly (int64: 'number')`);
  return Number(b);
}

function typedForm(n, v, no) {
  if (v instanceof n.ctor) return v.constructor === n.ctor ? v : new n.ctor(v);   // a Buffer for uint8[]: a plain copy
  if (!Array.isArray(v)) throw no();
  const big = kindOfCtor(n.ctor) >= KIND.I64;
  const out = new n.ctor(v.length);
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    const e = big ? (typeof x === 'bigint' ? x : Number.isSafeInteger(x) ? BigInt(x) : null) : typeof x === 'number' ? x : null;
    if (e !== null) out[i] = e;
    // Held exactly (a float32 default may round, as the wire value does).
    if (e === null || (out[i] !== e && !(n.ctor === Float32Array && out[i] === Math.fround(e)) && !Number.isNaN(e)))
      throw new Unfit(`an array holding ${describeValue(x)}, not a ${n.type}`);
  }
  return out;
}

function strMapForm(n, v, int64, seen, no, contracts) {
  if (typeof v !== 'object' || Array.isArray(v)) throw no();
  const entries = v instanceof Map ? [...v] : Object.keys(v).map((k) => [k, v[k]]);
  const out = {};
  seen.set(v, out);
  for (const [k, x] of entries) {
    if (typeof k !== 'string') throw new Unfit(`a map whose key ${String(k)} is not a string`);
    Object.defineProperty(out, k, { value: decodedForm(n.value, x, int64, seen, contracts), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function intMapForm(n, v, int64, seen, no, contracts) {
  if (typeof v !== 'object' || Array.isArray(v)) throw no();
  const entries = v instanceof Map ? [...v] : Object.keys(v).map((k) => [String(Number(k)) === k ? Number(k) : k, v[k]]);
  const out = new Map();
  seen.set(v, out);
  for (const [k, x] of entries) {
    if (!Number.isInteger(k) || k < n.key.lo || k > n.key.hi) throw new Unfit(`a map whose key ${String(k)} is not an ${n.key.type}`);
    out.set(k, decodedForm(n.value, x, int64, seen, contracts));
  }
  return out;
}

// What c decodes from v written through it: its class, its missing fields
// given their defaults (or null), its int64s as c has them.
// Its fields take their JSON forms too (bytes as arrays, int64s as
// numbers), as a field of the default's own contract does.
function contractForm(c, v, seen, no) {
  if (typeof v !== 'object' || Array.isArray(v) || v instanceof Map) throw no();
  let out, at = null;
  try {
    const fields = {};
    for (const f of c.fields) {
      at = f.name;
      const x = runtime.inherited(f.name) ? runtime.read(v, f.name) : v[f.name];
      if (x !== undefined) runtime.set(fields, f.name, decodedForm(f.type, x, c.int64, seen));
    }
    at = null;
    out = c.decode(c.encode(fields));
  } catch (e) {
    if (!(e instanceof ScratchpackError) && !(e instanceof Unfit)) throw e;
    const why = at === null ? e.message : `its field ${at} is ${e.message}`;
    throw new Unfit(`${describeValue(v)} that ${what(c.name)} does not write (${why})`);
  }
  seen.set(v, out);
  return out;
}

// Whether v is a value of the scalar type n (the kinds decodedForm keeps as they are).
function fitsScalar(n, v) {
  switch (n.kind) {
    case 'bool': return typeof v === 'boolean';
    case 'int': return Number.isInteger(v) && v >= n.lo && v <= n.hi;
    case 'f32': case 'f64': return typeof v === 'number';
    case 'str': return typeof v === 'string';
    case 'date': return v instanceof Date && !Number.isNaN(v.getTime());
    default: return n.kind === 'any';
  }
}

/**
 * The contracts of a contract file (an object, e.g. the parsed JSON):
 *   { "contracts": { "Point": { "keys": "index", "fields": { "x": "int32" } },
 *                    "Shape": { "keys": "name", "fields": { "at": "Point", "tags": ["string"] } } } }
 * A contract may name the others (in any order, itself too). Each entry
 * takes keys, fields and int64; options.classes gives classes by name,
 * options.compile and options.int64 apply to all.
 */
export function loadContracts(doc, options = {}) {
  if (!isContractFile(doc)) throw bad('a contract file is { "contracts": { "Name": { "keys", "fields" } } }');
  if (options === null || typeof options !== 'object') throw bad('contract file options must be an object');
  for (const k of Object.keys(options))
    if (!['classes', 'compile', 'int64'].includes(k)) throw bad(`unknown contract file option '${k}'; known: classes, compile, int64`);
  const classes = options.classes ?? {};
  const names = new Map();
  const entries = Object.entries(doc.contracts);
  const made = [];
  for (const [name, d] of entries) {
    if (d === null || typeof d !== 'object') throw bad(`contract ${name}: must be { keys, fields }`);
    for (const k of Object.keys(d))
      if (!['keys', 'fields', 'int64', 'c'].includes(k)) throw bad(`contract ${name}: unknown '${k}'; known: keys, fields, int64, c`);
    const o = { keys: d.keys ?? 'name', name, compile: options.compile, int64: d.int64 ?? options.int64 };
    if (o.compile === undefined) delete o.compile;
    if (o.int64 === undefined) delete o.int64;
    if (classes[name] !== undefined) {
      o.class = classes[name];
      const twice = made.find(([m]) => m.class === o.class);
      if (twice !== undefined) throw bad(`contract ${name}: class ${o.class?.name} is also contract ${twice[0].name}'s`);
    }
    // The fields are read once every name is known (they may refer to each
    // other), and the classes bound once all are: a file that fails binds none.
    const c = makeContract(LATER, o, null, name);
    names.set(name, c);
    made.push([c, d.fields]);
  }
  for (const [c, fields] of made) define(c, fields, names);
  complete(made.map(([c]) => c));
  return Object.freeze(Object.fromEntries(names));
}
