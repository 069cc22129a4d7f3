/*
** scratchpack.h -- the public API in one include.
** A MessagePack serializer with MessagePack-CSharp's memory architecture:
** a per-thread scratch, one-way migration to pooled segments, three entries
** through one hub, and counters that prove what each call allocated.
*/
#ifndef SCRATCHPACK_H
#define SCRATCHPACK_H

#include "sp_alloc.h"
#include "sp_bulk.h"
#include "sp_error.h"
#include "sp_lz4.h"
#include "sp_observer.h"
#include "sp_output.h"
#include "sp_pool.h"
#include "sp_reader.h"
#include "sp_schema.h"
#include "sp_sequence.h"
#include "sp_serialize.h"
#include "sp_value.h"
#include "sp_writer.h"

#define SP_VERSION "0.1.0"

#endif
