# cmake/sp_core.cmake -- the one definition of the C core, included by every
# build of it (native: the root CMakeLists.txt; Emscripten: wasm/; WASI:
# wasm/wasi/; libFuzzer: tests/fuzz/). Each build adds its own flags to the
# targets these functions make; none lists sources of its own.
#
# The core's layers, lowest first: a file may use the layers before its own,
# never those after it (src/README.md says what each owns).
set(SP_CORE_LAYERS base pool sequence writer reader bulk compress serialize value schema)
set(SP_SRC_DIR ${CMAKE_CURRENT_LIST_DIR}/../src)

set(SP_CORE_SOURCES "")
foreach(layer ${SP_CORE_LAYERS})
  file(GLOB layer_sources CONFIGURE_DEPENDS ${SP_SRC_DIR}/${layer}/*.c)
  list(APPEND SP_CORE_SOURCES ${layer_sources})
endforeach()
# The tracing observer is not part of the core: the page's modules and the
# tests that watch an entry link it (sp_add_trace).
file(GLOB SP_TRACE_SOURCES CONFIGURE_DEPENDS ${SP_SRC_DIR}/trace/*.c)

# sp_add_core(name): the core as a static library. Users include the public
# headers (src/include); the core's files reach each other's internal
# headers by layer ("base/sp_thread.h").
function(sp_add_core name)
  add_library(${name} STATIC ${SP_CORE_SOURCES})
  target_include_directories(${name} PUBLIC ${SP_SRC_DIR}/include PRIVATE ${SP_SRC_DIR})
endfunction()

# sp_add_trace(name core): the tracing observer (sp_trace.h) over 'core'.
function(sp_add_trace name core)
  add_library(${name} STATIC ${SP_TRACE_SOURCES})
  target_include_directories(${name} PUBLIC ${SP_SRC_DIR}/trace PRIVATE ${SP_SRC_DIR})
  target_link_libraries(${name} PUBLIC ${core})
endfunction()
