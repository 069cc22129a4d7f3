/*
** fuzz.h -- what every libFuzzer target in tests/fuzz shares.
**
** A target is one file, tests/fuzz/fuzz_<name>.c, defining
** LLVMFuzzerTestOneInput; run.sh builds and runs every such file. Optional:
** seed inputs in tests/fuzz/seeds/<name>/ (small: they are committed), and
** a line "** fuzz-args: <libFuzzer flags>" in the file's header comment.
** Every target links the C core (built with ASan, UBSan and coverage) and
** liblz4, for differential checks.
*/
#ifndef SP_FUZZ_H
#define SP_FUZZ_H

#include <stdio.h>
#include <stdlib.h>

/* A property that must hold: abort (and so report the input) when not. */
#define FUZZ_ASSERT(c)                                                    \
  do {                                                                    \
    if (!(c)) {                                                           \
      fprintf(stderr, "fuzz: %s:%d: %s does not hold\n", __FILE__, __LINE__, #c); \
      abort();                                                            \
    }                                                                     \
  } while (0)

#endif
