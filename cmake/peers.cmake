# cmake/peers.cmake -- CWPack and mpack for the benchmarks that compare
# against them: bench/ natively, and bench/wasm_workloads.c in the WASI and
# Emscripten builds. Their unmodified sources (MIT) are compiled beside ours,
# never copied into the library. Found at $SP_PEERS, else ../shared/peers
# next to the checkout. Sets SP_PEERS_DIR and SP_PEER_SOURCES (empty when
# they are not there: the benchmarks then skip the peer rows and say so).
if(DEFINED ENV{SP_PEERS})
  set(SP_PEERS_DIR "$ENV{SP_PEERS}")
else()
  get_filename_component(SP_PEERS_DIR "${CMAKE_CURRENT_LIST_DIR}/../../shared/peers" ABSOLUTE)
endif()
set(SP_PEER_SOURCES "")
if(EXISTS "${SP_PEERS_DIR}/cwpack/cwpack.c" AND EXISTS "${SP_PEERS_DIR}/mpack/mpack-expect.c")
  file(GLOB SP_PEER_SOURCES "${SP_PEERS_DIR}/cwpack/cwpack.c" "${SP_PEERS_DIR}/mpack/mpack-*.c")
endif()

# sp_add_peers(<name> [compile options...]): the peers as a static library,
# compiled with the directory's flags plus the options given (those of the
# core it is measured beside). SYSTEM and -w: their warnings are theirs
# (-Werror applies to our code); neither changes the generated code. mpack in
# its release mode with ext and timestamps; its file helpers off, which no
# benchmark calls and which on wasm32-wasi would need errno as a thread-local.
function(sp_add_peers name)
  add_library(${name} STATIC EXCLUDE_FROM_ALL ${SP_PEER_SOURCES})
  target_include_directories(${name} SYSTEM PUBLIC "${SP_PEERS_DIR}/cwpack" "${SP_PEERS_DIR}/mpack")
  target_compile_options(${name} PRIVATE -w ${ARGN})
  target_compile_definitions(${name} PUBLIC MPACK_EXTENSIONS=1 MPACK_DEBUG=0 MPACK_STDIO=0 SP_BENCH_PEERS=1)
endfunction()
