/* The C example of docs/extensions.md: a point as ext 7, both ways. */
#include <stdio.h>
#include <string.h>

#include "scratchpack.h"

typedef struct point { uint8_t x, y; } point;

static int point_encode(void *ctx, const void *obj, sp_ext_data *out) {
  const point *p = obj;
  (void)ctx;
  out->buf[0] = p->x;                             /* up to SP_EXT_INLINE bytes here, */
  out->buf[1] = p->y;                             /* or point out->ptr at your own */
  out->ptr = out->buf;
  out->len = 2;
  return 0;
}

static int point_decode(void *ctx, const uint8_t *data, uint32_t len, sp_doc *doc, const void **obj) {
  point *p;
  (void)ctx;
  if (len != 2) return 1;                         /* SP_E_CALLBACK, err.inner 1 */
  if ((p = sp_doc_alloc(doc, sizeof *p)) == NULL) return SP_E_NOMEM;
  p->x = data[0];
  p->y = data[1];
  *obj = p;                                       /* the document owns it */
  return 0;
}

static const sp_ext_handler point_ext = {7, point_encode, point_decode, NULL};

int main(void) {
  static const uint8_t want[] = {0x92, 0xd5, 7, 1, 2, 0xa1, 'a'};
  point a = {1, 2};
  sp_value items[2] = {sp_ext_obj(&point_ext, &a), sp_str("a")};
  sp_value v = sp_array(items, 2), back;
  sp_decode_options opt = {0};
  sp_doc doc = {0};
  sp_bytes bytes;
  const point *p;
  if (sp_to_array(sp_format_value, &v, NULL, &bytes, NULL) != SP_OK) return 1;
  if (bytes.len != sizeof want || memcmp(bytes.data, want, sizeof want) != 0) return 1;
  opt.ext = &point_ext;                           /* an array of handlers */
  opt.ext_count = 1;
  if (sp_value_decode(bytes.data, bytes.len, &opt, &doc, &back, NULL) != SP_OK) return 1;
  p = back.as.array.items[0].as.ext_obj.obj;      /* kind SP_EXT_OBJ, handler &point_ext */
  if (p->x != 1 || p->y != 2) return 1;
  printf("point %d,%d\n", p->x, p->y);            /* point 1,2 */
  sp_doc_free(&doc);                              /* the tree and the point */
  sp_bytes_free(&bytes);
  return 0;
}
