/*
** sp_demo.c -- what `npm start` shows until the page exists: the documents'
** nested-call table and the bytes each entry allocates per call, measured
** by this build's counters.
*/
#include <stdio.h>
#include <string.h>

#include "fixtures.h"

static void print_hex(const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) printf("%02X", p[i]);
}

static void nested_row(const char *label, const sp_bytes *b) {
  printf("| %-34s | ", label);
  print_hex(b->data, 12);
  printf(" | ");
  print_hex(b->data + 12, b->len - 12);
  printf(" |\n");
}

static void nested_table(void) {
  sp_options legacy = {0};
  sp_buffer buf;
  sp_output out = sp_buffer_output(&buf);
  sp_bytes b;
  outer o;
  legacy.legacy_nested_scratch = 1;
  printf("Outer{Before=\"AAAAAAAAAA\", Inner=Envelope(Small{7,\"inner\",1.5}), After=99}\n\n");
  printf("| %-34s | first 12 bytes           | rest |\n| --- | --- | --- |\n", "outer entry");
  outer_init(&o, "AAAAAAAAAA", 10, &legacy);
  sp_to_array(sp_format_value, &o.root, &legacy, &b, NULL);
  nested_row("to_array, legacy (MessagePack-C#)", &b);
  sp_bytes_free(&b);
  outer_init(&o, "AAAAAAAAAA", 10, NULL);
  sp_to_array(sp_format_value, &o.root, NULL, &b, NULL);
  nested_row("to_array, scratchpack default", &b);
  sp_bytes_free(&b);
  sp_buffer_init(&buf);
  sp_to_output(&out, sp_format_value, &o.root, NULL, NULL);
  b.data = buf.data;
  b.len = buf.len;
  nested_row("to_output (buffer writer)", &b);
  sp_buffer_free(&buf);
}

static int drop_sink(void *ctx, const uint8_t *p, size_t n) {
  (void)ctx; (void)p; (void)n;
  return 0;
}

/* Average bytes allocated per call over 2,000 calls after 200 warm-ups. */
static double per_call(int entry, const sp_value *v, sp_buffer *buf) {
  sp_output out = sp_buffer_output(buf);
  sp_alloc_stats a;
  for (int i = -200; i < 2000; i++) {
    sp_bytes b;
    if (i == 0) sp_alloc_stats_reset();
    sp_buffer_clear(buf);
    if (entry == 0) { sp_to_array(sp_format_value, v, NULL, &b, NULL); sp_bytes_free(&b); }
    if (entry == 1) sp_to_output(&out, sp_format_value, v, NULL, NULL);
    if (entry == 2) sp_to_stream(drop_sink, NULL, sp_format_value, v, NULL, NULL);
  }
  sp_alloc_stats_get(&a);
  return (double)a.alloc_bytes / 2000.0;
}

static void allocation_table(void) {
  static const char *entries[3] = {"to_array", "to_output (reused buffer)", "to_stream"};
  sp_value pairs[4] = {sp_str("Id"), sp_int(1), sp_str("Name"), sp_str("hello")};
  sp_value small = sp_map(pairs, 2);
  big_object big;
  sp_buffer buf;
  big_object_init(&big, 100000);
  sp_buffer_init(&buf);
  printf("\nBytes allocated per call (200 warm-up calls, mean of 2,000):\n\n");
  printf("| entry | small (16 B) | big (100,007 B) |\n| --- | ---: | ---: |\n");
  for (int e = 0; e < 3; e++)
    printf("| %s | %.0f B | %.0f B |\n", entries[e], per_call(e, &small, &buf),
           per_call(e, &big.root, &buf));
  sp_buffer_free(&buf);
  big_object_free(&big);
}

static int write_ints(sp_writer *w, const void *value) {
  sp_write_i32_array(w, value, 30000);
  return 0;
}

/* 001_*.txt: 30,000 ints through the byte[] entry made two LOH arrays per
** call (150 KB and 90 KB) in MessagePack-CSharp. */
static void ints_table(void) {
  static int32_t v[30000];
  sp_alloc_stats a;
  sp_bytes b;
  for (int i = 0; i < 30000; i++) v[i] = i;
  for (int i = -200; i < 2000; i++) {
    if (i == 0) sp_alloc_stats_reset();
    sp_to_array(write_ints, v, NULL, &b, NULL);
    sp_bytes_free(&b);
  }
  sp_alloc_stats_get(&a);
  printf("\n30,000 int32 (0..29,999) through to_array, per call (mean of 2,000):\n\n");
  printf("| | allocations | bytes | over the 128 KiB pool |\n| --- | ---: | ---: | ---: |\n");
  printf("| scratchpack | %.1f | %.0f B | %.1f |\n", a.alloc_calls / 2000.0,
         a.alloc_bytes / 2000.0, a.unpooled_calls / 2000.0);
  printf("| MessagePack-CSharp (001_*.txt) | 2 | ~240 KB (a 150 KB segment + the 90 KB result) | 1 |\n");
}

int main(void) {
  printf("scratchpack %s -- the documents' figures, measured by this build\n\n", SP_VERSION);
  nested_table();
  allocation_table();
  ints_table();
  sp_shutdown();
  return 0;
}
