/*
** sp_str16.c -- str from UTF-16 code units (JS and .NET strings).
** Owns: UTF-16 -> UTF-8 transcoding and the header guess. Must not touch:
** the writer's modes (it only reserves and advances).
*/
#include <string.h>

#include "sp_writer.h"

/* Up to this many units the worst case (3 bytes a unit + 5) is reserved in
** one piece and the header guessed; the reservation stays under the 32 KiB
** segment a sequence rents, so it never forces an odd-size segment. */
#define GUESS_MAX_UNITS 8192
#define CHUNK_UNITS 4096

static int is_high(uint16_t c) { return c >= 0xd800 && c <= 0xdbff; }
static int is_low(uint16_t c) { return c >= 0xdc00 && c <= 0xdfff; }

/* Encodes n units at dst (room for 3n bytes); returns the bytes written. */
static size_t encode_utf8(uint8_t *dst, const uint16_t *u, size_t n) {
  uint8_t *d = dst;
  for (size_t i = 0; i < n; i++) {
    uint32_t c = u[i];
    if (c < 0x80) { *d++ = (uint8_t)c; continue; }
    if (c < 0x800) {
      *d++ = (uint8_t)(0xc0 | (c >> 6));
      *d++ = (uint8_t)(0x80 | (c & 0x3f));
      continue;
    }
    if (is_high((uint16_t)c) && i + 1 < n && is_low(u[i + 1])) {
      c = 0x10000 + ((c - 0xd800) << 10) + (u[++i] - 0xdc00u);
      *d++ = (uint8_t)(0xf0 | (c >> 18));
      *d++ = (uint8_t)(0x80 | ((c >> 12) & 0x3f));
    } else {
      if (is_high((uint16_t)c) || is_low((uint16_t)c)) c = 0xfffd;   /* lone surrogate */
      *d++ = (uint8_t)(0xe0 | (c >> 12));
    }
    *d++ = (uint8_t)(0x80 | ((c >> 6) & 0x3f));
    *d++ = (uint8_t)(0x80 | (c & 0x3f));
  }
  return (size_t)(d - dst);
}

/* UTF-8 length of n units, counting as encode_utf8 does. */
static uint64_t utf8_length(const uint16_t *u, size_t n) {
  uint64_t len = 0;
  for (size_t i = 0; i < n; i++) {
    uint16_t c = u[i];
    if (c < 0x80) len += 1;
    else if (c < 0x800) len += 2;
    else if (is_high(c) && i + 1 < n && is_low(u[i + 1])) { len += 4; i++; }
    else len += 3;
  }
  return len;
}

static void write_guessed(sp_writer *w, const uint16_t *u, size_t n) {
  uint8_t *p = sp_writer_reserve(w, 3 * n + 5);
  size_t guess = sp_str_header_size((uint32_t)n), bytes, real;   /* n <= GUESS_MAX_UNITS */
  if (p == NULL) return;
  bytes = encode_utf8(p + guess, u, n);
  real = sp_str_header_size((uint32_t)bytes);                     /* bytes <= 3n */
  if (real != guess) memmove(p + real, p + guess, bytes);   /* only ever forward */
  sp_put_str_header(p, (uint32_t)bytes);
  w->cur = p + real + bytes;
}

static void write_counted(sp_writer *w, const uint16_t *u, size_t n) {
  uint64_t bytes = utf8_length(u, n);
  if (bytes > 0xffffffffu) {
    sp_writer_fail(w, SP_E_LENGTH_LIMIT, "str longer than 2^32-1 bytes", __func__);
    return;
  }
  sp_write_str_header(w, (uint32_t)bytes);
  for (size_t i = 0; i < n;) {
    size_t k = sp_writer_fit(w, n - i < CHUNK_UNITS ? n - i : CHUNK_UNITS, 3);
    uint8_t *p;
    if (i + k < n && is_high(u[i + k - 1])) {   /* keep a pair in one chunk */
      if (k > 1) k--;
      else if (is_low(u[i + 1])) k = 2;
    }
    if ((p = sp_writer_reserve(w, 3 * k)) == NULL) return;
    w->cur = p + encode_utf8(p, u + i, k);
    i += k;
  }
}

/* Whether the guess's worst case may be reserved at once: a caller's
** output whose span has less room takes the counted way instead, in
** chunks of what fits (sp_writer_fit), so a fixed output fills. */
static int guess_fits(const sp_writer *w, size_t n) {
  size_t worst = 3 * n + 5;
  return w->mode != SP_MODE_OUTPUT || worst <= (size_t)(w->end - w->cur) || worst <= SP_WRITER_STAGE;
}

void sp_write_str_utf16(sp_writer *w, const uint16_t *units, size_t n) {
  if (n <= GUESS_MAX_UNITS && guess_fits(w, n)) write_guessed(w, units, n);
  else write_counted(w, units, n);
}
