/*
** fuzz_schema_decode.c -- libFuzzer target: any bytes through the schema
** decoder (fuzz_schemas.h: every field kind, string and integer keys),
** into fresh structs and into existing ones. The input has fuzz.h's layout;
** control byte 0 chooses the schema, borrowing and whether the existing
** struct starts with the caller's own arrays and strings (cap 0); control
** byte 1, when there, makes that allocation of the existing-struct decodes
** fail (SP_E_NOMEM paths).
**   - fresh: the contiguous decode and the decode over segments (copying)
**     end with the same code at the same offset and equal structs;
**   - a decode that succeeds re-encodes to bytes that decode (whole) to an
**     equal struct, which re-encodes to the same bytes (a fixed-size schema
**     to exactly its fixed size); decoding the input again into the decoded
**     struct succeeds to the same struct; with string keys, each scalar and
**     str member holds what a hand-written walk of the map says: the value
**     after the last key that spells its name exactly (the key matcher);
**   - existing: the message, then what follows it (or the message again),
**     decoded into one struct, failing or not, leave it consistent: it
**     encodes, and its encoding decodes to an equal struct; the caller's
**     memory is never written.
** Every struct is released at the end: LeakSanitizer reports anything
** left, and the allocation hook checks that every block is freed with the
** size it was allocated with.
** fuzz-args: -max_len=4096
*/
#include <sanitizer/allocator_interface.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "fuzz_schemas.h"
#include "scratchpack.h"

/* ---- the allocation hook ---------------------------------------------------- */

static long fail_in = -1;    /* allocations until one fails; -1: none */

static void *hook(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  if (ptr != NULL) {           /* sp_free: the size it was allocated with */
    FUZZ_ASSERT(nsize == 0 && __sanitizer_get_allocated_size(ptr) == osize);
    free(ptr);
    return NULL;
  }
  FUZZ_ASSERT(nsize > 0);
  if (fail_in == 0) { fail_in = -1; return NULL; }
  if (fail_in > 0) fail_in--;
  return malloc(nsize);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc; (void)argv;
  sp_alloc_set_hook(hook, NULL);
  for (size_t i = 0; i < FZ_NSCHEMAS; i++) FUZZ_ASSERT(sp_schema_resolve(fz_schemas[i], NULL) == SP_OK);
  return 0;
}

/* ---- the caller's memory ------------------------------------------------------ */

static char caller_name[] = "caller's";
static uint8_t caller_bytes[] = {1, 2, 3, 4};
static int32_t caller_ints[] = {10, 20, 30};
static sp_str_field caller_strs[] = {SP_STR_LIT("a"), SP_STR_LIT("bc")};
static fz_kid caller_kids[] = {{1, SP_STR_LIT("k")}};

/* An fz_all whose str, bin and arrays are the caller's (cap 0). */
static void caller_state(fz_all *a) {
  memset(a, 0, sizeof *a);
  a->s.ptr = caller_name;
  a->s.len = sizeof caller_name - 1;
  a->bin.ptr = caller_bytes;
  a->bin.len = sizeof caller_bytes;
  a->i32s = (sp_array_field)SP_ARRAY_OF(caller_ints, 3);
  a->strs = (sp_array_field)SP_ARRAY_OF(caller_strs, 2);
  a->kids = (sp_array_field)SP_ARRAY_OF(caller_kids, 1);
}

static int caller_memory_intact(void) {
  return strcmp(caller_name, "caller's") == 0 && caller_bytes[0] == 1 && caller_bytes[3] == 4 &&
         caller_ints[0] == 10 && caller_ints[2] == 30 && caller_strs[1].len == 2 &&
         memcmp(caller_strs[1].ptr, "bc", 2) == 0 && caller_kids[0].id == 1 &&
         caller_kids[0].name.len == 1;
}

/* ---- helpers ------------------------------------------------------------------- */

/* Decodes one value of s at r into obj; the end (or the error's) offset in *at. */
static sp_code read_at(sp_reader *r, sp_schema *s, void *obj, unsigned flags, uint64_t *at) {
  sp_code c = sp_schema_read(r, s, obj, flags);
  *at = c == SP_OK ? sp_reader_offset(r) : r->err.offset;
  return c;
}

static sp_bytes encode(sp_schema *s, const void *obj) {
  sp_bytes b;
  sp_error e;
  sp_code c = sp_schema_to_array(s, obj, NULL, &b, &e);
  if (c != SP_OK) fprintf(stderr, "fuzz: encode failed: %s (%s) at %s\n", sp_code_name(c),
                          e.cause ? e.cause : "", e.path);
  FUZZ_ASSERT(c == SP_OK);
  return b;
}

/* obj encodes, and what it encodes to decodes (nesting up to max_depth) to
** an equal struct, whose encoding is the same bytes. What a decode made
** decodes within the default depth; what a failed decode left may need
** more: it holds a zeroed element one level past where the depth limit
** stopped it, and the encoder counts structs only (500) where the decoder
** counts every container (a struct and its array field). */
static void check_round_trip(sp_schema *s, const void *obj, unsigned max_depth) {
  sp_bytes x = encode(s, obj), y;
  void *back = calloc(1, s->size);
  sp_reader r;
  size_t fixed = sp_schema_fixed_size(s);
  FUZZ_ASSERT(back != NULL);
  FUZZ_ASSERT(fixed == 0 || x.len == fixed);
  sp_reader_init(&r, x.data, x.len);
  r.max_depth = max_depth;
  if (sp_schema_read(&r, s, back, 0) != SP_OK)
    fprintf(stderr, "fuzz: %s at %zu (%s) of %zu\n", sp_code_name(r.err.code), r.err.offset,
            r.err.cause, x.len);
  FUZZ_ASSERT(r.err.code == SP_OK && sp_reader_remaining(&r) == 0);
  FUZZ_ASSERT(fz_equal(s, obj, back));
  y = encode(s, back);
  FUZZ_ASSERT(x.len == y.len && memcmp(x.data, y.data, x.len) == 0);
  sp_schema_release(s, back);
  free(back);
  sp_bytes_free(&x);
  sp_bytes_free(&y);
}

/* ---- keys, checked by hand ------------------------------------------------------ */

/* One scalar (number, bool) or str member of field f at p, read as the
** decoder must; a value of another kind is skipped. A str body is copied
** into *own (freed by the caller). */
static void read_member(sp_reader *r, const sp_field *f, uint8_t *p, uint8_t **own) {
  sp_str_field *v = (void *)p;
  uint32_t n = 0;
  int b, ok;
  switch (f->type) {
    case SP_F_I8: ok = sp_read_int8(r, (int8_t *)(void *)p); break;
    case SP_F_U8: ok = sp_read_uint8(r, p); break;
    case SP_F_I16: ok = sp_read_int16(r, (int16_t *)(void *)p); break;
    case SP_F_U16: ok = sp_read_uint16(r, (uint16_t *)(void *)p); break;
    case SP_F_I32: ok = sp_read_int32(r, (int32_t *)(void *)p); break;
    case SP_F_U32: ok = sp_read_uint32(r, (uint32_t *)(void *)p); break;
    case SP_F_I64: ok = sp_read_int64(r, (int64_t *)(void *)p); break;
    case SP_F_U64: ok = sp_read_uint64(r, (uint64_t *)(void *)p); break;
    case SP_F_FLOAT: ok = sp_read_float(r, (float *)(void *)p); break;
    case SP_F_DOUBLE: ok = sp_read_double(r, (double *)(void *)p); break;
    case SP_F_BOOL: ok = sp_read_bool(r, &b); *(bool *)p = ok && b; break;
    case SP_F_STR:
      free(*own);
      *own = NULL;
      v->ptr = NULL;
      v->len = 0;
      if (sp_read_nil_if(r)) { ok = 1; break; }
      ok = sp_read_str_header(r, &n) && (*own = malloc((size_t)n + 1)) != NULL &&
           sp_read_raw(r, *own, n);
      v->ptr = (char *)*own;
      v->len = n;
      break;
    default: ok = sp_skip(r); break;
  }
  FUZZ_ASSERT(ok);               /* the decode of the same bytes succeeded */
}

/* A string-key struct decoded from msg: each top-level key that spells a
** member's name exactly (the last one, when it repeats) set its scalar or
** str member to the value after it; no other key set one (a key matcher's
** false match or miss shows here; the round trip cannot see it). */
static void check_keys(sp_schema *s, const uint8_t *msg, size_t len, const void *obj) {
  uint8_t *expect = calloc(1, s->size), *key = malloc(len + 1), **own;
  sp_reader r;
  uint32_t pairs, n;
  FUZZ_ASSERT(expect && key);
  own = calloc(s->nfields, sizeof *own);
  FUZZ_ASSERT(own != NULL);
  sp_reader_init(&r, msg, len);
  FUZZ_ASSERT(sp_read_map_header(&r, &pairs));
  for (uint32_t i = 0; i < pairs; i++) {
    size_t f = s->nfields;
    if (sp_peek(&r) == SP_T_STR) {
      FUZZ_ASSERT(sp_read_str_header(&r, &n) && sp_read_raw(&r, key, n));
      for (f = 0; f < s->nfields; f++)
        if (strlen(s->fields[f].name) == n && memcmp(s->fields[f].name, key, n) == 0) break;
    } else {
      FUZZ_ASSERT(sp_skip(&r));
    }
    if (f == s->nfields || s->fields[f].count || (s->fields[f].flags & SP_FIELD_ARRAY))
      FUZZ_ASSERT(sp_skip(&r));
    else
      read_member(&r, &s->fields[f], expect + s->fields[f].offset, &own[f]);
  }
  for (size_t f = 0; f < s->nfields; f++) {
    const sp_field *fd = &s->fields[f];
    if (fd->count || (fd->flags & SP_FIELD_ARRAY) || fd->type > SP_F_STR) continue;
    FUZZ_ASSERT(fz_elem_equal(fd, expect + fd->offset, (const uint8_t *)obj + fd->offset));
  }
  for (size_t f = 0; f < s->nfields; f++) free(own[f]);
  free(own);
  free(key);
  free(expect);
}

/* ---- the target ----------------------------------------------------------------- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_in in;
  fuzz_seq cut;
  sp_reader r;
  uint8_t c0, *fresh, *parts, *old;
  sp_schema *s;
  unsigned flags;
  uint64_t at, parts_at, again_at, next;
  sp_code code, first, second;

  if (!fuzz_in_parse(&in, data, size)) return 0;
  c0 = in.nctl ? in.ctl[0] : 0;
  s = fz_schemas[(c0 & 0x0f) % FZ_NSCHEMAS];
  flags = c0 & 0x10 ? SP_DECODE_BORROW : 0;
  fresh = calloc(1, s->size);
  parts = calloc(1, s->size);
  old = calloc(1, s->size);
  FUZZ_ASSERT(fresh && parts && old);

  /* fresh, contiguous and in segments */
  sp_reader_init(&r, in.msg, in.len);
  code = read_at(&r, s, fresh, flags, &at);
  FUZZ_ASSERT(at <= in.len);
  fuzz_seq_cut(&cut, &in);
  sp_reader_init_sequence(&r, &cut.seq);
  FUZZ_ASSERT(read_at(&r, s, parts, 0, &parts_at) == code && parts_at == at);
  if (code == SP_OK || !flags) FUZZ_ASSERT(fz_equal(s, fresh, parts));
  sp_schema_release(s, parts);
  fuzz_seq_free(&cut);

  if (code == SP_OK) {
    if (s->fields[0].key == 0) check_keys(s, in.msg, in.len, fresh);
    check_round_trip(s, fresh, SP_DEPTH_DEFAULT);
    /* the same bytes again into the decoded struct: the same struct */
    memset(parts, 0, s->size);
    sp_reader_init(&r, in.msg, in.len);
    FUZZ_ASSERT(read_at(&r, s, parts, flags, &again_at) == SP_OK);
    sp_reader_init(&r, in.msg, in.len);
    FUZZ_ASSERT(read_at(&r, s, fresh, flags, &again_at) == SP_OK && again_at == at);
    FUZZ_ASSERT(fz_equal(s, fresh, parts));
    sp_schema_release(s, parts);
  }

  /* existing: the message, then what follows it (or the message again) */
  if (s == &fz_all_schema && (c0 & 0x20)) caller_state((fz_all *)(void *)old);
  if (in.nctl > 1 && in.ctl[1]) fail_in = in.ctl[1] - 1;
  sp_reader_init(&r, in.msg, in.len);
  first = read_at(&r, s, old, flags, &next);
  if (first != SP_OK || next == in.len) next = 0;
  sp_reader_init(&r, in.msg + next, in.len - next);
  second = read_at(&r, s, old, flags, &again_at);
  fail_in = -1;
  check_round_trip(s, old, first == SP_OK && second == SP_OK ? SP_DEPTH_DEFAULT : 2 * SP_DEPTH_DEFAULT + 2);
  FUZZ_ASSERT(caller_memory_intact());

  sp_schema_release(s, fresh);
  sp_schema_release(s, old);
  free(fresh);
  free(parts);
  free(old);
  return 0;
}
