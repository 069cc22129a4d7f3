# Fails unless the document README names (README.md, or a file of docs/)
# contains the C file EXAMPLE verbatim, so the example in the documentation
# is the one that compiles and runs in ctest.
file(READ "${README}" readme)
file(READ "${EXAMPLE}" example)
string(FIND "${readme}" "${example}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${README} does not contain ${EXAMPLE} verbatim")
endif()
