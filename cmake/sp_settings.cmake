# cmake/sp_settings.cmake -- the settings every build of the C core and its
# programs shares: C11 without extensions, every warning an error, Release
# unless the build was told otherwise. Included right after project() by
# the native (root CMakeLists.txt), Emscripten (wasm/) and WASI (wasm/wasi/)
# builds; each adds its own optimisation and target flags after it. Not the
# fuzz build's (tests/fuzz/): its flags are -O1 -g with assert() kept, which
# a Release default would override.
set(CMAKE_C_STANDARD 11)
set(CMAKE_C_STANDARD_REQUIRED ON)
set(CMAKE_C_EXTENSIONS OFF)
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE Release)
endif()
add_compile_options(-Wall -Wextra -Werror)
