/*
** sp_error.c -- names, formatting and element paths of sp_error.
** Owns: error text. Must not touch: who raises errors.
*/
#include <stdio.h>
#include <string.h>

#include "sp_error.h"

/* Indexed by code, so a code added to the enum without a name here reads
** "SP_E_UNKNOWN" instead of another code's name. */
static const char *const names[] = {
  [SP_OK] = "SP_OK",
  [SP_E_NOMEM] = "SP_E_NOMEM",
  [SP_E_INVALID_ARGUMENT] = "SP_E_INVALID_ARGUMENT",
  [SP_E_CANCELLED] = "SP_E_CANCELLED",
  [SP_E_LENGTH_LIMIT] = "SP_E_LENGTH_LIMIT",
  [SP_E_VALUE_RANGE] = "SP_E_VALUE_RANGE",
  [SP_E_BUFFER_TOO_SMALL] = "SP_E_BUFFER_TOO_SMALL",
  [SP_E_SINK] = "SP_E_SINK",
  [SP_E_CALLBACK] = "SP_E_CALLBACK",
  [SP_E_TRUNCATED] = "SP_E_TRUNCATED",
  [SP_E_MALFORMED] = "SP_E_MALFORMED",
  [SP_E_TYPE] = "SP_E_TYPE",
  [SP_E_DEPTH_LIMIT] = "SP_E_DEPTH_LIMIT",
  [SP_E_OVERFLOW] = "SP_E_OVERFLOW",
  [SP_E_TRAILING_BYTES] = "SP_E_TRAILING_BYTES",
};

const char *sp_code_name(sp_code code) {
  if ((unsigned)code < sizeof names / sizeof names[0] && names[code]) return names[code];
  return "SP_E_UNKNOWN";
}

int sp_error_is_cancelled(const sp_error *e) {
  return e->code == SP_E_CANCELLED || e->inner == (int)SP_E_CANCELLED;
}

char *sp_error_format(const sp_error *e, char *buf, size_t size) {
  if (size == 0) return buf;
  snprintf(buf, size, "%s: %s (%s) at %s%s, byte %zu", sp_code_name(e->code),
           e->cause ? e->cause : "no cause", e->site ? e->site : "?",
           e->path[0] ? "" : "top level", e->path, e->offset);
  return buf;
}

/* Puts 'seg' (n bytes) in front of the path. When it does not fit, the
** path keeps its tail (the innermost, most telling part) and the outer
** segment is left out. */
static void path_prepend(sp_error *e, const char *seg, size_t n) {
  size_t old = strlen(e->path);
  if (old + n >= SP_PATH_MAX) return;
  memmove(e->path + n, e->path, old);
  memcpy(e->path, seg, n);
  e->path[n + old] = '\0';
}

void sp_error_path_index(sp_error *e, size_t index) {
  char seg[24];
  int n = snprintf(seg, sizeof seg, "[%zu]", index);
  path_prepend(e, seg, (size_t)n);
}

void sp_error_path_key(sp_error *e, const char *key, size_t len) {
  char seg[40];
  size_t n;
  if (len > sizeof seg - 2) len = sizeof seg - 2;
  seg[0] = '.';
  memcpy(seg + 1, key, len);
  n = len + 1;
  path_prepend(e, seg, n);
}
