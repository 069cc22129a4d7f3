/*
** sp_abi.h -- how a WebAssembly module tells JS the layout of the records
** it shares with it. Owns: the layout table's entry (sp_abi_entry) and the
** macros that fill one from offsetof/sizeof, so that every offset JS uses
** is computed by the compiler of the build that JS loads (wasm32 layouts
** differ from native ones). Must not touch: what any record means -- each
** module lists its own records (wasm/package/sp_wasm_abi.c,
** wasm/flows/sp_flows_abi.c); js/abi.js is the one reader.
**
** A table is an array of entries ended by one whose name is NULL:
**   "task"          the record's size in bytes        (SP_ABI_RECORD)
**   "task.state"    a field's offset and size          (SP_ABI_FIELD)
**   "const.x"       a number JS compares with          (SP_ABI_CONST)
** A field of a nested struct is named by its path ("stats.pool.rents").
** JS reads the table itself at fixed offsets: the one layout it cannot be
** told, pinned by the assert below.
*/
#ifndef SP_ABI_H
#define SP_ABI_H

#include <stddef.h>
#include <stdint.h>

typedef struct sp_abi_entry {
  const char *name;           /* NUL-terminated ASCII; NULL ends the table */
  uint32_t offset;            /* a field's offset, a record's 0, a constant's value */
  uint32_t size;              /* a field's or a record's size; 0 for a constant */
} sp_abi_entry;

_Static_assert(sizeof(void *) == 4 && sizeof(sp_abi_entry) == 12 && offsetof(sp_abi_entry, offset) == 4 &&
               offsetof(sp_abi_entry, size) == 8, "js/abi.js reads each entry as three uint32");

#define SP_ABI_RECORD(name, type) {name, 0, (uint32_t)sizeof(type)}
#define SP_ABI_FIELD(record, type, member) \
  {record "." #member, (uint32_t)offsetof(type, member), (uint32_t)sizeof(((type *)0)->member)}
#define SP_ABI_CONST(name, value) {"const." name, (uint32_t)(value), 0}
#define SP_ABI_END {NULL, 0, 0}

#endif
