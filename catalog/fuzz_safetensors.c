/*
 * fuzz_safetensors.c: libFuzzer target for the safetensors header parser
 * and the JSON layer under it (jansson through catalog/json.c), also as the reader of a
 * config.json's quantization_config. Build and run with `make fuzz`
 * (clang -fsanitize=fuzzer,address,undefined). Every input must be either
 * rejected with a message or accepted with all tensors inside the buffer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/hfmodel.h"
#include "catalog/safetensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One fuzz input: parse, then touch every accepted tensor's bytes. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char qerr[512];
    /* The same bytes as a config.json and a quantize_config.json. */
    struct catalog_hf_quant q;
    catalog_hf_quant_parse("fuzz", (const char *)data, size, 1, &q, qerr, sizeof qerr);
    catalog_hf_quant_parse("fuzz", (const char *)data, size, 0, &q, qerr, sizeof qerr);
    /* copy into an exact-size heap block so ASan sees any read past the end;
     * an input starting with '{' is taken as the header itself, framed with
     * its true length and 64 data bytes, so mutations reach the JSON checks */
    size_t extra = size && data[0] == '{' ? 8 + 64 : 0;
    uint8_t *buf = malloc(size + extra ? size + extra : 1);
    if (!buf)
        return 0;
    if (extra) {
        for (int i = 0; i < 8; i++)
            buf[i] = (uint8_t)((uint64_t)size >> (8 * i));
        memcpy(buf + 8, data, size);
        memset(buf + 8 + size, 0x3c, 64);
        size += extra;
    } else {
        memcpy(buf, data, size);
    }
    struct kern_st_file f;
    char err[512];
    if (kern_st_parse(buf, size, &f, err, sizeof err) == 0) {
        volatile uint8_t sink = 0;
        for (size_t i = 0; i < f.n; i++) {
            const struct kern_st_tensor *t = &f.tensors[i];
            if (t->end > t->begin) {
                sink ^= t->data[0];
                sink ^= t->data[t->end - t->begin - 1];
            }
            float v[4];
            size_t n = t->elements < 4 ? (size_t)t->elements : 4;
            kern_st_read_f32(t, t->elements - n, n, v);
        }
        (void)sink;
        kern_st_close(&f);
    }
    free(buf);
    return 0;
}
