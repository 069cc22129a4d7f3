/*
** test_ext.c -- the caller's types as ext values: sp_value's ext handlers
** (an SP_EXT_OBJ written through its handler's encode, an ext of a
** handler's type decoded through its decode into the document), their
** failures (SP_E_CALLBACK with the handler's code as inner, the path or
** offset of the value), the handlers' contract, and the schema ext member
** (SP_F_EXT: type and bytes, one value or an array). Every failing
** allocation leaves nothing allocated.
*/
#include <stdlib.h>
#include <string.h>

#include "scratchpack.h"
#include "sp_test.h"
#include "test_util.h"

/* ---- a point as ext 7: two bytes, x then y ------------------------------- */

typedef struct point { uint8_t x, y; } point;

static int point_encode(void *ctx, const void *obj, sp_ext_data *out) {
  const point *p = obj;
  (void)ctx;
  out->buf[0] = p->x;
  out->buf[1] = p->y;
  out->ptr = out->buf;
  out->len = 2;
  return 0;
}

/* The decoded point lives in the document. */
static int point_decode(void *ctx, const uint8_t *data, uint32_t len, sp_doc *doc, const void **obj) {
  point *p;
  (void)ctx;
  if (len != 2) return 22;                       /* the handler's own code */
  if ((p = sp_doc_alloc(doc, sizeof *p)) == NULL) return SP_E_NOMEM;
  p->x = data[0];
  p->y = data[1];
  *obj = p;
  return 0;
}

static const sp_ext_handler point_ext = {7, point_encode, point_decode, NULL};

/* A blob of its own bytes (not the inline buf): ext 9 of any length. */
typedef struct blob { const uint8_t *data; size_t len; } blob;

static int blob_encode(void *ctx, const void *obj, sp_ext_data *out) {
  const blob *b = obj;
  (void)ctx;
  out->ptr = b->data;
  out->len = b->len;
  return 0;
}

static int blob_decode(void *ctx, const uint8_t *data, uint32_t len, sp_doc *doc, const void **obj) {
  blob *b;
  uint8_t *copy;
  (void)ctx;
  if ((b = sp_doc_alloc(doc, sizeof *b)) == NULL || (copy = sp_doc_alloc(doc, len ? len : 1)) == NULL)
    return SP_E_NOMEM;
  if (len) memcpy(copy, data, len);
  b->data = copy;
  b->len = len;
  *obj = b;
  return 0;
}

static const sp_ext_handler blob_ext = {9, blob_encode, blob_decode, NULL};

static int encode_fails(void *ctx, const void *obj, sp_ext_data *out) {
  (void)obj; (void)out;
  return *(const int *)ctx;
}

static int decode_fails(void *ctx, const uint8_t *data, uint32_t len, sp_doc *doc, const void **obj) {
  (void)data; (void)len; (void)doc; (void)obj;
  return *(const int *)ctx;
}

/* ---- value model: encode --------------------------------------------------- */

static void ext_obj_is_written_by_its_handler(void) {
  point a = {1, 2}, b = {3, 4};
  sp_value items[2] = {sp_ext_obj(&point_ext, &a), sp_ext_obj(&point_ext, &b)};
  sp_value kv[2] = {sp_str("at"), sp_array(items, 2)};
  sp_value v = sp_map(kv, 1);
  const uint8_t want[] = {0x81, 0xa2, 'a', 't', 0x92, 0xd5, 7, 1, 2, 0xd5, 7, 3, 4};
  const uint8_t one[] = {0xd5, 7, 1, 2};
  sp_bytes out;
  sp_value root = sp_ext_obj(&point_ext, &a);
  CHECK(sp_to_array(sp_format_value, &root, NULL, &out, NULL) == SP_OK);
  CHECK_BYTES(out.data, out.len, one, sizeof one);
  sp_bytes_free(&out);
  CHECK(sp_to_array(sp_format_value, &v, NULL, &out, NULL) == SP_OK);
  CHECK_BYTES(out.data, out.len, want, sizeof want);
  sp_bytes_free(&out);
}

static void ext_obj_data_of_any_length_takes_the_smallest_form(void) {
  static uint8_t big[70000];
  size_t lens[] = {0, 1, 3, 16, 17, 255, 256, 65535, 65536};
  uint8_t heads[][6] = {{0xc7, 0, 9}, {0xd4, 9}, {0xc7, 3, 9}, {0xd8, 9}, {0xc7, 17, 9}, {0xc7, 255, 9},
                        {0xc8, 1, 0, 9}, {0xc8, 0xff, 0xff, 9}, {0xc9, 0, 1, 0, 0, 9}};
  size_t head_len[] = {3, 2, 3, 2, 3, 3, 4, 4, 6};
  for (size_t i = 0; i < sizeof big; i++) big[i] = (uint8_t)(i * 7);
  for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
    blob b = {big, lens[i]};
    sp_value v = sp_ext_obj(&blob_ext, &b);
    sp_bytes out;
    sp_doc doc = {0};
    sp_value back;
    CHECK(sp_to_array(sp_format_value, &v, NULL, &out, NULL) == SP_OK);
    CHECK(out.len == head_len[i] + lens[i]);
    CHECK_BYTES(out.data, head_len[i], heads[i], head_len[i]);
    CHECK(memcmp(out.data + head_len[i], big, lens[i]) == 0);
    {
      sp_decode_options o = {0};
      o.ext = &blob_ext;
      o.ext_count = 1;
      CHECK(sp_value_decode(out.data, out.len, &o, &doc, &back, NULL) == SP_OK);
      CHECK(back.kind == SP_EXT_OBJ && back.as.ext_obj.handler == &blob_ext);
      CHECK(((const blob *)back.as.ext_obj.obj)->len == lens[i]);
      CHECK(memcmp(((const blob *)back.as.ext_obj.obj)->data, big, lens[i]) == 0);
    }
    sp_doc_free(&doc);
    sp_bytes_free(&out);
  }
}

static void encode_failure_is_callback_with_its_code_and_path(void) {
  int code = 42;
  sp_ext_handler failing = {7, encode_fails, NULL, &code};
  point p = {1, 2};
  sp_value items[2] = {sp_int(1), sp_ext_obj(&failing, &p)};
  sp_value kv[2] = {sp_str("shapes"), sp_array(items, 2)};
  sp_value v = sp_map(kv, 1);
  sp_bytes out;
  sp_error e;
  int64_t live;
  sp_shutdown();
  live = sp_alloc_live_bytes();
  CHECK(sp_to_array(sp_format_value, &v, NULL, &out, &e) == SP_E_CALLBACK);
  CHECK(e.inner == 42);
  CHECK(strcmp(e.path, ".shapes[1]") == 0);
  CHECK(out.data == NULL && out.len == 0);
  sp_shutdown();
  CHECK(sp_alloc_live_bytes() == live);
}

static int too_long_for_buf(void *ctx, const void *obj, sp_ext_data *out) {
  (void)ctx; (void)obj;
  out->ptr = out->buf;
  out->len = SP_EXT_INLINE + 1;
  return 0;
}

static int no_data(void *ctx, const void *obj, sp_ext_data *out) {
  (void)ctx; (void)obj;
  out->ptr = NULL;
  out->len = 3;
  return 0;
}

static void a_handler_against_its_contract_is_invalid_argument(void) {
  point p = {1, 2};
  sp_ext_handler no_encode = {7, NULL, point_decode, NULL};
  sp_ext_handler negative = {-5, point_encode, point_decode, NULL};
  sp_ext_handler too_long = {7, too_long_for_buf, NULL, NULL};
  sp_ext_handler nothing = {7, no_data, NULL, NULL};
  const sp_ext_handler *bad[] = {NULL, &no_encode, &negative, &too_long, &nothing};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    sp_value items[2] = {sp_nil(), sp_ext_obj(bad[i], &p)};
    sp_value v = sp_array(items, 2);
    sp_bytes out;
    sp_error e;
    CHECK(sp_to_array(sp_format_value, &v, NULL, &out, &e) == SP_E_INVALID_ARGUMENT);
    CHECK(strcmp(e.path, "[1]") == 0);
  }
}

/* ---- value model: decode --------------------------------------------------- */

static const uint8_t points_msg[] = {0x93, 0xd5, 7, 1, 2, 0xd5, 8, 5, 6, 0xd6, 0xff, 0, 0, 0, 9};

static void ext_of_a_handlers_type_decodes_to_its_object(void) {
  sp_decode_options o = {0};
  o.ext = &point_ext;
  o.ext_count = 1;
  for (int borrow = 0; borrow < 2; borrow++) {
    sp_doc doc = {0};
    sp_value v;
    sp_bytes again;
    const point *p;
    o.borrow = borrow;
    CHECK(sp_value_decode(points_msg, sizeof points_msg, &o, &doc, &v, NULL) == SP_OK);
    CHECK(v.kind == SP_ARRAY && v.as.array.n == 3);
    CHECK(v.as.array.items[0].kind == SP_EXT_OBJ && v.as.array.items[0].as.ext_obj.handler == &point_ext);
    p = v.as.array.items[0].as.ext_obj.obj;
    CHECK(p->x == 1 && p->y == 2);
    CHECK(v.as.array.items[1].kind == SP_EXT && v.as.array.items[1].as.ext.type == 8);   /* no handler */
    CHECK(v.as.array.items[2].kind == SP_TIMESTAMP && v.as.array.items[2].as.ts.sec == 9);
    CHECK(sp_to_array(sp_format_value, &v, NULL, &again, NULL) == SP_OK);   /* back through encode */
    CHECK_BYTES(again.data, again.len, points_msg, sizeof points_msg);
    sp_bytes_free(&again);
    sp_doc_free(&doc);
  }
}

static void without_handlers_an_ext_stays_bytes(void) {
  sp_doc doc = {0};
  sp_value v;
  CHECK(sp_value_decode(points_msg, sizeof points_msg, NULL, &doc, &v, NULL) == SP_OK);
  CHECK(v.as.array.items[0].kind == SP_EXT && v.as.array.items[0].as.ext.type == 7);
  CHECK(v.as.array.items[0].as.ext.len == 2);
  sp_doc_free(&doc);
}

static void decode_failure_is_callback_at_the_exts_offset(void) {
  int code = 17;
  sp_ext_handler failing = {8, NULL, decode_fails, &code};
  sp_ext_handler both[2] = {point_ext, failing};
  sp_decode_options o = {0};
  sp_doc doc = {0};
  sp_value v;
  sp_error e;
  const uint8_t short_point[] = {0x92, 0xc0, 0xd4, 7, 1};      /* point_decode wants 2 bytes */
  o.ext = both;
  o.ext_count = 2;
  CHECK(sp_value_decode(points_msg, sizeof points_msg, &o, &doc, &v, &e) == SP_E_CALLBACK);
  CHECK(e.inner == 17);
  CHECK(e.offset == 5);
  CHECK(v.kind == SP_NIL);
  sp_doc_free(&doc);
  CHECK(sp_value_decode(short_point, sizeof short_point, &o, &doc, &v, &e) == SP_E_CALLBACK);
  CHECK(e.inner == 22 && e.offset == 2);
  sp_doc_free(&doc);
}

static void handlers_against_the_contract_are_refused_before_reading(void) {
  sp_ext_handler dup[2] = {point_ext, point_ext};
  sp_ext_handler negative = {-1, point_encode, point_decode, NULL};
  sp_ext_handler no_decode = {7, point_encode, NULL, NULL};
  struct { const sp_ext_handler *ext; size_t n; } cases[] = {{dup, 2}, {&negative, 1}, {&no_decode, 1}, {NULL, 1}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    sp_decode_options o = {0};
    sp_doc doc = {0};
    sp_value v;
    sp_error e;
    o.ext = cases[i].ext;
    o.ext_count = cases[i].n;
    CHECK(sp_value_decode(points_msg, sizeof points_msg, &o, &doc, &v, &e) == SP_E_INVALID_ARGUMENT);
    CHECK(e.offset == 0 && v.kind == SP_NIL && doc.bytes == 0);
    sp_doc_free(&doc);
  }
}

/* ---- failing allocations ----------------------------------------------------- */

#define countdown (*fail_nth_countdown())     /* test_util.h's fail_nth_alloc */

/* Fails allocation 0, 1, 2, ... of a cold encode of a tree of ext objects
** (8-byte scratch: it migrates) and of a decode of it through handlers that
** allocate in the document, until a call makes fewer: each ends OK, NOMEM,
** or CALLBACK with NOMEM inside, and leaves nothing allocated. */
static void every_failing_allocation_leaks_nothing(void) {
  static uint8_t bytes[3000];
  blob blobs[4] = {{bytes, 3000}, {bytes, 1}, {bytes, 300}, {bytes, 0}};
  point pts[2] = {{1, 2}, {3, 4}};
  sp_value items[6];
  sp_value v;
  sp_ext_handler both[2] = {point_ext, blob_ext};
  sp_options small = {0};
  sp_bytes packed;
  int64_t live;
  int triggered = 1;
  small.scratch_size = 8;
  for (int i = 0; i < 4; i++) items[i] = sp_ext_obj(&blob_ext, &blobs[i]);
  for (int i = 0; i < 2; i++) items[4 + i] = sp_ext_obj(&point_ext, &pts[i]);
  v = sp_array(items, 6);
  CHECK(sp_to_array(sp_format_value, &v, NULL, &packed, NULL) == SP_OK);
  sp_shutdown();
  live = sp_alloc_live_bytes();
  sp_alloc_set_hook(fail_nth_alloc, NULL);
  for (long k = 0; triggered && k < 500; k++) {
    sp_decode_options o = {0};
    sp_bytes b = {0};
    sp_doc doc = {0};
    sp_value back;
    sp_error e;
    sp_code c1, c2;
    o.ext = both;
    o.ext_count = 2;
    countdown = k;
    c1 = sp_to_array(sp_format_value, &v, &small, &b, NULL);
    triggered = countdown < 0;
    sp_bytes_free(&b);
    sp_shutdown();
    countdown = k;
    c2 = sp_value_decode(packed.data, packed.len, &o, &doc, &back, &e);
    triggered = triggered || countdown < 0;
    countdown = -1;
    sp_doc_free(&doc);
    sp_shutdown();
    CHECK(c1 == SP_OK || c1 == SP_E_NOMEM);
    CHECK(c2 == SP_OK || c2 == SP_E_NOMEM || (c2 == SP_E_CALLBACK && e.inner == SP_E_NOMEM));
    CHECK(sp_alloc_live_bytes() == live);
  }
  sp_alloc_set_hook(NULL, NULL);
  sp_bytes_free(&packed);
}

/* ---- schema: the ext member ----------------------------------------------------- */

typedef struct shape {
  int32_t id;
  sp_ext_field mark;
  sp_array_field marks;      /* of sp_ext_field */
} shape;

static const sp_field shape_fields[] = {
  SP_MEMBER(shape, id, SP_F_I32),
  SP_MEMBER(shape, mark, SP_F_EXT),
  SP_MEMBER(shape, marks, SP_F_EXT, .flags = SP_FIELD_ARRAY),
};
static sp_schema shape_schema = SP_SCHEMA(shape, shape_fields, 0);

static const uint8_t shape_msg[] = {
  0x83, 0xa2, 'i', 'd', 0x05,
  0xa4, 'm', 'a', 'r', 'k', 0xd5, 7, 1, 2,
  0xa5, 'm', 'a', 'r', 'k', 's', 0x93, 0xc7, 0, 3, 0xc0, 0xd6, 0xff, 0, 0, 0, 9,
};

static void schema_ext_member_round_trips(void) {
  static uint8_t xy[2] = {1, 2};
  static uint8_t ts[4] = {0, 0, 0, 9};
  sp_ext_field marks[3] = {{(uint8_t *)"", 0, 0, 3}, {NULL, 0, 0, 0}, {ts, 4, 0, -1}};
  shape s = {5, {xy, 2, 0, 7}, {marks, 3, 0}};
  shape back = {0};
  sp_bytes out;
  int64_t live = sp_alloc_live_bytes();
  CHECK(sp_schema_to_array(&shape_schema, &s, NULL, &out, NULL) == SP_OK);
  CHECK_BYTES(out.data, out.len, shape_msg, sizeof shape_msg);
  CHECK(sp_schema_decode(&shape_schema, out.data, out.len, &back, 0, NULL) == SP_OK);
  CHECK(back.id == 5 && back.mark.type == 7 && back.mark.len == 2 && back.mark.cap >= 2);
  CHECK(back.mark.ptr[0] == 1 && back.mark.ptr[1] == 2);
  CHECK(back.marks.count == 3);
  {
    const sp_ext_field *m = back.marks.ptr;
    CHECK(m[0].type == 3 && m[0].len == 0 && m[0].ptr != NULL);
    CHECK(m[1].ptr == NULL);                                  /* nil */
    CHECK(m[2].type == -1 && m[2].len == 4 && memcmp(m[2].ptr, ts, 4) == 0);   /* a timestamp, as bytes */
  }
  sp_bytes_free(&out);
  CHECK(sp_schema_to_array(&shape_schema, &back, NULL, &out, NULL) == SP_OK);   /* and out again */
  CHECK_BYTES(out.data, out.len, shape_msg, sizeof shape_msg);
  sp_bytes_free(&out);
  sp_schema_release(&shape_schema, &back);
  CHECK(back.mark.ptr == NULL && back.marks.ptr == NULL);
  sp_schema_forget(&shape_schema);
  sp_shutdown();
  CHECK(sp_alloc_live_bytes() == live);
}

static void schema_ext_member_decodes_into_its_block_and_borrows(void) {
  shape s = {0};
  uint8_t *block;
  const uint8_t other[] = {0x81, 0xa4, 'm', 'a', 'r', 'k', 0xd4, 9, 0x55};
  const uint8_t not_ext[] = {0x81, 0xa4, 'm', 'a', 'r', 'k', 0xa1, 'x'};
  sp_error e;
  CHECK(sp_schema_decode(&shape_schema, shape_msg, sizeof shape_msg, &s, 0, NULL) == SP_OK);
  block = s.mark.ptr;
  CHECK(sp_schema_decode(&shape_schema, other, sizeof other, &s, 0, NULL) == SP_OK);
  CHECK(s.mark.ptr == block && s.mark.type == 9 && s.mark.len == 1 && s.mark.ptr[0] == 0x55);   /* reused */
  CHECK(sp_schema_decode(&shape_schema, not_ext, sizeof not_ext, &s, 0, &e) == SP_E_TYPE);
  CHECK(e.offset == 6 && strcmp(e.path, ".mark") == 0);
  sp_schema_release(&shape_schema, &s);
  CHECK(sp_schema_decode(&shape_schema, shape_msg, sizeof shape_msg, &s, SP_DECODE_BORROW, NULL) == SP_OK);
  CHECK(s.mark.cap == 0 && s.mark.ptr == shape_msg + 12);
  sp_schema_release(&shape_schema, &s);
  sp_schema_forget(&shape_schema);
}

static void schema_ext_decode_failing_allocations_leak_nothing(void) {
  int64_t live;
  int triggered = 1;
  sp_shutdown();
  live = sp_alloc_live_bytes();
  sp_alloc_set_hook(fail_nth_alloc, NULL);
  for (long k = 0; triggered && k < 200; k++) {
    shape s = {0};
    sp_code c;
    countdown = k;
    c = sp_schema_decode(&shape_schema, shape_msg, sizeof shape_msg, &s, 0, NULL);
    triggered = countdown < 0;
    countdown = -1;
    sp_schema_release(&shape_schema, &s);
    sp_schema_forget(&shape_schema);
    sp_shutdown();
    CHECK(c == SP_OK || c == SP_E_NOMEM);
    CHECK(sp_alloc_live_bytes() == live);
  }
  sp_alloc_set_hook(NULL, NULL);
}

int main(void) {
  SP_RUN(ext_obj_is_written_by_its_handler);
  SP_RUN(ext_obj_data_of_any_length_takes_the_smallest_form);
  SP_RUN(encode_failure_is_callback_with_its_code_and_path);
  SP_RUN(a_handler_against_its_contract_is_invalid_argument);
  SP_RUN(ext_of_a_handlers_type_decodes_to_its_object);
  SP_RUN(without_handlers_an_ext_stays_bytes);
  SP_RUN(decode_failure_is_callback_at_the_exts_offset);
  SP_RUN(handlers_against_the_contract_are_refused_before_reading);
  SP_RUN(every_failing_allocation_leaks_nothing);
  SP_RUN(schema_ext_member_round_trips);
  SP_RUN(schema_ext_member_decodes_into_its_block_and_borrows);
  SP_RUN(schema_ext_decode_failing_allocations_leak_nothing);
  return sp_test_summary();
}
