/*
 * kern_half.c: FP16 / BF16 <-> float by bit manipulation (see kern_half.h).
 */
#include "kernels/kern_half.h"

#include <pthread.h>
#include <string.h>

/* Round a float to the nearest FP16 (ties to even; overflow to infinity). */
uint16_t kern_f32_to_f16(float f) {
    return kern_f32_to_f16_inline(f);
}

/* Widen an FP16 bit pattern to float (exact). */
float kern_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu, x;
    float f;
    if (e == 0) {
        f = (float)m * 0x1p-24f; /* zero or subnormal, exact in float */
        return sign ? -f : f;
    }
    if (e == 31)
        x = sign | 0x7f800000u | (m << 13);
    else
        x = sign | ((e + 112u) << 23) | (m << 13);
    memcpy(&f, &x, sizeof f);
    return f;
}

/* Widen a BF16 bit pattern to float (exact). */
float kern_bf16_to_f32(uint16_t h) {
    uint32_t x = (uint32_t)h << 16;
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

/* Round a float to the nearest BF16 (ties to even; NaN stays NaN). */
uint16_t kern_f32_to_bf16(float f) {
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40u);
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

static float f16_table[65536];
static pthread_once_t f16_once = PTHREAD_ONCE_INIT;

/* Fill the FP16 -> float table. */
static void f16_table_build(void) {
    for (uint32_t i = 0; i < 65536u; i++)
        f16_table[i] = kern_f16_to_f32((uint16_t)i);
}

/* The 65536-entry FP16 -> float table, built once. */
const float *kern_f16_table(void) {
    pthread_once(&f16_once, f16_table_build);
    return f16_table;
}

/* Convert n FP16 values to float through the table. */
void kern_f16_to_f32_n(const uint16_t *in, float *out, size_t n) {
    const float *t = kern_f16_table();
    for (size_t i = 0; i < n; i++)
        out[i] = t[in[i]];
}
