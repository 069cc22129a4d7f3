# cmake/liblz4.cmake -- finds the reference LZ4 library, Debian's liblz4-dev
# (lz4.h, lz4hc.h, liblz4), which the LZ4 interop test (tests/c), bench_lz4
# (bench/) and the fuzz targets (tests/fuzz) check sp_lz4 against.
# Sets LZ4_LIB and LZ4_INCLUDE, or stops with what to install.
find_library(LZ4_LIB NAMES lz4 DOC "liblz4, the reference LZ4 implementation")
find_path(LZ4_INCLUDE NAMES lz4hc.h DOC "the directory holding lz4.h and lz4hc.h")
if(NOT LZ4_LIB OR NOT LZ4_INCLUDE)
  message(FATAL_ERROR "liblz4 not found (library='${LZ4_LIB}', headers='${LZ4_INCLUDE}'): "
          "apt-get install -y liblz4-dev (tests/setup.sh does), or pass -DLZ4_LIB= and -DLZ4_INCLUDE=")
endif()
