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

// What the header's includes (math.h, stdbool.h, stddef.h, stdint.h,
// string.h, and stdatomic.h through scratchpack.h) declare at file scope,
// which a contract's typedef must not redeclare: functions, types and enum
// constants; and their object-like macros (with the compiler's own, linux
// and unix), which no name, a member's either, may be. Taken from glibc
// 2.36 under gcc 12's default (gnu17), the widest of the hosts: the names
// outside _ of `gcc -E` of those includes, and of `gcc -E -dM`. Names that
// begin with _ and a capital or __ are C's own (cName).
const LIBRARY = new Set((
  'FP_INFINITE FP_NAN FP_NORMAL FP_SUBNORMAL FP_ZERO acos acosf acosh acoshf acoshl acosl asin asinf ' +
  'asinh asinhf asinhl asinl atan atan2 atan2f atan2l atanf atanh atanhf atanhl atanl atomic_bool ' +
  'atomic_char atomic_char16_t atomic_char32_t atomic_flag atomic_flag_clear atomic_flag_clear_explicit ' +
  'atomic_flag_test_and_set atomic_flag_test_and_set_explicit atomic_int atomic_int_fast16_t ' +
  'atomic_int_fast32_t atomic_int_fast64_t atomic_int_fast8_t atomic_int_least16_t atomic_int_least32_t ' +
  'atomic_int_least64_t atomic_int_least8_t atomic_intmax_t atomic_intptr_t atomic_llong atomic_long ' +
  'atomic_ptrdiff_t atomic_schar atomic_short atomic_signal_fence atomic_size_t atomic_thread_fence ' +
  'atomic_uchar atomic_uint atomic_uint_fast16_t atomic_uint_fast32_t atomic_uint_fast64_t ' +
  'atomic_uint_fast8_t atomic_uint_least16_t atomic_uint_least32_t atomic_uint_least64_t ' +
  'atomic_uint_least8_t atomic_uintmax_t atomic_uintptr_t atomic_ullong atomic_ulong atomic_ushort ' +
  'atomic_wchar_t bcmp bcopy bzero cbrt cbrtf cbrtl ceil ceilf ceill copysign copysignf copysignl cos ' +
  'cosf cosh coshf coshl cosl double_t drem dremf dreml erf erfc erfcf erfcl erff erfl exp exp2 exp2f ' +
  'exp2l expf expl explicit_bzero expm1 expm1f expm1l fabs fabsf fabsl fdim fdimf fdiml ffs ffsl finite ' +
  'finitef finitel float_t floor floorf floorl fma fmaf fmal fmax fmaxf fmaxl fmin fminf fminl fmod ' +
  'fmodf fmodl frexp frexpf frexpl gamma gammaf gammal hypot hypotf hypotl ilogb ilogbf ilogbl index ' +
  'int16_t int32_t int64_t int8_t int_fast16_t int_fast32_t int_fast64_t int_fast8_t int_least16_t ' +
  'int_least32_t int_least64_t int_least8_t intmax_t intptr_t isinf isinff isinfl isnan isnanf isnanl ' +
  'j0 j0f j0l j1 j1f j1l jn jnf jnl ldexp ldexpf ldexpl lgamma lgamma_r lgammaf lgammaf_r lgammal ' +
  'lgammal_r locale_t log log10 log10f log10l log1p log1pf log1pl log2 log2f log2l logb logbf logbl ' +
  'logf logl lrint lrintf lrintl lround lroundf lroundl max_align_t memccpy memchr memcmp memcpy ' +
  'memmove memory_order memory_order_acq_rel memory_order_acquire memory_order_consume ' +
  'memory_order_relaxed memory_order_release memory_order_seq_cst memset modf modff modfl nan nanf nanl ' +
  'nearbyint nearbyintf nearbyintl nextafter nextafterf nextafterl nexttoward nexttowardf nexttowardl ' +
  'offsetof pow powf powl ptrdiff_t remainder remainderf remainderl remquo remquof remquol rindex rint ' +
  'rintf rintl round roundf roundl scalb scalbf scalbl scalbln scalblnf scalblnl scalbn scalbnf scalbnl ' +
  'significand significandf significandl sin sinf sinh sinhf sinhl sinl size_t sqrt sqrtf sqrtl stpcpy ' +
  'stpncpy strcasecmp strcasecmp_l strcat strchr strcmp strcoll strcoll_l strcpy strcspn strdup ' +
  'strerror strerror_l strerror_r strlen strncasecmp strncasecmp_l strncat strncmp strncpy strndup ' +
  'strnlen strpbrk strrchr strsep strsignal strspn strstr strtok strtok_r strxfrm strxfrm_l tan tanf ' +
  'tanh tanhf tanhl tanl tgamma tgammaf tgammal trunc truncf truncl uint16_t uint32_t uint64_t uint8_t ' +
  'uint_fast16_t uint_fast32_t uint_fast64_t uint_fast8_t uint_least16_t uint_least32_t uint_least64_t ' +
  'uint_least8_t uintmax_t uintptr_t wchar_t y0 y0f y0l y1 y1f y1l yn ynf ynl').split(' '));
const MACROS = new Set((
  'ATOMIC_BOOL_LOCK_FREE ATOMIC_CHAR16_T_LOCK_FREE ATOMIC_CHAR32_T_LOCK_FREE ATOMIC_CHAR_LOCK_FREE ' +
  'ATOMIC_FLAG_INIT ATOMIC_INT_LOCK_FREE ATOMIC_LLONG_LOCK_FREE ATOMIC_LONG_LOCK_FREE ' +
  'ATOMIC_POINTER_LOCK_FREE ATOMIC_SHORT_LOCK_FREE ATOMIC_WCHAR_T_LOCK_FREE FP_ILOGB0 FP_ILOGBNAN ' +
  'FP_INFINITE FP_NAN FP_NORMAL FP_SUBNORMAL FP_ZERO HUGE_VAL HUGE_VALF HUGE_VALL INFINITY INT16_MAX ' +
  'INT16_MIN INT32_MAX INT32_MIN INT64_MAX INT64_MIN INT8_MAX INT8_MIN INTMAX_MAX INTMAX_MIN INTPTR_MAX ' +
  'INTPTR_MIN INT_FAST16_MAX INT_FAST16_MIN INT_FAST32_MAX INT_FAST32_MIN INT_FAST64_MAX INT_FAST64_MIN ' +
  'INT_FAST8_MAX INT_FAST8_MIN INT_LEAST16_MAX INT_LEAST16_MIN INT_LEAST32_MAX INT_LEAST32_MIN ' +
  'INT_LEAST64_MAX INT_LEAST64_MIN INT_LEAST8_MAX INT_LEAST8_MIN MATH_ERREXCEPT MATH_ERRNO M_1_PI ' +
  'M_2_PI M_2_SQRTPI M_E M_LN10 M_LN2 M_LOG10E M_LOG2E M_PI M_PI_2 M_PI_4 M_SQRT1_2 M_SQRT2 NAN NULL ' +
  'PTRDIFF_MAX PTRDIFF_MIN SIG_ATOMIC_MAX SIG_ATOMIC_MIN SIZE_MAX UINT16_MAX UINT32_MAX UINT64_MAX ' +
  'UINT8_MAX UINTMAX_MAX UINTPTR_MAX UINT_FAST16_MAX UINT_FAST32_MAX UINT_FAST64_MAX UINT_FAST8_MAX ' +
  'UINT_LEAST16_MAX UINT_LEAST32_MAX UINT_LEAST64_MAX UINT_LEAST8_MAX WCHAR_MAX WCHAR_MIN WINT_MAX ' +
  'WINT_MIN linux math_errhandling unix').split(' '));

const bad = (what) => new ScratchpackError(codes.INVALID_ARGUMENT, what);

// s as a C identifier of the header: not a keyword, not reserved to the
// implementation (__x, _X), not a macro of the included headers.
function cName(s, what) {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(s) || C_KEYWORDS.has(s))
    throw bad(`${what} '${s}' is not a C identifier: rename it for gen-c`);
  if (/^_[A-Z_]/.test(s)) throw bad(`${what} '${s}': names that begin with __ or _ and a capital are C's own: rename it for gen-c`);
  if (MACROS.has(s)) throw bad(`${what} '${s}' is a macro of the C headers the output includes: rename it for gen-c`);
  if (/^(sp|SP)_/.test(s) || s === 'SCRATCHPACK_H')
    throw bad(`${what} '${s}': sp_ and SP_ names are scratchpack's (its macros among them; SCRATCHPACK_H too): rename it for gen-c`);
  return s;
}

// A contract's name as a C type name at file scope: also none the includes declare.
function cTypeName(s) {
  cName(s, 'contract name');
  if (LIBRARY.has(s)) throw bad(`contract name '${s}' is declared by the C headers the output includes: rename it for gen-c`);
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

// A C expression of a double, or for a float32 of the float JS writes
// (Math.fround: the double rounded once), as an exact hexadecimal literal --
// a decimal 'f' literal rounds the text straight to float, which differs
// for halfway values, and fails to compile past float's range.
function cFloat(v, f32) {
  if (f32) v = Math.fround(v);
  if (Number.isNaN(v)) return 'NAN';
  if (!Number.isFinite(v)) return v > 0 ? 'INFINITY' : '-INFINITY';
  if (!f32) {
    const t = Object.is(v, -0) ? '-0.0' : String(v);
    return /[.e]/.test(t) ? t : `${t}.0`;
  }
  return `${hexFloat(v)}f`;
}

// v (finite) as a C99 hexadecimal floating constant, exactly.
function hexFloat(v) {
  if (v === 0) return Object.is(v, -0) ? '-0x0p+0' : '0x0p+0';
  const b = new DataView(new ArrayBuffer(8));
  b.setFloat64(0, v);
  const bits = b.getBigUint64(0);
  const sign = bits >> 63n ? '-' : '';
  const exp = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & ((1n << 52n) - 1n);
  const lead = exp === 0 ? 0 : 1;                              // (a double of a float is never subnormal)
  return `${sign}0x${lead}.${frac.toString(16).padStart(13, '0')}p${exp === 0 ? -1022 : exp - 1023}`;
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
  const guard = options.guard === undefined ? 'SP_CONTRACTS_H' : cName(options.guard, 'guard');
  if (LIBRARY.has(guard)) throw bad(`guard '${guard}' is declared by the C headers the output includes: choose another`);
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
      if (f.name === guard) throw bad(`${where}: the member name is the include guard's (a macro): rename one for gen-c`);
      if (c.keys === 'name' && new TextEncoder().encode(f.key).length > 256) throw bad(`${where}: keys are at most 256 bytes in C`);
      if (c.keys === 'name' && f.key.includes('\0')) throw bad(`${where}: a key with a NUL character has no C form (sp_field names end at NUL)`);
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
