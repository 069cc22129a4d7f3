# wasm/wasi/toolchain.cmake -- clang's wasm32-wasi target over Debian's
# wasi-libc. CMAKE_SYSROOT is a folder of two symlinks made by
# tests/build-wasi.sh (using /usr as the sysroot would also search the
# host's own headers and pick up glibc's pthread.h).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR wasm32)
set(CMAKE_C_COMPILER clang)
set(CMAKE_C_COMPILER_TARGET wasm32-wasi)
set(CMAKE_EXECUTABLE_SUFFIX ".wasm")
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
