/*
 * fuzz_gguf.c: libFuzzer target for the GGUF header reader and the model it
 * gives (`make fuzz-gguf`). Any input must be parsed or refused with a
 * message naming a byte; ASan/UBSan catch the rest. Seeds: the files
 * tests/gguf_write.py writes (tests/test_model_file.sh's kinds).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "catalog/gguf.h"
#include "catalog/modelfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static struct engine_model m;
    static struct catalog_model_file mf;
    char err[512];
    if (catalog_model_file_buffer("fuzz.gguf", data, size, &m, &mf, err, sizeof err) != 0) {
        if (strncmp(err, "fuzz.gguf: ", 11) != 0)
            __builtin_trap();
        return 0;
    }
    char mix[256];
    catalog_model_file_mix(&mf, mix, sizeof mix);
    return 0;
}
