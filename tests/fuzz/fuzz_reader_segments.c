/*
** fuzz_reader_segments.c -- libFuzzer target: the reader over the same bytes
** contiguous, cut where the input's header says (fuzz.h) and, for short
** messages, one byte per segment. A walk peeks at each value (on the
** reader, or on a copy so that the read itself meets the segment's end)
** and reads it with a read its type allows (every integer width,
** float/double, bool, nil, headers, str/bin zero-copy or -- when the body
** spans segments -- through sp_read_raw, ext bodies, timestamps, sp_skip),
** or now and then with one it does not allow; the control bytes choose. It
** enters each container and leaves it after its last value, under a depth
** limit of 24 (sp_reader_enter/leave). The walks must log
** the same tokens and stop with the same error code at the same offset.
** Along the way: a failed read leaves its outputs as they were, a read that
** succeeds keeps offset + remaining == length, errors are sticky, and the
** zero-copy reads fail over a spanning body only in segments and only with
** SP_E_LENGTH_LIMIT (everything else they say as the header-then-body path).
** fuzz-args: -max_len=4096
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "scratchpack.h"

typedef enum op {
  OP_NIL, OP_NIL_IF, OP_BOOL, OP_I8, OP_I16, OP_I32, OP_I64, OP_U8, OP_U16, OP_U32, OP_U64,
  OP_FLOAT, OP_DOUBLE, OP_ARRAY, OP_MAP, OP_STR, OP_BIN, OP_STR_H, OP_BIN_H, OP_EXT, OP_TS,
  OP_SKIP, OP_COUNT
} op;

/* The reads each type allows (the first byte's type, from sp_peek). */
static const uint8_t ints[] = {OP_I8, OP_I16, OP_I32, OP_I64, OP_U8, OP_U16, OP_U32, OP_U64,
                               OP_FLOAT, OP_DOUBLE, OP_SKIP};
static const uint8_t floats[] = {OP_FLOAT, OP_DOUBLE, OP_SKIP};
static const uint8_t nils[] = {OP_NIL, OP_NIL_IF, OP_SKIP};
static const uint8_t bools[] = {OP_BOOL, OP_NIL_IF, OP_SKIP};
static const uint8_t strs[] = {OP_STR, OP_STR_H, OP_BIN, OP_SKIP};   /* a bin read takes no str */
static const uint8_t bins[] = {OP_BIN, OP_BIN_H, OP_SKIP};
static const uint8_t arrays[] = {OP_ARRAY, OP_SKIP};
static const uint8_t maps[] = {OP_MAP, OP_SKIP};
static const uint8_t exts[] = {OP_EXT, OP_TS, OP_SKIP};

static op choose(sp_type t, uint8_t c) {
#define PICK(list) list[c % sizeof list]
  if (c >= 0xf0) return (op)(c % OP_COUNT);     /* any read: mostly a type error */
  switch (t) {
    case SP_T_NIL: return PICK(nils);
    case SP_T_BOOL: return PICK(bools);
    case SP_T_UINT: case SP_T_INT: return PICK(ints);
    case SP_T_FLOAT: case SP_T_DOUBLE: return PICK(floats);
    case SP_T_STR: return PICK(strs);
    case SP_T_BIN: return PICK(bins);
    case SP_T_ARRAY: return PICK(arrays);
    case SP_T_MAP: return PICK(maps);
    default: return PICK(exts);
  }
#undef PICK
}

#define MAX_DEPTH 24     /* the walks' depth limit: reachable in a few bytes */

typedef struct walk {
  sp_reader r;
  fuzz_log log;
  uint64_t len;
  int segmented;
  unsigned top;                     /* containers open */
  uint64_t left[MAX_DEPTH + 1];     /* values still to come in each */
} walk;

/* A value ended: count it in its container, and close the containers it
** completes (each a value of the one around it). */
static void value_done(walk *w) {
  while (w->top > 0) {
    if (--w->left[w->top - 1] > 0) return;
    w->top--;
    sp_reader_leave(&w->r);
  }
}

/* After a successful read: a non-empty container is entered (the depth
** limit may refuse it), anything else is a whole value. */
static int track(walk *w, op o, uint64_t values) {
  if ((o == OP_ARRAY || o == OP_MAP) && values > 0) {
    if (!sp_reader_enter(&w->r)) return 0;
    FUZZ_ASSERT(w->top < MAX_DEPTH);
    w->left[w->top++] = values;
    return 1;
  }
  value_done(w);
  return 1;
}

/* A body of n bytes after its header: in place when it lies in one
** segment, else copied with sp_read_raw; logged either way. */
static int body(walk *w, uint32_t n) {
  const uint8_t *p;
  uint8_t *copy;
  if (sp_read_view(&w->r, n, &p)) { fuzz_log_put(&w->log, p, n); return 1; }
  if (w->r.err.code != SP_OK) return 0;
  FUZZ_ASSERT(w->segmented && n > 1);            /* spans segments: only in segments */
  copy = malloc(n);
  FUZZ_ASSERT(copy != NULL);
  if (sp_read_raw(&w->r, copy, n)) fuzz_log_put(&w->log, copy, n);
  else FUZZ_ASSERT(0);                           /* its bytes were there: view said so */
  free(copy);
  return 1;
}

/* sp_read_str / sp_read_bin on a copy of the reader: when the body spans
** segments they fail with SP_E_LENGTH_LIMIT, and the header-then-body path
** reads it; any other failure is the reader's too, as that path says. */
static int zero_copy(walk *w, int bin) {
  sp_reader snap = w->r;
  const uint8_t *p = NULL;
  uint32_t n = 0x5a5a5a5a;
  int ok = bin ? sp_read_bin(&snap, &p, &n) : sp_read_str(&snap, (const char **)&p, &n);
  if (ok) {
    w->r = snap;
    fuzz_log_u64(&w->log, n);
    fuzz_log_put(&w->log, p, n);
    return 1;
  }
  FUZZ_ASSERT(n == 0x5a5a5a5a && p == NULL);
  if (snap.err.code == SP_E_LENGTH_LIMIT) {      /* spans: header then raw must work */
    FUZZ_ASSERT(w->segmented);
    FUZZ_ASSERT((bin ? sp_read_bin_header(&w->r, &n) : sp_read_str_header(&w->r, &n)) == 1);
    fuzz_log_u64(&w->log, n);
    FUZZ_ASSERT(body(w, n) == 1);
    return 1;
  }
  ok = bin ? sp_read_bin_header(&w->r, &n) : sp_read_str_header(&w->r, &n);
  if (ok) ok = body(w, n);
  FUZZ_ASSERT(!ok && w->r.err.code == snap.err.code && w->r.err.offset == snap.err.offset);
  return 0;
}

/* An integer read of one width: logs the value; a failure stores nothing. */
#define INT_OP(type, read)                                            \
  {                                                                   \
    type v, was;                                                      \
    memset(&v, 0x5a, sizeof v);                                       \
    was = v;                                                          \
    if (read(&w->r, &v)) { fuzz_log_put(&w->log, &v, sizeof v); return 1; } \
    FUZZ_ASSERT(memcmp(&v, &was, sizeof v) == 0);                     \
    return 0;                                                         \
  }

/* One read: 1 when it succeeded, 2 for a nil_if that found no nil (no
** error, nothing consumed), 0 when it failed. */
static int read_one(walk *w, op o) {
  sp_reader *r = &w->r;
  uint32_t n = 0x5a5a5a5a;
  int8_t type = 0x5a;
  switch (o) {
    case OP_NIL: return sp_read_nil(r);
    case OP_NIL_IF: {
      int got = sp_read_nil_if(r);
      fuzz_log_u64(&w->log, (uint64_t)got);
      return got ? 1 : r->err.code == SP_OK ? 2 : 0;
    }
    case OP_BOOL: {
      int b = 7;
      if (sp_read_bool(r, &b)) { FUZZ_ASSERT(b == 0 || b == 1); fuzz_log_u64(&w->log, (uint64_t)b); return 1; }
      FUZZ_ASSERT(b == 7);
      return 0;
    }
    case OP_I8: INT_OP(int8_t, sp_read_int8)
    case OP_I16: INT_OP(int16_t, sp_read_int16)
    case OP_I32: INT_OP(int32_t, sp_read_int32)
    case OP_I64: INT_OP(int64_t, sp_read_int64)
    case OP_U8: INT_OP(uint8_t, sp_read_uint8)
    case OP_U16: INT_OP(uint16_t, sp_read_uint16)
    case OP_U32: INT_OP(uint32_t, sp_read_uint32)
    case OP_U64: INT_OP(uint64_t, sp_read_uint64)
    case OP_FLOAT: INT_OP(float, sp_read_float)
    case OP_DOUBLE: INT_OP(double, sp_read_double)
    case OP_ARRAY:
    case OP_MAP:
      if (!(o == OP_MAP ? sp_read_map_header(r, &n) : sp_read_array_header(r, &n))) {
        FUZZ_ASSERT(n == 0x5a5a5a5a);
        return 0;
      }
      /* what the header claims is there: one byte a value at least */
      FUZZ_ASSERT((uint64_t)n * (o == OP_MAP ? 2 : 1) <= sp_reader_remaining(r));
      fuzz_log_u64(&w->log, n);
      return track(w, o, (uint64_t)n * (o == OP_MAP ? 2 : 1));
    case OP_STR: return zero_copy(w, 0);
    case OP_BIN: return zero_copy(w, 1);
    case OP_STR_H:
    case OP_BIN_H:
      if (!(o == OP_BIN_H ? sp_read_bin_header(r, &n) : sp_read_str_header(r, &n))) {
        FUZZ_ASSERT(n == 0x5a5a5a5a);
        return 0;
      }
      FUZZ_ASSERT(n <= sp_reader_remaining(r));
      fuzz_log_u64(&w->log, n);
      return body(w, n);
    case OP_EXT:
      if (!sp_read_ext_header(r, &type, &n)) {
        FUZZ_ASSERT(n == 0x5a5a5a5a && type == 0x5a);
        return 0;
      }
      FUZZ_ASSERT(n <= sp_reader_remaining(r));
      fuzz_log_u64(&w->log, (uint64_t)(uint8_t)type << 32 | n);
      return body(w, n);
    case OP_TS: {
      int64_t sec = 77;
      uint32_t nsec = 77;
      if (!sp_read_timestamp(r, &sec, &nsec)) { FUZZ_ASSERT(sec == 77 && nsec == 77); return 0; }
      FUZZ_ASSERT(nsec < 1000000000u);
      fuzz_log_u64(&w->log, (uint64_t)sec);
      fuzz_log_u64(&w->log, nsec);
      return 1;
    }
    default:
      return sp_skip(r);
  }
}

/* Walks the whole input; the log gets each read, its result and the offset
** after it, then the reader's final state. */
static void run(walk *w, const fuzz_in *in) {
  sp_reader *r = &w->r;
  uint64_t before = 0;
  int stuck = 0;
  r->max_depth = MAX_DEPTH;
  for (size_t i = 0;; i++) {
    sp_reader probe = *r;           /* peeking at a copy leaves r at a segment's end */
    sp_type t = fuzz_ctl(in, i + 7) & 1 ? sp_peek(r) : sp_peek(&probe);
    op o;
    int ok;
    if (t == SP_T_END && probe.err.code == SP_OK && r->err.code == SP_OK) break;
    o = stuck ? OP_SKIP : choose(t, fuzz_ctl(in, i));   /* never two reads in place */
    ok = read_one(w, o);
    /* 0xc1: every read fails MALFORMED, except nil_if, which answers "not
    ** nil" and reads nothing (the next read fails there) */
    if (t == SP_T_END && !(o == OP_NIL_IF && ok == 2))
      FUZZ_ASSERT(!ok && r->err.code == SP_E_MALFORMED);
    if (ok == 1 && o != OP_ARRAY && o != OP_MAP) ok = track(w, o, 0);
    fuzz_log_u64(&w->log, (uint64_t)o << 8 | (uint64_t)ok);
    fuzz_log_u64(&w->log, sp_reader_offset(r));
    if (!ok) {
      FUZZ_ASSERT(r->err.code != SP_OK && sp_reader_remaining(r) == 0);
      break;
    }
    FUZZ_ASSERT(r->err.code == SP_OK);
    FUZZ_ASSERT(sp_reader_offset(r) + sp_reader_remaining(r) == w->len);
    stuck = sp_reader_offset(r) == before;
    FUZZ_ASSERT(!stuck || o == OP_NIL_IF);
    before = sp_reader_offset(r);
  }
  fuzz_log_u64(&w->log, (uint64_t)r->err.code);
  fuzz_log_u64(&w->log, r->err.code ? (uint64_t)r->err.offset : sp_reader_offset(r));
  if (r->err.code != SP_OK) {                   /* sticky: the first error stays */
    sp_error e = r->err;
    int64_t v = 5;
    FUZZ_ASSERT(sp_peek(r) == SP_T_END && sp_read_int64(r, &v) == 0 && v == 5 && !sp_skip(r));
    FUZZ_ASSERT(r->err.code == e.code && r->err.offset == e.offset);
  } else {
    FUZZ_ASSERT(sp_reader_offset(r) == w->len && sp_reader_remaining(r) == 0);
  }
}

static void walk_seq(walk *w, const fuzz_in *in, fuzz_seq *f) {
  memset(w, 0, sizeof *w);
  w->len = in->len;
  w->segmented = 1;
  sp_reader_init_sequence(&w->r, &f->seq);
  run(w, in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_in in;
  fuzz_seq cut, bytes;
  walk whole, parts, each;
  if (!fuzz_in_parse(&in, data, size)) return 0;
  memset(&whole, 0, sizeof whole);
  whole.len = in.len;
  sp_reader_init(&whole.r, in.len ? in.msg : NULL, in.len);
  run(&whole, &in);

  fuzz_seq_cut(&cut, &in);
  walk_seq(&parts, &in, &cut);
  FUZZ_ASSERT(fuzz_log_same(&whole.log, &parts.log));
  FUZZ_ASSERT(parts.r.err.code == whole.r.err.code && parts.r.err.offset == whole.r.err.offset);
  fuzz_log_free(&parts.log);
  fuzz_seq_free(&cut);

  if (in.len <= 512) {
    fuzz_seq_bytes(&bytes, in.msg, in.len);
    walk_seq(&each, &in, &bytes);
    FUZZ_ASSERT(fuzz_log_same(&whole.log, &each.log));
    FUZZ_ASSERT(each.r.err.code == whole.r.err.code && each.r.err.offset == whole.r.err.offset);
    fuzz_log_free(&each.log);
    fuzz_seq_free(&bytes);
  }
  fuzz_log_free(&whole.log);
  return 0;
}
