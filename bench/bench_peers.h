/*
** bench_peers.h -- CWPack and mpack for the native benchmarks: their headers
** when bench/CMakeLists.txt found their sources (it defines SP_BENCH_PEERS
** and SP_PEERS_DIR), else SP_BENCH_PEERS 0 and the benchmarks skip them.
*/
#ifndef SP_BENCH_PEERS_H
#define SP_BENCH_PEERS_H

#ifndef SP_BENCH_PEERS
#define SP_BENCH_PEERS 0
#endif
#ifndef SP_PEERS_DIR
#define SP_PEERS_DIR "../shared/peers"
#endif
#if SP_BENCH_PEERS
#include <cwpack.h>
#include <mpack.h>
#endif

#endif
