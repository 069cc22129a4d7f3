/*
** sp_writer.h -- the span writer: every MessagePack format, three modes.
** Owns: the writer struct, the span record a writer outside C reads, the
** inline fast paths of every format. Must not touch: pools and sequences
** directly (the out-of-line slow path in sp_writer.c does), the thread's
** scratch (sp_scratch.c owns it), what an observer records.
**
** Modes (MessagePack-CSharp's BufferWriter):
**   SCRATCH  writes into a fixed array (the thread's scratch); the first
**            reservation that does not fit rents a sequence, copies what
**            was written and switches to SEQUENCE for good.
**   OUTPUT   writes into spans of the caller's sp_output.
**   SEQUENCE writes into spans of a pooled sp_sequence; with a sink (the
**            to_stream entry) each segment goes to the sink as soon as the
**            writer moves past it, and back to the pool.
**
** Reservation contract: reserve the worst case, write, then move 'cur' past
** what was really written. Errors are sticky (the first wins): after one,
** end == cur so every later reservation takes the slow path and fails, and
** writes become no-ops. Check once, at the end.
*/
#ifndef SP_WRITER_H
#define SP_WRITER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sp_endian.h"
#include "sp_error.h"
#include "sp_observer.h"
#include "sp_output.h"
#include "sp_sequence.h"

/* The fast paths are laid out as the straight line (the slow calls out of
** the way). */
#if defined(__GNUC__)
#define SP_LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define SP_LIKELY(x) (x)
#endif

typedef enum sp_mode { SP_MODE_SCRATCH, SP_MODE_OUTPUT, SP_MODE_SEQUENCE } sp_mode;

/* A stream sink: gets the message segment by segment, in order; the bytes
** are valid only during the call. Returns 0, or a nonzero code that stops
** the writer with SP_E_SINK (inner = that code). */
typedef int (*sp_sink_fn)(void *ctx, const uint8_t *bytes, size_t len);

/* OUTPUT: a reservation of at most this many bytes that the output cannot
** give is staged in the writer and copied out once its real size is known,
** so a fixed output fills to its last byte. */
#define SP_WRITER_STAGE 16

struct sp_scratch;

typedef struct sp_writer {
  uint8_t *cur;               /* next byte to write */
  uint8_t *end;               /* end of the current span (== cur after an error;
                                 an observer may hold it short) */
  uint8_t *base;              /* first byte of the current span not yet committed */
  sp_mode mode;
  uint64_t committed;         /* bytes committed before 'base' */
  sp_sequence *seq;           /* SEQUENCE: rented from seq_pool, returned at release */
  sp_seq_pool *seq_pool;      /* where SCRATCH migrates to and SEQUENCE rents from */
  const sp_output *out;       /* OUTPUT: the caller's buffer writer */
  sp_sink_fn sink;            /* SEQUENCE, optional: where filled segments go */
  void *sink_ctx;
  struct sp_scratch *scratch; /* SCRATCH: held until migration or release */
  const atomic_int *cancel;   /* nonzero -> stop with SP_E_CANCELLED */
  sp_observer *observer;      /* NULL, or called from the slow path (sp_observer.h) */
  sp_error err;
  uint8_t stage[SP_WRITER_STAGE]; /* OUTPUT: see SP_WRITER_STAGE */
} sp_writer;

/* ---- the span record ----------------------------------------------------- */

/* What a writer outside C (the JS package) needs of a writer: it writes at
** cur .. end itself and calls C only when the span is exhausted. JS reads
** this record at fixed offsets; sp_wasm.c exports them and js/sinks.js
** checks them when it loads. While mode is SP_MODE_SCRATCH the whole
** message so far is base .. cur. */
typedef struct sp_span {
  uint8_t *cur;
  uint8_t *end;
  uint8_t *base;
  uint32_t mode;              /* sp_mode */
} sp_span;

/* The writer's span as it is now. */
static inline void sp_span_get(sp_span *s, const sp_writer *w) {
  s->cur = w->cur;
  s->end = w->end;
  s->base = w->base;
  s->mode = (uint32_t)w->mode;
}

/* Takes back the cursor of a span written outside C (within cur .. end). */
static inline void sp_span_put(const sp_span *s, sp_writer *w) { w->cur = s->cur; }

/* ---- set-up and tear-down (sp_writer.c) -------------------------------- */

/* Every field empty, in 'mode'. Field by field: a memset of the whole
** struct (its error path is 96 bytes) was half the cost of encoding a
** 16-byte message. Inline, as is init_output, for the same reason. */
static inline void sp_writer_reset(sp_writer *w, sp_mode mode) {
  w->cur = w->end = w->base = NULL;
  w->mode = mode;
  w->committed = 0;
  w->seq = NULL;
  w->seq_pool = NULL;
  w->out = NULL;
  w->sink = NULL;
  w->sink_ctx = NULL;
  w->scratch = NULL;
  w->cancel = NULL;
  w->observer = NULL;
  w->err.code = SP_OK;
  w->err.inner = 0;
  w->err.cause = w->err.site = NULL;
  w->err.offset = 0;
  w->err.path[0] = '\0';
}

/* Records the first error (later ones are ignored) and stops all writing.
** 'cause' must be a static string. Returns 'code'. */
sp_code sp_writer_fail(sp_writer *w, sp_code code, const char *cause, const char *site);

/* A writer over the caller's buffer writer. Takes its first span now (one
** get_span; a failure is the writer's sticky SP_E_BUFFER_TOO_SMALL). */
static inline void sp_writer_init_output(sp_writer *w, const sp_output *out) {
  size_t avail = 0;
  uint8_t *span;
  sp_writer_reset(w, SP_MODE_OUTPUT);
  w->out = out;
  if ((span = out->get_span(out->ctx, 0, &avail)) == NULL || avail == 0) {
    sp_writer_fail(w, SP_E_BUFFER_TOO_SMALL, "the output gave no span", "sp_writer_init_output");
    return;
  }
  w->base = w->cur = span;
  w->end = span + avail;
}

/* A writer into a sequence rented from 'pool' (NULL -> the default pool,
** looked up when first needed) on the first reservation.
** sp_writer_release returns it. */
void sp_writer_init_sequence(sp_writer *w, sp_seq_pool *pool);

/* A sequence writer whose segments go to sink(ctx, ...) as soon as the
** writer moves past them (and the rest at sp_writer_flush), each going back
** to the pool after the sink returns: it holds one segment at a time. The
** cancel flag is checked before each segment. */
void sp_writer_init_stream(sp_writer *w, sp_seq_pool *pool, sp_sink_fn sink, void *ctx);

/* A writer into 'size' bytes at 'scratch' (NULL when size is 0) that
** migrates to a sequence from 'pool' when they do not suffice. The array
** stays the caller's. */
void sp_writer_init_array(sp_writer *w, uint8_t *scratch, size_t size, sp_seq_pool *pool);

/* Commits what was written: to the output (OUTPUT), the sequence
** (SEQUENCE), and a stream writer's sink. Returns the sticky error code
** (SP_OK when none). */
sp_code sp_writer_flush(sp_writer *w);

/* sp_writer_flush with an output writer's usual case inline (no observer,
** no error, nothing staged: hand the bytes to the output); the rest goes to
** sp_writer_flush. For entries that flush once per call. */
static inline sp_code sp_writer_flush_fast(sp_writer *w) {
  size_t n = (size_t)(w->cur - w->base);
  if (w->mode != SP_MODE_OUTPUT || w->observer != NULL || w->err.code != SP_OK ||
      w->base == w->stage)
    return sp_writer_flush(w);
  if (n > 0) {
    w->out->advance(w->out->ctx, n);
    w->committed += n;
    w->base = w->cur;
  }
  return SP_OK;
}

/* Bytes written so far (committed or not). */
static inline uint64_t sp_writer_length(const sp_writer *w) {
  return w->committed + (uint64_t)(w->cur - w->base);
}

/* Returns a rented sequence to its pool and lets go of the scratch. Safe to
** call twice. */
void sp_writer_release(sp_writer *w);

/* Nonzero when writing must stop: an error is recorded, or the cancel flag
** is set (which records SP_E_CANCELLED). Collection loops call it once per
** element; bulk writes call it once before starting. */
static inline int sp_writer_stopped(sp_writer *w) {
  if (w->err.code != SP_OK) return 1;
  if (w->cancel && atomic_load_explicit(w->cancel, memory_order_relaxed))
    return sp_writer_fail(w, SP_E_CANCELLED, "cancelled by the caller", __func__) != SP_OK;
  return 0;
}

/* ---- reservations ------------------------------------------------------ */

/* Out of line: commit, migrate or rent (and tell the observer); NULL after
** an error. */
uint8_t *sp_writer_reserve_slow(sp_writer *w, size_t n);

/* Returns room for at least n contiguous bytes at the write position, or
** NULL after an error. Write into it, then call sp_writer_advance. */
static inline uint8_t *sp_writer_reserve(sp_writer *w, size_t n) {
  if ((size_t)(w->end - w->cur) >= n) return w->cur;
  return sp_writer_reserve_slow(w, n);
}

/* Moves the write position past n bytes of the last reservation. */
static inline void sp_writer_advance(sp_writer *w, size_t n) { w->cur += n; }

/* How many of 'want' items of at most 'worst' bytes each (worst <=
** SP_WRITER_STAGE) to reserve at once: all of them, unless the writer is
** on a caller's output whose span has less room -- then as many as fit,
** and at least one, whose reservation the writer stages if the output
** cannot give it. So a fixed output fills to its last byte with elements
** whose worst case is larger than what they take. */
static inline size_t sp_writer_fit(const sp_writer *w, size_t want, size_t worst) {
  size_t room = (size_t)(w->end - w->cur);
  if (w->mode != SP_MODE_OUTPUT || want * worst <= room) return want;
  return room >= worst ? room / worst : 1;
}

/* ---- formats: each reserves its worst case once ------------------------ */

/* Each format below writes in place when the span has room for its worst
** case, else calls its out-of-line form, which does the whole write (or
** fails, sticky) and returns the write position; the two paths meet at one
** store of w->cur. The fast path never tests for NULL (a test there slowed
** b.records encode natively), and meeting at that store lets V8 keep a
** caller's loop counter in a register (with the slow call ending the loop
** body instead, V8 stored the counter to the stack on every iteration). */
uint8_t *sp_write_byte_slow(sp_writer *w, uint8_t b);

static inline void sp_write_byte(sp_writer *w, uint8_t b) {
  uint8_t *p = w->cur;
  if (SP_LIKELY(w->end != p)) *p++ = b;
  else p = sp_write_byte_slow(w, b);
  w->cur = p;
}

static inline void sp_write_nil(sp_writer *w) { sp_write_byte(w, 0xc0); }

static inline void sp_write_bool(sp_writer *w, int b) { sp_write_byte(w, b ? 0xc3 : 0xc2); }

/* Smallest unsigned form: fixint, cc, cd, ce, cf. Returns bytes written. */
static inline size_t sp_put_uint(uint8_t *p, uint64_t v) {
  if (v <= 0x7f) { p[0] = (uint8_t)v; return 1; }
  if (v <= 0xff) { p[0] = 0xcc; p[1] = (uint8_t)v; return 2; }
  if (v <= 0xffff) { p[0] = 0xcd; sp_store16(p + 1, (uint16_t)v); return 3; }
  if (v <= 0xffffffffu) { p[0] = 0xce; sp_store32(p + 1, (uint32_t)v); return 5; }
  p[0] = 0xcf; sp_store64(p + 1, v); return 9;
}

/* Smallest form; non-negative values take the unsigned forms. */
static inline size_t sp_put_int(uint8_t *p, int64_t v) {
  if (v >= 0) return sp_put_uint(p, (uint64_t)v);
  if (v >= -32) { p[0] = (uint8_t)(int8_t)v; return 1; }
  if (v >= -128) { p[0] = 0xd0; p[1] = (uint8_t)(int8_t)v; return 2; }
  if (v >= -32768) { p[0] = 0xd1; sp_store16(p + 1, (uint16_t)(int16_t)v); return 3; }
  if (v >= INT32_MIN) { p[0] = 0xd2; sp_store32(p + 1, (uint32_t)(int32_t)v); return 5; }
  p[0] = 0xd3; sp_store64(p + 1, (uint64_t)v); return 9;
}

uint8_t *sp_write_uint_slow(sp_writer *w, uint64_t v);
uint8_t *sp_write_int_slow(sp_writer *w, int64_t v);

static inline void sp_write_uint(sp_writer *w, uint64_t v) {
  uint8_t *p = w->cur;
  if (SP_LIKELY((size_t)(w->end - p) >= 9)) p += sp_put_uint(p, v);
  else p = sp_write_uint_slow(w, v);
  w->cur = p;
}

static inline void sp_write_int(sp_writer *w, int64_t v) {
  uint8_t *p = w->cur;
  if (SP_LIKELY((size_t)(w->end - p) >= 9)) p += sp_put_int(p, v);
  else p = sp_write_int_slow(w, v);
  w->cur = p;
}

/* float32 (ca) and float64 (cb), never narrowed. Return bytes written. */
static inline size_t sp_put_float(uint8_t *p, float f) {
  uint32_t bits;
  memcpy(&bits, &f, 4);
  p[0] = 0xca; sp_store32(p + 1, bits);
  return 5;
}

static inline size_t sp_put_double(uint8_t *p, double d) {
  uint64_t bits;
  memcpy(&bits, &d, 8);
  p[0] = 0xcb; sp_store64(p + 1, bits);
  return 9;
}

uint8_t *sp_write_float_slow(sp_writer *w, float f);
uint8_t *sp_write_double_slow(sp_writer *w, double d);

static inline void sp_write_float(sp_writer *w, float f) {
  uint8_t *p = w->cur;
  if (SP_LIKELY((size_t)(w->end - p) >= 5)) p += sp_put_float(p, f);
  else p = sp_write_float_slow(w, f);
  w->cur = p;
}

static inline void sp_write_double(sp_writer *w, double d) {
  uint8_t *p = w->cur;
  if (SP_LIKELY((size_t)(w->end - p) >= 9)) p += sp_put_double(p, d);
  else p = sp_write_double_slow(w, d);
  w->cur = p;
}

/* A header of fix form 'fix' (n <= fix_max) or 16/32-bit form 'c16'/'c32'. */
static inline size_t sp_put_header(uint8_t *p, uint32_t n, uint8_t fix, uint32_t fix_max,
                                   uint8_t c16) {
  if (n <= fix_max) { p[0] = (uint8_t)(fix | n); return 1; }
  if (n <= 0xffff) { p[0] = c16; sp_store16(p + 1, (uint16_t)n); return 3; }
  p[0] = (uint8_t)(c16 + 1); sp_store32(p + 1, n); return 5;
}

uint8_t *sp_write_array_header_slow(sp_writer *w, uint32_t n);
uint8_t *sp_write_map_header_slow(sp_writer *w, uint32_t n);

static inline void sp_write_array_header(sp_writer *w, uint32_t n) {
  uint8_t *p = w->cur;
  if (SP_LIKELY((size_t)(w->end - p) >= 5)) p += sp_put_header(p, n, 0x90, 15, 0xdc);
  else p = sp_write_array_header_slow(w, n);
  w->cur = p;
}

static inline void sp_write_map_header(sp_writer *w, uint32_t n) {
  uint8_t *p = w->cur;
  if (SP_LIKELY((size_t)(w->end - p) >= 5)) p += sp_put_header(p, n, 0x80, 15, 0xde);
  else p = sp_write_map_header_slow(w, n);
  w->cur = p;
}

/* Bytes of the str header for n bytes: fixstr 1, str 8 2, str 16 3, str 32 5.
** The one copy of this rule in C (js/writer.js's strHeaderSize is JS's). */
static inline size_t sp_str_header_size(uint32_t n) {
  return n <= 31 ? 1 : n <= 0xff ? 2 : n <= 0xffff ? 3 : 5;
}

/* str header: fixstr, d9, da, db. Returns its size. */
static inline size_t sp_put_str_header(uint8_t *p, uint32_t n) {
  size_t size = sp_str_header_size(n);
  switch (size) {
    case 1: p[0] = (uint8_t)(0xa0 | n); break;
    case 2: p[0] = 0xd9; p[1] = (uint8_t)n; break;
    case 3: p[0] = 0xda; sp_store16(p + 1, (uint16_t)n); break;
    default: p[0] = 0xdb; sp_store32(p + 1, n); break;
  }
  return size;
}

/* The longest str that sp_write_str writes inline (a fixstr, its bytes
** moved as words). In WASM only up to 16: the 16-byte moves for longer
** ones made V8 spill more of a caller's loop than they saved (docs/node.md,
** round 5). */
#if defined(__wasm__)
#define SP_STR_INLINE_MAX 16
#else
#define SP_STR_INLINE_MAX 31
#endif

/* Copies n bytes -- keys, tags, names -- as two overlapping loads and
** stores of the largest word that fits, reading and writing only those n
** bytes: no call (a libc memcpy natively, a memory.copy in WASM, which V8
** makes a call). n <= 16, or n <= 32 where SP_STR_INLINE_MAX is over 16
** (the 16-byte moves exist only there).
** gcc's -Warray-bounds does not tie the word branches to n: a caller
** passing a 1-byte array with a length it cannot see (always > 16, or 1)
** gets "partly outside array bounds" for reads that never happen. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif
static inline void sp_copy_short(uint8_t *dst, const uint8_t *s, size_t n) {
  if (n >= 16 && SP_STR_INLINE_MAX > 16) {
    uint64_t a[2], b[2];
    memcpy(a, s, 16);
    memcpy(b, s + n - 16, 16);
    memcpy(dst, a, 16);
    memcpy(dst + n - 16, b, 16);
  } else if (n >= 8) {
    uint64_t a, b;
    memcpy(&a, s, 8);
    memcpy(&b, s + n - 8, 8);
    memcpy(dst, &a, 8);
    memcpy(dst + n - 8, &b, 8);
  } else if (n >= 4) {
    uint32_t a, b;
    memcpy(&a, s, 4);
    memcpy(&b, s + n - 4, 4);
    memcpy(dst, &a, 4);
    memcpy(dst + n - 4, &b, 4);
  } else if (n > 0) {
    uint8_t a = s[0], b = s[n / 2], c = s[n - 1];
    dst[0] = a;
    dst[n / 2] = b;
    dst[n - 1] = c;
  }
}

/* Copies n bytes (the buffers do not overlap). */
static inline void sp_copy(uint8_t *dst, const void *src, size_t n) {
  if (n > 16) memcpy(dst, src, n);
  else sp_copy_short(dst, (const uint8_t *)src, n);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/* A fixstr of n <= SP_STR_INLINE_MAX bytes at p: its header byte and the
** bytes moved as words (1 + n bytes; the callers move on by them). */
static inline void sp_put_fixstr(uint8_t *p, const void *utf8, size_t n) {
  *p = (uint8_t)(0xa0 | n);
  sp_copy_short(p + 1, (const uint8_t *)utf8, n);
}

/* A str header and its n UTF-8 bytes (n <= 2^32-1; the buffers do not
** overlap). Unlike the other sp_put_* it returns the position after them:
** the form that compiled to the faster loop where records are written.
** Up to SP_STR_INLINE_MAX bytes inline, longer ones out of line, as in
** sp_write_str. */
uint8_t *sp_put_str_long(uint8_t *p, const void *utf8, size_t n);

static inline uint8_t *sp_put_str(uint8_t *p, const void *utf8, size_t n) {
  if (SP_LIKELY(n <= SP_STR_INLINE_MAX)) {
    sp_put_fixstr(p, utf8, n);
    return p + 1 + n;
  }
  return sp_put_str_long(p, utf8, n);
}

/* bin header: c4, c5, c6. Returns its size. */
static inline size_t sp_put_bin_header(uint8_t *p, uint32_t n) {
  if (n <= 0xff) { p[0] = 0xc4; p[1] = (uint8_t)n; return 2; }
  if (n <= 0xffff) { p[0] = 0xc5; sp_store16(p + 1, (uint16_t)n); return 3; }
  p[0] = 0xc6; sp_store32(p + 1, n); return 5;
}

/* Out-of-line forms (sp_writer.c). */
void sp_write_raw_slow(sp_writer *w, const void *src, size_t n);
uint8_t *sp_write_str_slow(sp_writer *w, const char *utf8, size_t len);

/* Copies n bytes as they are; they may span segments. (n == 0 returns at
** once: a stream's writer has no span before its first write, and NULL + 0
** is undefined.) */
static inline void sp_write_raw(sp_writer *w, const void *src, size_t n) {
  if (n == 0) return;
  if ((size_t)(w->end - w->cur) >= n) {
    sp_copy(w->cur, src, n);
    w->cur += n;
    return;
  }
  sp_write_raw_slow(w, src, n);
}

/* A str of 'len' UTF-8 bytes (not checked for validity). len > 2^32-1 is
** SP_E_LENGTH_LIMIT.
** A fixstr of up to SP_STR_INLINE_MAX bytes is written here, tested with
** one compare; longer ones, with their header forms and memcpy, out of
** line. In WASM both count: clang made the former two-compare test flag
** arithmetic, and memory.copy's call inside a caller's loop made V8 spill
** the loop's values around every string (docs/node.md, round 5). */
static inline void sp_write_str(sp_writer *w, const char *utf8, size_t len) {
  uint8_t *p = w->cur;
  size_t room = (size_t)(w->end - p);
  size_t fix = room <= SP_STR_INLINE_MAX ? room : SP_STR_INLINE_MAX + 1;
  if (SP_LIKELY(len < fix)) {                /* len <= SP_STR_INLINE_MAX, len < room */
    sp_put_fixstr(p, utf8, len);
    p += 1 + len;
  } else {
    p = sp_write_str_slow(w, utf8, len);
  }
  w->cur = p;
}

void sp_write_str_header(sp_writer *w, uint32_t n);

/* A str from UTF-16 code units (a JS or .NET string). Lone surrogates become
** U+FFFD. Short strings guess the header from the unit count, encode after
** it and move the body forward when the guess was short; long ones count
** their UTF-8 bytes first and encode in chunks. */
void sp_write_str_utf16(sp_writer *w, const uint16_t *units, size_t n);

void sp_write_bin_header(sp_writer *w, uint32_t n);
void sp_write_bin(sp_writer *w, const void *data, size_t len);

/* Bytes of the ext header (type byte included) for a body of len bytes:
** fixext 1/2/4/8/16 2, ext 8 3, ext 16 4, ext 32 6. */
static inline size_t sp_ext_header_size(uint32_t len) {
  if (len <= 16 && (len & (len - 1)) == 0 && len != 0) return 2;
  return len <= 0xff ? 3 : len <= 0xffff ? 4 : 6;
}

/* ext header: fixext 1/2/4/8/16 (d4..d8), else ext 8/16/32 (c7..c9).
** Returns its size (sp_ext_header_size). */
static inline size_t sp_put_ext_header(uint8_t *p, int8_t type, uint32_t len) {
  size_t size = sp_ext_header_size(len);
  switch (size) {
    case 2: p[0] = (uint8_t)(0xd4 + __builtin_ctz(len)); break;   /* 1, 2, 4, 8, 16 */
    case 3: p[0] = 0xc7; p[1] = (uint8_t)len; break;
    case 4: p[0] = 0xc8; sp_store16(p + 1, (uint16_t)len); break;
    default: p[0] = 0xc9; sp_store32(p + 1, len); break;
  }
  p[size - 1] = (uint8_t)type;
  return size;
}

void sp_write_ext_header(sp_writer *w, int8_t type, uint32_t len);
void sp_write_ext(sp_writer *w, int8_t type, const void *data, size_t len);

/* Timestamp ext -1 in its smallest form: 32-bit (sec in [0, 2^32), nsec 0),
** 64-bit (sec in [0, 2^34)), else 96-bit. nsec >= 10^9 is SP_E_VALUE_RANGE. */
void sp_write_timestamp(sp_writer *w, int64_t sec, uint32_t nsec);

#endif
