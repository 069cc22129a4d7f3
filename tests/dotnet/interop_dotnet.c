/*
** interop_dotnet.c -- scratchpack C against MessagePack-CSharp's corpus.
** Owns: reading the exchange files the .NET peer writes (tests/dotnet/Peer:
** Records.cs, Render.cs), decoding each message into an sp_value tree,
** rendering it with the strict rules of Render.cs, and writing what C
** encodes for the same tree (c.bin), which the peer verifies. Also the LZ4
** files (lz4.bin: decode with detection on; c-lz4.bin: our compressed
** encodings). Must not touch: the library's internals (public API only).
**
** Usage: interop_dotnet DIR
**   reads DIR/cs.bin + DIR/cs.txt, writes DIR/c.bin;
**   reads DIR/lz4.bin + DIR/lz4.txt (when present), writes DIR/c-lz4.bin.
**   reads DIR/contracts.bin + DIR/contracts.txt (when present): each
**   [MessagePackObject] message into the sp_schema matching its C# class
**   (Record: integer keys with gaps; Person: string keys; Bag, whose
**   Dictionary members no schema expresses: a value tree), writes what the
**   schema encodes back to DIR/c-contracts.bin; the bytes must be C#'s.
** The contract structs come from contracts.json through gen-c (below).
** interop_dotnet --contracts DIR FILE: only the contracts, from DIR/FILE
**   (what the JS contracts wrote): each must encode back to its own bytes.
** Not a ctest test (it needs the peer's files): tests/dotnet/run.sh runs it.
** Prints "interop_dotnet: N passed, N failed".
*/
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scratchpack.h"
#include "sp_schema.h"
#include "sp_value.h"

static int passed, failed;

/* ---- a growing text buffer ------------------------------------------------ */

typedef struct text { char *p; size_t n, cap; } text;

static void put(text *t, const char *s, size_t n) {
  if (t->n + n + 1 > t->cap) {
    size_t cap = t->cap ? t->cap : 1024;
    while (cap < t->n + n + 1) cap *= 2;
    char *q = realloc(t->p, cap);
    if (q == NULL) { fprintf(stderr, "out of memory\n"); exit(2); }
    t->p = q;
    t->cap = cap;
  }
  memcpy(t->p + t->n, s, n);
  t->n += n;
  t->p[t->n] = 0;
}
static void puts_(text *t, const char *s) { put(t, s, strlen(s)); }
static void hex(text *t, const void *data, size_t n) {
  static const char digits[] = "0123456789abcdef";
  const uint8_t *b = data;
  char buf[256];
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    buf[k++] = digits[b[i] >> 4];
    buf[k++] = digits[b[i] & 15];
    if (k == sizeof buf) { put(t, buf, k); k = 0; }
  }
  put(t, buf, k);
}

/* Render.cs's strict rules. */
static void render(text *t, const sp_value *v) {
  char buf[64];
  switch (v->kind) {
    case SP_NIL: puts_(t, "nil"); return;
    case SP_BOOL: puts_(t, v->as.b ? "true" : "false"); return;
    case SP_INT: snprintf(buf, sizeof buf, "n:%" PRId64, v->as.i); puts_(t, buf); return;
    case SP_UINT: snprintf(buf, sizeof buf, "n:%" PRIu64, v->as.u); puts_(t, buf); return;
    case SP_FLOAT: {
      uint32_t bits;
      memcpy(&bits, &v->as.f, 4);
      snprintf(buf, sizeof buf, "f:%08" PRIx32, bits);
      puts_(t, buf);
      return;
    }
    case SP_DOUBLE: {
      uint64_t bits;
      memcpy(&bits, &v->as.d, 8);
      snprintf(buf, sizeof buf, "d:%016" PRIx64, bits);
      puts_(t, buf);
      return;
    }
    case SP_STR: puts_(t, "s:"); hex(t, v->as.str.ptr, v->as.str.len); return;
    case SP_BIN: puts_(t, "b:"); hex(t, v->as.bin.ptr, v->as.bin.len); return;
    case SP_ARRAY:
      puts_(t, "[");
      for (uint32_t i = 0; i < v->as.array.n; i++) {
        if (i) puts_(t, ",");
        render(t, &v->as.array.items[i]);
      }
      puts_(t, "]");
      return;
    case SP_MAP:
      puts_(t, "{");
      for (uint32_t i = 0; i < v->as.map.n; i++) {
        if (i) puts_(t, ",");
        render(t, &v->as.map.pairs[2 * i]);
        puts_(t, "=");
        render(t, &v->as.map.pairs[2 * i + 1]);
      }
      puts_(t, "}");
      return;
    case SP_EXT:
      snprintf(buf, sizeof buf, "x%d:", v->as.ext.type);
      puts_(t, buf);
      hex(t, v->as.ext.ptr, v->as.ext.len);
      return;
    case SP_TIMESTAMP:
      snprintf(buf, sizeof buf, "t:%" PRId64 ".%" PRIu32, v->as.ts.sec, v->as.ts.nsec);
      puts_(t, buf);
      return;
    default: puts_(t, "?"); return;
  }
}

/* ---- files ----------------------------------------------------------------- */

static uint8_t *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *p = malloc(n > 0 ? (size_t)n + 1 : 1);
  if (p == NULL || fread(p, 1, (size_t)n, f) != (size_t)n) { fprintf(stderr, "cannot read %s\n", path); exit(2); }
  p[n] = 0;
  fclose(f);
  *len = (size_t)n;
  return p;
}

static void put_record(FILE *f, const uint8_t *data, size_t len) {
  if (f == NULL) return;   /* a check that writes nothing (--contracts) */
  uint8_t h[4] = { (uint8_t)len, (uint8_t)(len >> 8), (uint8_t)(len >> 16), (uint8_t)(len >> 24) };
  fwrite(h, 1, 4, f);
  if (len) fwrite(data, 1, len, f);
}

static void fail(const char *name, const char *what) {
  failed++;
  if (failed <= 20) fprintf(stderr, "interop_dotnet: %s: %s\n", name, what);
}

/* One exchange: DIR/<bin> + DIR/<txt> in, DIR/<out> with our encodings.
** 'mode' compresses ours as the peer's options say (from the line's name). */
static void run(const char *dir, const char *bin, const char *txt, const char *out, int lz4) {
  char path[4096];
  size_t blen, tlen;
  snprintf(path, sizeof path, "%s/%s", dir, bin);
  uint8_t *b = slurp(path, &blen);
  snprintf(path, sizeof path, "%s/%s", dir, txt);
  char *lines = (char *)slurp(path, &tlen);
  if (b == NULL || lines == NULL) { fprintf(stderr, "interop_dotnet: no %s in %s\n", bin, dir); exit(2); }
  snprintf(path, sizeof path, "%s/%s", dir, out);
  FILE *o = fopen(path, "wb");
  if (o == NULL) { fprintf(stderr, "cannot write %s\n", path); exit(2); }

  size_t p = 0, identical = 0, count = 0;
  char *line = lines;
  text t = { 0 };
  while (p + 4 <= blen && line != NULL && *line) {
    uint32_t n = (uint32_t)b[p] | (uint32_t)b[p + 1] << 8 | (uint32_t)b[p + 2] << 16 | (uint32_t)b[p + 3] << 24;
    p += 4;
    const uint8_t *msg = b + p;
    p += n;
    char *next = strchr(line, '\n');
    if (next) *next++ = 0;
    /* name \t reasons \t strict \t loose */
    char *name = line, *reasons = strchr(name, '\t');
    char *strict = reasons ? strchr(reasons + 1, '\t') : NULL;
    char *loose = strict ? strchr(strict + 1, '\t') : NULL;
    line = next;
    count++;
    if (loose == NULL) { fail("?", "bad description line"); put_record(o, NULL, 0); continue; }
    *reasons++ = 0;
    *strict++ = 0;
    *loose++ = 0;

    sp_doc doc = { 0 };
    sp_value v;
    sp_error err;
    t.n = 0;
    if (sp_value_decode(msg, n, NULL, &doc, &v, &err) != SP_OK) {
      char m[160];
      snprintf(m, sizeof m, "decode failed: %s at %zu", sp_code_name(err.code), err.offset);
      fail(name, m);
      put_record(o, NULL, 0);
      sp_doc_free(&doc);
      continue;
    }
    render(&t, &v);
    if (strcmp(t.p, strict) != 0) {
      char m[400];
      snprintf(m, sizeof m, "reads as %.150s, C# wrote %.150s", t.p, strict);
      fail(name, m);
    } else {
      passed++;
    }
    /* Our encoding of the same tree (compressed as the name says, for LZ4). */
    sp_options opt = { 0 };
    if (lz4) {
      opt.compression = strstr(name, "Lz4BlockArray") ? SP_COMPRESSION_LZ4_BLOCK_ARRAY
                        : strstr(name, "Lz4Block") ? SP_COMPRESSION_LZ4_BLOCK : SP_COMPRESSION_NONE;
    }
    sp_bytes enc = { 0 };
    if (sp_to_array(sp_format_value, &v, &opt, &enc, &err) != SP_OK) {
      fail(name, sp_code_name(err.code));
      put_record(o, NULL, 0);
    } else {
      put_record(o, enc.data, enc.len);
      if (enc.len == n && (n == 0 || memcmp(enc.data, msg, n) == 0)) identical++;
      else if (!lz4 && strcmp(reasons, "-") == 0) fail(name, "bytes differ from C#'s smallest-form bytes");
    }
    sp_bytes_free(&enc);
    sp_doc_free(&doc);
  }
  fclose(o);
  free(t.p);
  free(b);
  free(lines);
  printf("interop_dotnet: %s: %zu messages from MessagePack-CSharp decoded; re-encoded byte-identical: %zu\n",
         bin, count, identical);
}

/* ---- the contracts of Peer/Contracts.cs --------------------------------- */

/* The structs and schemas are generated by `scratchpack gen-c` from
** tests/dotnet/contracts.json at build time (tests/c/CMakeLists.txt), the
** same file interop.mjs loads as JS contracts: one description, three
** implementations (C# classes, C schemas, JS contracts) to compare. */
#define SP_CONTRACTS_IMPLEMENTATION
#include "dotnet_contracts.h"

/* Each message of DIR/in into its schema's struct and encoded again (to
** DIR/out when out is not NULL): the bytes must be the message's. */
static void contracts(const char *dir, const char *in, const char *out) {
  char path[4096];
  size_t blen, tlen;
  snprintf(path, sizeof path, "%s/%s", dir, in);
  uint8_t *b = slurp(path, &blen);
  if (b == NULL) return;
  snprintf(path, sizeof path, "%s/contracts.txt", dir);
  char *lines = (char *)slurp(path, &tlen);
  FILE *o = NULL;
  if (out != NULL) {
    snprintf(path, sizeof path, "%s/%s", dir, out);
    o = fopen(path, "wb");
  }
  if (lines == NULL || (out != NULL && o == NULL)) { fprintf(stderr, "interop_dotnet: contracts files\n"); exit(2); }
  size_t p = 0, count = 0, identical = 0;
  char *line = lines;
  /* One struct per schema, decoded into again and again: the decode-into-existing path. */
  Record rec = { 0 };
  Person per = { 0 };
  while (p + 4 <= blen && line != NULL && *line) {
    uint32_t n = (uint32_t)b[p] | (uint32_t)b[p + 1] << 8 | (uint32_t)b[p + 2] << 16 | (uint32_t)b[p + 3] << 24;
    const uint8_t *msg = b + p + 4;
    char *next = strchr(line, '\n');
    if (next) *next++ = 0;
    char *name = line, *tab = strchr(line, '\t');
    line = next;
    if (tab) *tab = 0;
    count++;
    if (n == 0xffffffffu) { p += 4; fail(name, "the writer skipped it"); put_record(o, NULL, 0); continue; }
    p += 4 + (size_t)n;
    sp_schema *s = strncmp(name, "Record.", 7) == 0 ? &Record_schema
                   : strncmp(name, "Person.", 7) == 0 ? &Person_schema : NULL;
    void *obj = s == &Record_schema ? (void *)&rec : (void *)&per;
    sp_error err;
    sp_bytes enc = { 0 };
    sp_code c;
    if (s != NULL) {
      c = sp_schema_decode(s, msg, n, obj, 0, &err);
      if (c == SP_OK) c = sp_schema_to_array(s, obj, NULL, &enc, &err);
    } else {
      sp_doc doc = { 0 };
      sp_value v;
      c = sp_value_decode(msg, n, NULL, &doc, &v, &err);
      if (c == SP_OK) c = sp_to_array(sp_format_value, &v, NULL, &enc, &err);
      sp_doc_free(&doc);
    }
    if (c != SP_OK) {
      char m[200];
      snprintf(m, sizeof m, "%s at %zu %s", sp_code_name(err.code), err.offset, err.path);
      fail(name, m);
      put_record(o, NULL, 0);
      continue;
    }
    put_record(o, enc.data, enc.len);
    if (enc.len == n && memcmp(enc.data, msg, n) == 0) { identical++; passed++; }
    else fail(name, "the schema's bytes differ from the message read");
    sp_bytes_free(&enc);
  }
  sp_schema_release(&Record_schema, &rec);
  sp_schema_release(&Person_schema, &per);
  if (o != NULL) fclose(o);
  free(b);
  free(lines);
  printf("interop_dotnet: %s: %zu [MessagePackObject] messages decoded into C schemas (gen-c) and encoded again; "
         "byte-identical to the message read: %zu\n", in, count, identical);
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "--contracts") == 0) {   /* what JS's contracts wrote */
    contracts(argv[2], argv[3], NULL);
    sp_shutdown();
    printf("interop_dotnet: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
  }
  if (argc != 2) { fprintf(stderr, "usage: interop_dotnet DIR | interop_dotnet --contracts DIR FILE\n"); return 2; }
  run(argv[1], "cs.bin", "cs.txt", "c.bin", 0);
  char path[4096];
  snprintf(path, sizeof path, "%s/lz4.bin", argv[1]);
  FILE *f = fopen(path, "rb");
  if (f) { fclose(f); run(argv[1], "lz4.bin", "lz4.txt", "c-lz4.bin", 1); }
  contracts(argv[1], "contracts.bin", "c-contracts.bin");
  sp_shutdown();
  printf("interop_dotnet: %d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
