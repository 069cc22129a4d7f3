/*
** sp_error.h -- the one error value every scratchpack call reports.
** Owns: error codes, the error struct, its formatting. Must not touch:
** writers, readers, pools (they fill an sp_error; this file only describes it).
*/
#ifndef SP_ERROR_H
#define SP_ERROR_H

#include <stddef.h>

/* The codes. Their numbers are stable: the WASM builds hand them to JS and
** to WASI hosts as they are. The JS package names each one the same without
** "SP_E_" (js/errors.js, checked against this enum by tests/js/vocabulary.test.js);
** the README's error table lists them with JS's own codes. */
typedef enum sp_code {
  SP_OK = 0,
  SP_E_NOMEM = 1,             /* the allocation hook returned NULL */
  SP_E_INVALID_ARGUMENT = 2,  /* API used against its contract: a bad argument or schema
                                 table, an unknown kind, a wrong-size return */
  SP_E_CANCELLED = 3,         /* the caller's cancel flag was set; never wrapped into another code */
  SP_E_LENGTH_LIMIT = 4,      /* a length the format cannot carry (> 2^32-1), or, decoding,
                                 more than the target holds or a decode's budget allows */
  SP_E_VALUE_RANGE = 5,       /* a value the format cannot carry (timestamp nanoseconds >= 10^9,
                                 an unknown value kind) */
  SP_E_BUFFER_TOO_SMALL = 6,  /* the caller's buffer writer gave no or too small a span */
  SP_E_SINK = 7,              /* the to_stream sink reported failure; 'inner' holds its code */
  SP_E_CALLBACK = 8,          /* a user formatter or ext handler failed; 'inner' holds its code */
  SP_E_TRUNCATED = 9,         /* decoding: input ended inside a token, or before what a
                                 header (array, map, str, bin, ext) announces */
  SP_E_MALFORMED = 10,        /* decoding: 0xc1, or a timestamp that is not ext -1 of 4/8/12
                                 bytes with nanoseconds < 10^9 */
  SP_E_TYPE = 11,             /* decoding: a different type than asked for */
  SP_E_DEPTH_LIMIT = 12,      /* nesting deeper than the limit (decoding, or encoding a tree) */
  SP_E_OVERFLOW = 13,         /* decoding: a value does not fit the narrower target */
  SP_E_TRAILING_BYTES = 14    /* decoding a whole input: bytes left after the value */
} sp_code;

#define SP_PATH_MAX 96  /* bytes kept of an element path; longer paths keep their tail */

/* An error: what happened (code), what caused it (inner: the code a user
** callback or sink returned, or the code of a wrapped failure), where
** (offset in bytes for decoding, element path for encoding) and the
** function that found it (site). 'cause' and 'site' are static strings. */
typedef struct sp_error {
  sp_code code;
  int inner;
  const char *cause;
  const char *site;
  size_t offset;
  char path[SP_PATH_MAX];   /* "" or e.g. "[2].tags[1]"; NUL-terminated */
} sp_error;

/* Static name of a code, e.g. "SP_E_TRUNCATED". Never NULL. */
const char *sp_code_name(sp_code code);

/* True when the error is a cancellation, directly or as the inner cause. */
int sp_error_is_cancelled(const sp_error *e);

/* Writes "CODE: cause (site) at path/offset" into buf (always NUL-terminated
** when size > 0). Returns buf. */
char *sp_error_format(const sp_error *e, char *buf, size_t size);

/* Prepends an element path segment ("[3]" or ".name") while an error
** unwinds through containers. Keeps the tail if the path grows too long. */
void sp_error_path_index(sp_error *e, size_t index);
void sp_error_path_key(sp_error *e, const char *key, size_t len);

#endif
