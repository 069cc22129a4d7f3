/*
** contract_gen.c -- C from a JS contract file: the header `scratchpack gen-c`
** writes for contracts.json compiles (-Wall -Wextra -Werror, the
** sanitizers), its schemas round-trip every field type, and the same value
** gives the same bytes through the generated C schema as through JS's
** contract() of that file (contract_fixture.mjs writes JS's bytes at build
** time; the values here are the ones it encodes). Not test_*.c: the build
** needs node to generate both headers, so the WASI build leaves it out.
*/
#include <string.h>

#define SP_CONTRACTS_IMPLEMENTATION
#include "contracts_gen.h"
#include "contract_js_bytes.h"
#include "sp_test.h"

static sp_str_field str(const char *s) {
  sp_str_field f = {(char *)s, strlen(s), 0};
  return f;
}

static sp_str_field tags[3];
static Item items[2];
static int32_t ints[] = {-1, 0, 127, 128, -129, 2147483647};
static uint8_t blob[] = {0, 1, 2, 3, 255};

/* contract_fixture.mjs's `full`. */
static Order full_order(void) {
  Order o;
  memset(&o, 0, sizeof o);
  o.id = 4000000000u;
  o.name = str("order-1 \xe2\x9c\x93");
  o.score = 12.75;
  tags[0] = str("a"); tags[1] = str(""); tags[2] = str("ccc");
  o.tags = (sp_array_field)SP_ARRAY_OF(tags, 3);
  o.born.sec = 1700000000; o.born.nsec = 123000000;
  o.blob.ptr = blob; o.blob.len = sizeof blob;
  o.pos.x = -7; o.pos.y = 70000;
  memset(items, 0, sizeof items);
  items[0].sku = str("A-1"); items[0].qty = 3; items[0].price = 9.99; items[0].at.x = 1; items[0].at.y = 2;
  items[1].sku = str("B-22"); items[1].qty = 65535; items[1].price = -0.5; items[1].at.x = 0; items[1].at.y = -1;
  o.items = (sp_array_field)SP_ARRAY_OF(items, 2);
  o.ints = (sp_array_field)SP_ARRAY_OF(ints, 6);
  o.flag = true;
  o.small = -100;
  o.big = -5000000000;
  o.huge = UINT64_MAX;
  o.ratio = 0.25f;
  o.note.ptr = NULL;            /* nil: the JS side's note: null */
  o.later = 500;
  return o;
}

static void the_same_value_gives_the_same_bytes_as_the_js_contract(void) {
  Order o = full_order(), s;
  Item it = items[1];
  Point p = {2147483647, -2147483647 - 1};
  sp_bytes b;
  CHECK(sp_schema_to_array(&Order_schema, &o, NULL, &b, NULL) == SP_OK);
  CHECK_BYTES(b.data, b.len, order_full_js, order_full_js_len);
  sp_bytes_free(&b);
  memset(&s, 0, sizeof s);
  s.name = str(""); s.blob.ptr = blob; s.blob.len = 0; s.big = 1; s.ratio = -1.5f; s.note = str("n");
  s.tags = (sp_array_field)SP_ARRAY_OF(tags, 0);
  CHECK(sp_schema_to_array(&Order_schema, &s, NULL, &b, NULL) == SP_OK);
  CHECK_BYTES(b.data, b.len, order_sparse_js, order_sparse_js_len);
  sp_bytes_free(&b);
  CHECK(sp_schema_to_array(&Item_schema, &it, NULL, &b, NULL) == SP_OK);
  CHECK_BYTES(b.data, b.len, item_one_js, item_one_js_len);
  sp_bytes_free(&b);
  CHECK(sp_schema_to_array(&Point_schema, &p, NULL, &b, NULL) == SP_OK);
  CHECK_BYTES(b.data, b.len, point_one_js, point_one_js_len);
  sp_bytes_free(&b);
}

static void the_js_bytes_decode_into_the_generated_structs(void) {
  Order o;
  sp_bytes b;
  const Item *it;
  memset(&o, 0, sizeof o);
  CHECK(sp_schema_decode(&Order_schema, order_full_js, order_full_js_len, &o, 0, NULL) == SP_OK);
  CHECK(o.id == 4000000000u && o.score == 12.75 && o.flag && o.small == -100);
  CHECK(o.big == -5000000000 && o.huge == UINT64_MAX && o.ratio == 0.25f && o.later == 500);
  CHECK(o.name.len == 11 && memcmp(o.name.ptr, "order-1 \xe2\x9c\x93", 11) == 0);
  CHECK(o.note.ptr == NULL);
  CHECK(o.born.sec == 1700000000 && o.born.nsec == 123000000);
  CHECK(o.blob.len == 5 && o.blob.ptr[4] == 255);
  CHECK(o.pos.x == -7 && o.pos.y == 70000);
  CHECK(o.tags.count == 3 && ((sp_str_field *)o.tags.ptr)[2].len == 3);
  CHECK(o.ints.count == 6 && ((int32_t *)o.ints.ptr)[5] == 2147483647);
  CHECK(o.items.count == 2);
  it = (const Item *)o.items.ptr;
  CHECK(it[1].qty == 65535 && it[1].price == -0.5 && it[1].at.y == -1 && memcmp(it[1].sku.ptr, "B-22", 4) == 0);
  /* and back: the same bytes again */
  CHECK(sp_schema_to_array(&Order_schema, &o, NULL, &b, NULL) == SP_OK);
  CHECK_BYTES(b.data, b.len, order_full_js, order_full_js_len);
  sp_bytes_free(&b);
  sp_schema_release(&Order_schema, &o);
}

/* A message from an older writer, {"level": 3}: the members it leaves out
** keep what Settings_init gave them, the file's defaults (JS's decode gives
** a missing field its default too). */
static void init_gives_the_defaults_a_message_leaves_out(void) {
  static const uint8_t older[] = {0x81, 0xa5, 'l', 'e', 'v', 'e', 'l', 0x03};
  Settings s;
  Settings_init(&s);
  CHECK(s.level == 1 && s.ratio == 0.5f && s.on && s.floor == -9007199254740991LL && s.note.ptr == NULL);
  CHECK(sp_schema_decode(&Settings_schema, older, sizeof older, &s, 0, NULL) == SP_OK);
  CHECK(s.level == 3 && s.ratio == 0.5f && s.on && s.floor == -9007199254740991LL);
  CHECK(s.name.len == 7 && memcmp(s.name.ptr, "anon \xc3\xa9", 7) == 0 && s.name.cap == 0);
  CHECK(s.at.x == 0 && s.at.y == 0);
  sp_schema_release(&Settings_schema, &s);
}

/* Settings_init's members, written, are the JS contract's defaults byte
** for byte: a float32 default is the float JS writes (rounded once from the
** double; a decimal 'f' literal rounded a halfway value the other way). */
static void init_writes_the_js_defaults(void) {
  Settings s;
  sp_bytes b = {0};
  Settings_init(&s);
  CHECK(sp_schema_to_array(&Settings_schema, &s, NULL, &b, NULL) == SP_OK);
  CHECK_BYTES(b.data, b.len, settings_defaults_js, settings_defaults_js_len);
  sp_bytes_free(&b);
  sp_schema_release(&Settings_schema, &s);
}

int main(void) {
  SP_RUN(the_same_value_gives_the_same_bytes_as_the_js_contract);
  SP_RUN(init_writes_the_js_defaults);
  SP_RUN(the_js_bytes_decode_into_the_generated_structs);
  SP_RUN(init_gives_the_defaults_a_message_leaves_out);
  sp_schema_forget(&Settings_schema);
  sp_schema_forget(&Order_schema);
  sp_schema_forget(&Item_schema);
  sp_schema_forget(&Point_schema);
  sp_shutdown();
  return sp_test_summary();
}
