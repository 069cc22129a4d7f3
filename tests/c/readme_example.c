#include <stdio.h>
#include <string.h>
#include "scratchpack.h"

/* A formatter for your own struct: write its fields with sp_write_*. */
typedef struct small { int id; const char *name; } small;

static int small_format(sp_writer *w, const void *value) {
  const small *s = value;
  sp_write_array_header(w, 2);             /* int keys -> [Id, Name] */
  sp_write_int(w, s->id);
  sp_write_str(w, s->name, strlen(s->name));
  return 0;                                 /* errors stick in the writer */
}

int main(void) {
  small s = {1, "hello"};
  sp_bytes bytes;
  sp_error err;

  /* 1. to_array: the thread's 64 KiB scratch, then one exact-size result. */
  if (sp_to_array(small_format, &s, NULL, &bytes, &err) != SP_OK) {
    char text[160];
    fprintf(stderr, "%s\n", sp_error_format(&err, text, sizeof text));
    return 1;
  }
  for (size_t i = 0; i < bytes.len; i++) printf("%02X ", bytes.data[i]);
  printf("\n");                             /* 92 01 A5 68 65 6C 6C 6F */
  int ok = bytes.len == 8;
  sp_bytes_free(&bytes);                    /* the result is yours to free */

  /* 2. to_output: into a buffer you keep; no allocation once it has grown. */
  sp_buffer buf;
  sp_buffer_init(&buf);
  sp_output out = sp_buffer_output(&buf);
  sp_value pairs[4] = {sp_str("Id"), sp_int(1), sp_str("Name"), sp_str("hello")};
  sp_value map = sp_map(pairs, 2);          /* or a dynamic value tree */
  ok = ok && sp_to_output(&out, sp_format_value, &map, NULL, &err) == SP_OK;
  printf("%zu bytes\n", buf.len);           /* 16 bytes */
  sp_buffer_free(&buf);

  sp_shutdown();                            /* optional: free the shared pools */
  return ok ? 0 : 1;
}
