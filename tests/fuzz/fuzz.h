/* The libFuzzer entry point every tests/fuzz/fuzz_<name>.c defines. */
#ifndef KB_FUZZ_H
#define KB_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
