/*
** sp_wasi.c -- the C core as a WASI reactor for non-JS WebAssembly hosts.
** Owns: the exported entry points below (wasm/wasi/exports.txt lists them:
** the link exports what it names, nothing else) and the handles they use.
** Must not touch: encodings (it calls sp_write_*), the entries' insides (a
** handle is a to_array entry of sp_serialize.h) or pool internals.
**
** A host (wasmtime, wasmer, WAMR, node:wasi, ...) instantiates
** scratchpack-wasi.wasm with WASI preview 1, calls _initialize once, then:
**
**   p = sp_alloc(n)                    memory for the host's strings/arrays
**   h = sp_w_new()                     a to_array writer: 64 KiB scratch, then
**                                      pooled segments (0 on no memory)
**   sp_w_array(h, 2); sp_w_int(h, 1); sp_w_str(h, p, 5); ...
**   sp_w_numeric(h, kind, p, n)        a whole numeric array (kinds below)
**   r = sp_w_finish(h)                 the message: r is the caller's, of
**   len = sp_w_result_len(h)           length len, freed with sp_free_bytes(r, len)
**   sp_w_free(h)                       always, also after an error
**
** Errors are sticky: after the first one every call does nothing, and
** sp_w_finish returns 0; sp_w_error(h) is its sp_code, sp_w_cause(h) a
** NUL-terminated static string. 64-bit arguments are i64 in the ABI.
** Kinds for sp_w_numeric: 0 i8, 1 u8, 2 i16, 3 u16, 4 i32, 5 u32, 6 f32,
** 7 f64, 8 i64, 9 u64 -- the same numbering as the JS build.
*/
#include <stdint.h>
#include <string.h>

#include "scratchpack.h"

typedef struct sp_handle {
  sp_entry e;
  sp_bytes result;
} sp_handle;

void *sp_alloc(size_t n) { return sp_malloc(n ? n : 1); }
void sp_dealloc(void *p, size_t n) { sp_free(p, n ? n : 1); }
void sp_free_bytes(uint8_t *p, size_t n) {
  sp_bytes b = {p, n};
  sp_bytes_free(&b);
}

/* A to_array entry: this thread's scratch, or a pooled sequence when a
** writer made earlier still holds the scratch. NULL on no memory for the
** handle; no memory for the scratch is the handle's sticky error. */
sp_handle *sp_w_new(void) {
  sp_handle *h = sp_malloc(sizeof *h);
  if (h == NULL) return NULL;
  memset(&h->result, 0, sizeof h->result);
  sp_entry_begin_array(&h->e, NULL);
  return h;
}

void sp_w_nil(sp_handle *h) { sp_write_nil(&h->e.w); }
void sp_w_bool(sp_handle *h, int b) { sp_write_bool(&h->e.w, b); }
void sp_w_int(sp_handle *h, int64_t v) { sp_write_int(&h->e.w, v); }
void sp_w_uint(sp_handle *h, uint64_t v) { sp_write_uint(&h->e.w, v); }
void sp_w_f32(sp_handle *h, float v) { sp_write_float(&h->e.w, v); }
void sp_w_f64(sp_handle *h, double v) { sp_write_double(&h->e.w, v); }
void sp_w_str(sp_handle *h, const char *p, size_t n) { sp_write_str(&h->e.w, p, n); }
void sp_w_bin(sp_handle *h, const void *p, size_t n) { sp_write_bin(&h->e.w, p, n); }
void sp_w_array(sp_handle *h, uint32_t n) { sp_write_array_header(&h->e.w, n); }
void sp_w_map(sp_handle *h, uint32_t n) { sp_write_map_header(&h->e.w, n); }
void sp_w_ext(sp_handle *h, int type, const void *p, size_t n) {
  sp_write_ext(&h->e.w, (int8_t)type, p, n);
}
void sp_w_timestamp(sp_handle *h, int64_t sec, uint32_t nsec) {
  sp_write_timestamp(&h->e.w, sec, nsec);
}

void sp_w_numeric(sp_handle *h, int kind, const void *p, size_t n) {
  sp_write_numeric_array(&h->e.w, (sp_num_kind)kind, p, n);
}

/* The message in one exact-size block the caller owns (sp_free_bytes), or
** NULL after an error. The entry ends: its scratch / sequence go back. */
uint8_t *sp_w_finish(sp_handle *h) {
  if (sp_entry_finish(&h->e) == SP_OK) sp_entry_copy(&h->e, &h->result);
  return sp_entry_end(&h->e, NULL) == SP_OK ? h->result.data : NULL;
}

size_t sp_w_result_len(const sp_handle *h) { return h->result.len; }
int sp_w_error(const sp_handle *h) { return (int)h->e.w.err.code; }
const char *sp_w_cause(const sp_handle *h) {
  return h->e.w.err.cause ? h->e.w.err.cause : "";
}

/* Frees the handle (not the result, which is the caller's). */
void sp_w_free(sp_handle *h) {
  if (h == NULL) return;
  sp_entry_end(&h->e, NULL);
  sp_free(h, sizeof *h);
}

/* Bytes allocated and not yet freed by the core (for leak checks). */
int64_t sp_live_bytes(void) { return sp_alloc_live_bytes(); }
