/*
** test_schema_keys.c -- string keys matched without allocating.
** Keys of 0, 1, 8, 9, 16, 17 and 256 bytes, keys sharing 8-byte prefixes
** (linear scan and binary search), multi-byte UTF-8, every one-byte
** mutation of every key checked against a naive lookup, trailing NULs that
** must not alias ("a\0" is not "a"), unknown and non-string keys, repeated
** keys, and keys that straddle the segments of a sequence.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scratchpack.h"
#include "sp_test.h"

static const char long_key[] =      /* 256 bytes: the longest key a schema may have */
  "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
  "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
  "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
  "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk";

static const char *const names[] = {
  "a", "b", "ab", "ba", "",
  "abcdefgh", "abcdefgX", "Xbcdefgh",                       /* 8: one chunk */
  "abcdefghi", "abcdefghj",                                 /* 9: a second chunk of 1 */
  "abcdefgh12345678", "abcdefgh12345679",                   /* 16: two full chunks */
  "abcdefgh12345678x", "abcdefgh12345678y", "abcdefgh22345678x",   /* 17 */
  "prefix__k00", "prefix__k01", "prefix__k02", "prefix__k03", "prefix__k04",
  "prefix__k05", "prefix__k06", "prefix__k07", "prefix__k08", "prefix__k09",
  "prefix__k10", "prefix__k11",                             /* 12 share 8 bytes: bisected */
  "\xed\x82\xa4", "\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87",        /* UTF-8: 키, ключ */
  long_key,
};
#define NK (sizeof names / sizeof names[0])

typedef struct keyed {
  int32_t v[NK];
} keyed;

static sp_field key_fields[NK];
static sp_schema keys_schema = {.name = "keyed", .size = sizeof(keyed), .fields = key_fields,
                                .nfields = NK};

/* 200 keys that share their first 8 bytes and differ late. */
#define NMANY 200
typedef struct many { int32_t v[NMANY]; } many;
static char many_names[NMANY][16];
static sp_field many_fields[NMANY];
static sp_schema many_schema = {.name = "many", .size = sizeof(many), .fields = many_fields,
                                .nfields = NMANY};

static void tables_init(void) {
  for (size_t i = 0; i < NK; i++) {
    key_fields[i].name = names[i];
    key_fields[i].type = SP_F_I32;
    key_fields[i].offset = offsetof(keyed, v) + i * sizeof(int32_t);
  }
  for (int i = 0; i < NMANY; i++) {
    snprintf(many_names[i], sizeof many_names[i], "field_00_%03d", (i * 37) % NMANY);
    many_fields[i].name = many_names[i];
    many_fields[i].type = SP_F_I32;
    many_fields[i].offset = offsetof(many, v) + (size_t)i * sizeof(int32_t);
  }
}

/* ---- helpers ------------------------------------------------------------------ */

typedef struct msg {
  sp_buffer buf;
  sp_output out;
  sp_writer w;
} msg;

static sp_writer *msg_begin(msg *m) {
  sp_buffer_init(&m->buf);
  m->out = sp_buffer_output(&m->buf);
  sp_writer_init_output(&m->w, &m->out);
  return &m->w;
}

static void msg_end(msg *m) { CHECK(sp_writer_flush(&m->w) == SP_OK); }

static void msg_free(msg *m) { sp_buffer_free(&m->buf); }

/* The naive lookup the matcher must agree with. */
static int oracle(const uint8_t *key, size_t len) {
  for (size_t i = 0; i < NK; i++)
    if (strlen(names[i]) == len && memcmp(names[i], key, len) == 0) return (int)i;
  return -1;
}

/* Decodes {key: 7} into a zero struct; returns the member that took it,
** -1 for none, -2 when more than one changed or the decode failed. */
static int matched(const uint8_t *key, size_t len) {
  msg m;
  sp_writer *w = msg_begin(&m);
  keyed k;
  int hit = -1;
  memset(&k, 0, sizeof k);
  sp_write_map_header(w, 1);
  sp_write_str(w, (const char *)key, len);
  sp_write_int(w, 7);
  msg_end(&m);
  if (sp_schema_decode(&keys_schema, m.buf.data, m.buf.len, &k, 0, NULL) != SP_OK) hit = -2;
  for (size_t i = 0; i < NK && hit != -2; i++)
    if (k.v[i] != 0) hit = hit == -1 && k.v[i] == 7 ? (int)i : -2;
  msg_free(&m);
  return hit;
}

/* ---- tests ----------------------------------------------------------------------- */

static void every_key_matches_itself_and_nothing_else(void) {
  int bad = 0;
  for (size_t i = 0; i < NK; i++)
    if (matched((const uint8_t *)names[i], strlen(names[i])) != (int)i) bad++;
  CHECK(bad == 0);
}

/* Flip each bit pattern 0x01 / 0x80 at each position, drop the last byte,
** append 'x' or NUL: the matcher agrees with the naive lookup every time. */
static void every_near_miss_agrees_with_a_naive_lookup(void) {
  uint8_t key[SP_MAX_KEY_LEN + 2];
  int bad = 0, tried = 0;
  for (size_t i = 0; i < NK; i++) {
    size_t len = strlen(names[i]);
    for (size_t pos = 0; pos < len; pos++) {
      for (int flip = 0; flip < 2; flip++) {
        memcpy(key, names[i], len);
        key[pos] ^= flip ? 0x80 : 0x01;
        bad += matched(key, len) != oracle(key, len);
        tried++;
      }
    }
    memcpy(key, names[i], len);
    if (len > 0) { bad += matched(key, len - 1) != oracle(key, len - 1); tried++; }
    key[len] = 'x';
    bad += matched(key, len + 1) != oracle(key, len + 1);
    key[len] = '\0';
    bad += matched(key, len + 1) != oracle(key, len + 1);
    tried += 2;
  }
  CHECK(bad == 0);
  CHECK(tried > 1000);
}

static void trailing_nuls_never_alias(void) {
  CHECK(matched((const uint8_t *)"a\0", 2) == -1);                      /* not "a" */
  CHECK(matched((const uint8_t *)"ab\0\0\0\0\0\0", 8) == -1);           /* not "ab" */
  CHECK(matched((const uint8_t *)"abcdefgh\0", 9) == -1);               /* not "abcdefgh" */
  CHECK(matched((const uint8_t *)"abcdefgh12345678\0", 17) == -1);      /* not the 16-byte key */
  CHECK(matched((const uint8_t *)"\0", 1) == -1);                       /* not "" */
  CHECK(matched((const uint8_t *)"a", 1) == 0 && matched((const uint8_t *)"", 0) == 4);
}

static void a_round_trip_matches_every_key_without_allocating(void) {
  keyed in, out;
  sp_bytes b;
  sp_alloc_stats s;
  for (size_t i = 0; i < NK; i++) in.v[i] = (int32_t)(i * 3 + 1);
  CHECK(sp_schema_to_array(&keys_schema, &in, NULL, &b, NULL) == SP_OK);
  memset(&out, 0, sizeof out);
  sp_alloc_stats_reset();
  CHECK(sp_schema_decode(&keys_schema, b.data, b.len, &out, 0, NULL) == SP_OK);
  sp_alloc_stats_get(&s);
  CHECK(s.alloc_calls == 0);
  CHECK(memcmp(&in, &out, sizeof in) == 0);
  sp_bytes_free(&b);
}

static void two_hundred_keys_sharing_a_prefix_all_match(void) {
  many in, out;
  sp_bytes b;
  for (int i = 0; i < NMANY; i++) in.v[i] = i - 100;
  CHECK(sp_schema_to_array(&many_schema, &in, NULL, &b, NULL) == SP_OK);
  memset(&out, 0, sizeof out);
  CHECK(sp_schema_decode(&many_schema, b.data, b.len, &out, 0, NULL) == SP_OK);
  CHECK(memcmp(&in, &out, sizeof in) == 0);
  sp_bytes_free(&b);
}

static void unknown_and_non_string_keys_are_skipped_with_their_values(void) {
  msg m;
  sp_writer *w = msg_begin(&m);
  keyed k;
  memset(&k, 0, sizeof k);
  sp_write_map_header(w, 7);
  sp_write_str(w, "abcdefgh12345678z", 17);                  /* unknown, shares 16 bytes */
  sp_write_map_header(w, 1); sp_write_str(w, "a", 1); sp_write_array_header(w, 1); sp_write_int(w, 5);
  sp_write_uint(w, 0); sp_write_int(w, 9);                   /* int key */
  sp_write_nil(w); sp_write_int(w, 9);                       /* nil key */
  sp_write_bin(w, "a", 1); sp_write_int(w, 9);               /* bin "a" is not str "a" */
  sp_write_array_header(w, 1); sp_write_str(w, "a", 1); sp_write_int(w, 9);   /* array key */
  sp_write_str(w, "prefix__k99", 11); sp_write_str(w, "value", 5);
  sp_write_str(w, "b", 1); sp_write_int(w, 2);
  msg_end(&m);
  CHECK(sp_schema_decode(&keys_schema, m.buf.data, m.buf.len, &k, 0, NULL) == SP_OK);
  CHECK(k.v[1] == 2);
  k.v[1] = 0;
  for (size_t i = 0; i < NK; i++) CHECK(k.v[i] == 0);
  msg_free(&m);
}

static void a_repeated_key_keeps_the_last_value(void) {
  msg m;
  sp_writer *w = msg_begin(&m);
  keyed k;
  memset(&k, 0, sizeof k);
  sp_write_map_header(w, 3);
  sp_write_str(w, "ab", 2); sp_write_int(w, 1);
  sp_write_str(w, "ba", 2); sp_write_int(w, 5);
  sp_write_str(w, "ab", 2); sp_write_int(w, 2);
  msg_end(&m);
  CHECK(sp_schema_decode(&keys_schema, m.buf.data, m.buf.len, &k, 0, NULL) == SP_OK);
  CHECK(k.v[2] == 2 && k.v[3] == 5);
  msg_free(&m);
}

/* One-byte segments: keys are copied to the stack to be matched; a key
** longer than any known one is drained through it. */
static void keys_straddling_segments_match_the_same(void) {
  keyed in, out;
  sp_bytes b;
  msg m;
  sp_writer *w;
  sp_segment *segs;
  sp_sequence seq;
  sp_reader r;
  char unknown[300];
  memset(unknown, 'k', sizeof unknown);
  for (size_t i = 0; i < NK; i++) in.v[i] = (int32_t)i + 1;
  CHECK(sp_schema_to_array(&keys_schema, &in, NULL, &b, NULL) == SP_OK);
  w = msg_begin(&m);                    /* the message, then an unknown 300-byte key */
  sp_write_map_header(w, (uint32_t)NK + 1);
  sp_write_str(w, unknown, sizeof unknown);
  sp_write_int(w, 1);
  sp_write_raw(w, b.data + 3, b.len - 3);   /* the pairs, after the map16 header */
  msg_end(&m);
  CHECK(b.data[0] == 0xDE);
  segs = calloc(m.buf.len, sizeof *segs);
  for (size_t i = 0; i < m.buf.len; i++) {
    segs[i].data = m.buf.data + i;
    segs[i].used = segs[i].capacity = 1;
  }
  memset(&seq, 0, sizeof seq);
  seq.segs = segs;
  seq.nsegs = seq.cap_segs = m.buf.len;
  seq.length = m.buf.len;
  sp_reader_init_sequence(&r, &seq);
  memset(&out, 0, sizeof out);
  CHECK(sp_schema_read(&r, &keys_schema, &out, 0) == SP_OK && r.remaining == 0);
  CHECK(memcmp(&in, &out, sizeof in) == 0);
  free(segs);
  msg_free(&m);
  sp_bytes_free(&b);
}

static void a_key_over_256_bytes_is_refused_at_resolve(void) {
  static char too_long[SP_MAX_KEY_LEN + 2];
  static sp_field f[1];
  static sp_schema s = {.name = "too_long", .size = sizeof(int32_t), .fields = f, .nfields = 1};
  sp_error err;
  memset(too_long, 'k', SP_MAX_KEY_LEN + 1);
  f[0].name = too_long;
  f[0].type = SP_F_I32;
  CHECK(sp_schema_resolve(&s, &err) == SP_E_INVALID_ARGUMENT);
  CHECK(strcmp(err.cause, "string key longer than 256 bytes") == 0);
}

int main(void) {
  tables_init();
  SP_RUN(every_key_matches_itself_and_nothing_else);
  SP_RUN(every_near_miss_agrees_with_a_naive_lookup);
  SP_RUN(trailing_nuls_never_alias);
  SP_RUN(a_round_trip_matches_every_key_without_allocating);
  SP_RUN(two_hundred_keys_sharing_a_prefix_all_match);
  SP_RUN(unknown_and_non_string_keys_are_skipped_with_their_values);
  SP_RUN(a_repeated_key_keeps_the_last_value);
  SP_RUN(keys_straddling_segments_match_the_same);
  SP_RUN(a_key_over_256_bytes_is_refused_at_resolve);
  sp_schema_forget(&keys_schema);
  sp_schema_forget(&many_schema);
  sp_shutdown();
  return sp_test_summary();
}
