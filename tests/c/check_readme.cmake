# Fails unless README.md contains tests/c/readme_example.c verbatim, so the
# example in the README is the one that compiles and runs in ctest.
file(READ "${README}" readme)
file(READ "${EXAMPLE}" example)
string(FIND "${readme}" "${example}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "README.md does not contain tests/c/readme_example.c verbatim")
endif()
