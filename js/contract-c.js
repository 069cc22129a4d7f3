// contract-c.js -- C declarations from a contract file: `scratchpack gen-c contracts.json`.
// Owns: which contract types have a C form (and the refusal of those that
// have none), the C member types and sp_field entries they become
// (src/include/sp_schema.h), the order structs are declared in, and the
// text of the generated header. Must not touch: the vocabulary (contract.js
// loads and checks the file first) or formats (C's schema code writes the
// same bytes as the JS contract: the C tests compare them).
//
// The header is single-file style: declarations always; the sp_field
// tables and the sp_schema definitions where SP_CONTRACTS_IMPLEMENTATION is
// defined before it is included (in one C file), so no unused statics.

import { ScratchpackError, codes } from './errors.js';
import { loadContracts } from './contract.js';

const C_TYPES = {
  bool: ['bool', 'SP_F_BOOL'], int8: ['int8_t', 'SP_F_I8'], uint8: ['uint8_t', 'SP_F_U8'],
  int16: ['int16_t', 'SP_F_I16'], uint16: ['uint16_t', 'SP_F_U16'], int32: ['int32_t', 'SP_F_I32'],
  uint32: ['uint32_t', 'SP_F_U32'], int64: ['int64_t', 'SP_F_I64'], uint64: ['uint64_t', 'SP_F_U64'],
  float32: ['float', 'SP_F_FLOAT'], float64: ['double', 'SP_F_DOUBLE'], string: ['sp_str_field', 'SP_F_STR'],
  bin: ['sp_bin_field', 'SP_F_BIN'], timestamp: ['sp_ts_field', 'SP_F_TIMESTAMP'],
};
const TYPED_ELEMENT = {
  'int8[]': 'int8', 'uint8[]': 'uint8', 'int16[]': 'int16', 'uint16[]': 'uint16', 'int32[]': 'int32',
  'uint32[]': 'uint32', 'int64[]': 'int64', 'uint64[]': 'uint64', 'float32[]': 'float32', 'float64[]': 'float64',
};
const C_KEYWORDS = new Set(('auto break case char const continue default do double else enum extern float for goto if ' +
  'inline int long register restrict return short signed sizeof static struct switch typedef union unsigned void ' +
  'volatile while bool true false _Bool _Atomic _Alignas _Alignof _Complex _Generic _Imaginary _Noreturn ' +
  '_Static_assert _Thread_local').split(' '));

// What the header's includes (below, in generateC) declare at file scope,
// which a contract's typedef must not redeclare: string.h's functions and
// math.h's, each also with its f and l forms, and stddef.h's names; with
// every name ending in _t (stdint.h's types; POSIX keeps the suffix).
const MATH = ('acos asin atan atan2 cos sin tan acosh asinh atanh cosh sinh tanh exp exp2 expm1 frexp ilogb ldexp ' +
  'log log10 log1p log2 logb modf scalbn scalbln cbrt fabs hypot pow sqrt erf erfc lgamma tgamma ceil floor ' +
  'nearbyint rint lrint llrint round lround llround trunc fmod remainder remquo copysign nan nextafter nexttoward ' +
  'fdim fmax fmin fma').split(' ');
const LIBRARY = new Set([...MATH.flatMap((f) => [f, `${f}f`, `${f}l`]),
  ...('memcpy memmove memset memcmp memchr strcpy strncpy strcat strncat strcmp strncmp strcoll strxfrm strchr ' +
    'strrchr strspn strcspn strpbrk strstr strtok strlen strerror strdup strndup strnlen offsetof ' +
    'signbit isnan isinf isfinite isnormal fpclassify').split(' ')]);
// Object-like macros of those headers: no name, a member's either, may be one.
const MACROS = new Set(('NULL NAN INFINITY HUGE_VAL HUGE_VALF HUGE_VALL FP_NAN FP_INFINITE FP_ZERO FP_SUBNORMAL ' +
  'FP_NORMAL FP_ILOGB0 FP_ILOGBNAN MATH_ERRNO MATH_ERREXCEPT math_errhandling M_E M_LOG2E M_LOG10E M_LN2 M_LN10 ' +
  'M_PI M_PI_2 M_PI_4 M_1_PI M_2_PI M_2_SQRTPI M_SQRT2 M_SQRT1_2 SIZE_MAX PTRDIFF_MIN PTRDIFF_MAX SIG_ATOMIC_MIN ' +
  'SIG_ATOMIC_MAX WCHAR_MIN WCHAR_MAX WINT_MIN WINT_MAX bool true false').split(' '));
const INT_LIMIT = /^U?INT(8|16|32|64|PTR|MAX|_LEAST(8|16|32|64)|_FAST(8|16|32|64))_(MAX|MIN)$/;

const bad = (what) => new ScratchpackError(codes.INVALID_ARGUMENT, what);

// s as a C identifier of the header: not a keyword, not reserved to the
// implementation (__x, _X), not a macro of the included headers.
function cName(s, what) {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(s) || C_KEYWORDS.has(s))
    throw bad(`${what} '${s}' is not a C identifier: rename it for gen-c`);
  if (/^_[A-Z_]/.test(s)) throw bad(`${what} '${s}': names that begin with __ or _ and a capital are C's own: rename it for gen-c`);
  if (MACROS.has(s) || INT_LIMIT.test(s))
    throw bad(`${what} '${s}' is a macro of the C headers the output includes: rename it for gen-c`);
  return s;
}

// A contract's name as a C type name at file scope: also none the includes declare.
function cTypeName(s) {
  cName(s, 'contract name');
  if (LIBRARY.has(s) || /_t$/.test(s))
    throw bad(`contract name '${s}' is declared by the C headers the output includes${/_t$/.test(s) ? ' (names ending in _t are kept for C\'s types)' : ''}: rename it for gen-c`);
  return s;
}

// { ctype, ftype, schema, array } of a field's type, or a refusal naming the field.
function cField(t, where) {
  const no = (why) => bad(`${where}: ${why} has no C form (sp_schema.h); gen-c takes bool, integers, floats, ` +
    'string, bin, timestamp, contracts, arrays of those and typed arrays');
  if (t.kind === 'array') {
    if (t.nullable) throw no(`a nullable array (${t.type})`);
    const e = t.elem;
    if (e.kind === 'array' || e.kind === 'typed') throw no(`an array of arrays (${t.type})`);
    const one = cField(e, where);
    return { ctype: 'sp_array_field', ftype: one.ftype, schema: one.schema, array: true, of: one.ctype };
  }
  if (t.kind === 'typed') {
    if (t.nullable) throw no(`a nullable array (${t.type})`);
    const [of, ftype] = C_TYPES[TYPED_ELEMENT[t.type.replace(/\?$/, '')]];
    return { ctype: 'sp_array_field', ftype, schema: null, array: true, of };
  }
  if (t.kind === 'contract') {
    if (t.nullable) throw no(`a nullable contract (${t.type})`);
    return { ctype: t.contract.name, ftype: 'SP_F_STRUCT', schema: t.contract.name, array: false };
  }
  const base = t.type.replace(/\?$/, '');
  if (t.nullable && t.kind !== 'str' && t.kind !== 'bin') throw no(`a nullable ${base}`);
  const m = C_TYPES[base];
  if (m === undefined) throw no(`type ${t.type}`);
  return { ctype: m[0], ftype: m[1], schema: null, array: false };
}

// A C string literal of s's UTF-8, or of bytes (octal escapes for anything but printable ASCII).
function cString(s) {
  let out = '"';
  for (const b of typeof s === 'string' ? new TextEncoder().encode(s) : s) {
    if (b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x5c && b !== 0x3f) out += String.fromCharCode(b);
    else out += `\\${b.toString(8).padStart(3, '0')}`;
  }
  return `${out}"`;
}

// A C expression of a double (float32: a float).
function cFloat(v, f32) {
  if (Number.isNaN(v)) return 'NAN';
  if (!Number.isFinite(v)) return v > 0 ? 'INFINITY' : '-INFINITY';
  let t = Object.is(v, -0) ? '-0.0' : String(v);
  if (!/[.e]/.test(t)) t += '.0';
  return f32 ? `${t}f` : t;
}

// A C expression of an integer default of C type ctype.
function cInt(v, ctype) {
  const b = BigInt(v);
  if (ctype === 'int64_t') return b === -(2n ** 63n) ? 'INT64_MIN' : `INT64_C(${b})`;
  if (ctype === 'uint64_t') return `UINT64_C(${b})`;
  return b === -(2n ** 31n) ? 'INT32_MIN' : `(${ctype})${b}`;
}

// The statement that gives member x.f its default in <Name>_init, or a
// refusal: C keeps a member a message leaves out, so _init sets what JS's
// default would give (strings and bins point at literals they do not own).
function cDefault(x, where) {
  const f = x.f, v = f.default, m = `v->${f.name}`;
  if (x.array || x.schema !== null)
    throw bad(`${where}: a default for ${x.array ? 'an array' : 'a contract'} has no C form; gen-c sets defaults of ` +
      'bools, integers, floats, strings, bins and timestamps in <Name>_init');
  if (v === null) return null;                   // a nullable str/bin: NULL is nil, as memset leaves it
  switch (x.ftype) {
    case 'SP_F_BOOL': return `${m} = ${v ? 'true' : 'false'};`;
    case 'SP_F_FLOAT': return `${m} = ${cFloat(v, true)};`;
    case 'SP_F_DOUBLE': return `${m} = ${cFloat(v, false)};`;
    case 'SP_F_STR': return `${m} = (sp_str_field){ (char *)${cString(v)}, ${new TextEncoder().encode(v).length}, 0 };`;
    case 'SP_F_BIN': {
      const bytes = v instanceof Uint8Array ? v : new Uint8Array(ArrayBuffer.isView(v) ? v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength) : v);
      return `${m} = (sp_bin_field){ (uint8_t *)${cString(bytes)}, ${bytes.length}, 0 };`;
    }
    case 'SP_F_TIMESTAMP': {
      const ms = v.getTime(), sec = Math.floor(ms / 1000);
      return `${m} = (sp_ts_field){ INT64_C(${sec}), ${(ms - sec * 1000) * 1000000} };`;
    }
    default: return `${m} = ${cInt(v, x.ctype)};`;
  }
}

/**
 * The C header for a contract file (the parsed JSON). options.guard: the
 * include guard (default SP_CONTRACTS_H). Throws INVALID_ARGUMENT naming the
 * contract and field that C cannot hold.
 */
export function generateC(doc, options = {}) {
  const contracts = loadContracts(doc);
  const guard = cName(options.guard ?? 'SP_CONTRACTS_H', 'guard');
  const list = Object.values(contracts);
  const info = new Map();
  // Each contract's four names must not meet another's, nor the library's sp_/SP_ names.
  const taken = new Map([[guard, 'the include guard']]);
  for (const c of list) {
    cTypeName(c.name);
    if (/^(sp|SP)_/.test(c.name)) throw bad(`contract name '${c.name}': sp_ and SP_ names are scratchpack's: rename it for gen-c`);
    for (const n of [c.name, `${c.name}_schema`, `${c.name}_fields`, `${c.name}_init`]) {
      if (taken.has(n)) throw bad(`contract ${c.name}: its C name ${n} is also ${taken.get(n)}: rename one for gen-c`);
      taken.set(n, `contract ${c.name}'s`);
    }
  }
  for (const c of list) {
    const fields = c.fields.map((f) => {
      const where = `contract ${c.name}, field ${f.name}`;
      cName(f.name, `${where}: the member name`);
      if (c.keys === 'name' && new TextEncoder().encode(f.key).length > 256) throw bad(`${where}: keys are at most 256 bytes in C`);
      const x = { f, ...cField(f.type, where) };
      x.init = f.hasDefault ? cDefault(x, where) : null;
      return x;
    });
    info.set(c, fields);
  }
  // Structs held by value come first; a cycle of them cannot be a C struct.
  const order = [], state = new Map();
  const visit = (c, path) => {
    if (state.get(c) === 2) return;
    if (state.get(c) === 1) throw bad(`contracts ${[...path, c.name].join(' -> ')} contain each other by value: C cannot (use an array)`);
    state.set(c, 1);
    for (const x of info.get(c)) if (!x.array && x.schema !== null) visit(contracts[x.schema], [...path, c.name]);
    state.set(c, 2);
    order.push(c);
  };
  for (const c of list) visit(c, []);

  const out = [];
  out.push(`/* Generated by \`scratchpack gen-c\` from a contract file: do not edit (generate it again).
** Each contract is a struct and an sp_schema (src/include/sp_schema.h) that
** writes the same bytes as the JS contract() of the same file.
** In one C file: #define SP_CONTRACTS_IMPLEMENTATION before including it. */
#ifndef ${guard}
#define ${guard}

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "scratchpack.h"
`);
  for (const c of order) {
    out.push(`/* ${c.name}: keys '${c.keys}' (${c.keys === 'index' ? `an array of ${c.slots}${c.slots > c.fields.length ? ', nil in the gaps' : ''}` : 'a map'}). */`);
    out.push(`typedef struct ${c.name} {`);
    for (const x of info.get(c)) {
      const note = x.array ? `  /* ${x.of} elements */` : '';
      out.push(`  ${x.ctype} ${x.f.name};${note}`);
    }
    out.push(`} ${c.name};`);
    out.push(`extern sp_schema ${c.name}_schema;\n`);
    out.push(`/* A ${c.name} of zeroes and the file's defaults: decode into one, and the`);
    out.push('** members a message leaves out keep what JS\'s decode would give them. */');
    out.push(`static inline void ${c.name}_init(${c.name} *v) {`);
    out.push('  memset(v, 0, sizeof *v);');
    for (const x of info.get(c)) {
      if (x.init !== null) out.push(`  ${x.init}`);
      else if (!x.array && x.schema !== null) out.push(`  ${x.schema}_init(&v->${x.f.name});`);
    }
    out.push('}\n');
  }
  out.push('#ifdef SP_CONTRACTS_IMPLEMENTATION');
  for (const c of order) {
    out.push(`static const sp_field ${c.name}_fields[] = {`);
    for (const x of info.get(c)) {
      const more = [];
      if (x.schema !== null) more.push(`.schema = &${x.schema}_schema`);
      if (x.array) more.push('.flags = SP_FIELD_ARRAY');
      const tail = more.length ? `, ${more.join(', ')}` : '';
      const f = x.f;
      if (c.keys === 'index') out.push(`  SP_MEMBER_KEY(${f.key}, ${c.name}, ${f.name}, ${x.ftype}${tail}),`);
      else if (f.key === f.name) out.push(`  SP_MEMBER(${c.name}, ${f.name}, ${x.ftype}${tail}),`);
      else out.push(`  { .name = ${cString(f.key)}, .offset = offsetof(${c.name}, ${f.name}), .type = ${x.ftype}${tail} },`);
    }
    out.push('};');
    out.push(`sp_schema ${c.name}_schema = SP_SCHEMA(${c.name}, ${c.name}_fields, 0);\n`);
  }
  out.push('#endif /* SP_CONTRACTS_IMPLEMENTATION */');
  out.push(`#endif /* ${guard} */\n`);
  return out.join('\n');
}
