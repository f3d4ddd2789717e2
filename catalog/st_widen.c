/*
 * st_widen.c: a safetensors tensor's values widened to float (`quantize`
 * reads them). Apart from the header reader (safetensors.c) so that what
 * reads only headers (--model-file) does not link the half-precision
 * tables of kernels/kern_half.c.
 */
#include <string.h>

#include "catalog/safetensors.h"
#include "kernels/kern_half.h"

/* Widen n elements starting at i0 to float (memcpy: data may be unaligned). */
int kern_st_read_f32(const struct kern_st_tensor *t, uint64_t i0, size_t n, float *out) {
    if (i0 > t->elements || n > t->elements - i0)
        return -1;
    const uint8_t *p = t->data + i0 * kern_st_dtype_size(t->dtype);
    switch (t->dtype) {
    case KERN_ST_F32:
        memcpy(out, p, n * sizeof(float));
        return 0;
    case KERN_ST_F16: {
        const float *tab = kern_f16_table();
        for (size_t i = 0; i < n; i++) {
            uint16_t h;
            memcpy(&h, p + 2 * i, 2);
            out[i] = tab[h];
        }
        return 0;
    }
    case KERN_ST_BF16:
        for (size_t i = 0; i < n; i++) {
            uint16_t h;
            memcpy(&h, p + 2 * i, 2);
            out[i] = kern_bf16_to_f32(h);
        }
        return 0;
    default:
        return -1;
    }
}
