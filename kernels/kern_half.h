/*
 * kern_half.h: IEEE 754 binary16 (FP16) and bfloat16 conversions, our own.
 *
 * FP16: 1 sign, 5 exponent (bias 15), 10 mantissa bits; largest finite
 * 65504, smallest subnormal 2^-24. BF16: the top 16 bits of a binary32.
 * Float -> half rounds to nearest, ties to even (IEEE 754-2019 4.3.1), as
 * the CUDA intrinsic __float2half_rn does, so CPU and GPU agree bit for bit.
 * Valid C and C++ (the CUDA backend includes it).
 */
#ifndef VRAMLAB_KERN_HALF_H
#define VRAMLAB_KERN_HALF_H

#include <stddef.h>
#include <stdint.h>

#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Inline body of kern_f32_to_f16, for the hot loops of the twins. */
static inline uint16_t kern_f32_to_f16_inline(float f) {
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) {
        /* infinity stays infinity; NaN keeps its top payload bits, made quiet */
        if (ax == 0x7f800000u)
            return (uint16_t)(sign | 0x7c00u);
        return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
    }
    if (ax >= 0x477ff000u) /* >= 65520 rounds past 65504 */
        return (uint16_t)(sign | 0x7c00u);
    if (ax < 0x38800000u) {
        /* below 2^-14: an FP16 subnormal k * 2^-24, or zero */
        if (ax < 0x33000000u) /* below 2^-25: rounds to zero */
            return sign;
        uint32_t e = ax >> 23;
        uint32_t m = (ax & 0x7fffffu) | 0x800000u;
        uint32_t shift = 126u - e; /* 14..24 */
        uint32_t k = m >> shift;
        uint32_t rem = m & ((1u << shift) - 1u);
        uint32_t half = 1u << (shift - 1u);
        if (rem > half || (rem == half && (k & 1u)))
            k++;
        return (uint16_t)(sign | k);
    }
    /* normal: rebias the exponent (127 -> 15) and round 13 mantissa bits away;
     * a carry out of the mantissa correctly bumps the exponent */
    uint32_t h = (ax - 0x38000000u) >> 13;
    uint32_t rem = ax & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
        h++;
    return (uint16_t)(sign | h);
}

/* Inline FP16 -> float without branches or tables, so loops vectorise:
 * the 15 magnitude bits moved into a float's exponent/mantissa position
 * read as 2^(e-127) * 1.m, and multiplying by 2^112 rebiases the exponent
 * exactly (subnormals included: (m << 13) * 2^-149 * 2^112 = m * 2^-24);
 * infinities and NaNs (exponent 31) take the float's all-ones exponent. */
static inline float kern_f16_to_f32_inline(uint16_t h) {
    uint32_t x = (uint32_t)(h & 0x7fffu) << 13, y;
    float f;
    memcpy(&f, &x, sizeof f);
    f *= 0x1p112f;
    memcpy(&y, &f, sizeof y);
    y = (h & 0x7c00u) == 0x7c00u ? (x | 0x7f800000u) : y;
    y |= (uint32_t)(h & 0x8000u) << 16;
    memcpy(&f, &y, sizeof f);
    return f;
}

/* Widen 32 FP16 values (a constant trip count: the loop vectorises). */
static inline void kern_widen32(const uint16_t *h, float *f) {
    for (unsigned i = 0; i < 32; i++)
        f[i] = kern_f16_to_f32_inline(h[i]);
}

/* Round a float to the nearest FP16 (ties to even; overflow to infinity). */
uint16_t kern_f32_to_f16(float f);
/* Widen an FP16 bit pattern to float (exact). */
float kern_f16_to_f32(uint16_t h);
/* Widen a BF16 bit pattern to float (exact). */
float kern_bf16_to_f32(uint16_t h);
/* Round a float to the nearest BF16 (ties to even; NaN stays NaN). */
uint16_t kern_f32_to_bf16(float f);

/* The 65536-entry FP16 -> float table (256 KiB), built once, thread-safe;
 * the fast path of the CPU twins. */
const float *kern_f16_table(void);

/* Convert n FP16 values to float through the table. */
void kern_f16_to_f32_n(const uint16_t *in, float *out, size_t n);

#ifdef __cplusplus
}
#endif

#endif
