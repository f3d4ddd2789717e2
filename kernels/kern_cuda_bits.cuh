/*
 * kern_cuda_bits.cuh: the bit-level helpers of the CUDA quantization
 * kernels, __host__ __device__ so that tests/test_kernels_bits.cu can check
 * them against the CPU twin on a machine without a GPU (compiled by nvcc as
 * host code). Rules and layout: kern_quant.h.
 */
#ifndef VRAMLAB_KERN_CUDA_BITS_CUH
#define VRAMLAB_KERN_CUDA_BITS_CUH

#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* Full unrolling on the device; the host compiler does not know the pragma. */
#ifdef __CUDA_ARCH__
#define KC_UNROLL _Pragma("unroll")
#else
#define KC_UNROLL
#endif

/* Reinterpret 32 bits as a float, on either side. */
__host__ __device__ inline float kc_bits_to_float(uint32_t u) {
#ifdef __CUDA_ARCH__
    return __uint_as_float(u);
#else
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
#endif
}

/* The code of w with widened scale s (kern_quant_code's arithmetic). */
template <int BITS> __host__ __device__ inline int quant_code(float w, float s) {
    const float qm = (float)((1 << (BITS - 1)) - 1);
    if (s == 0.0f)
        return 0;
    float v = w / s;
    v = v > -qm - 1.0f ? v : -qm - 1.0f; /* NaN -> the lower bound, as on the host */
    v = v < qm + 1.0f ? v : qm + 1.0f;
    float r = rintf(v);
    r = r > -qm ? r : -qm;
    r = r < qm ? r : qm;
    return (int)r;
}

/* Pack 8 codes into BITS bytes at out (aligned to the natural width for
 * BITS = 2, 4, 8: out is group*4*BITS + part*BITS). */
template <int BITS> __host__ __device__ inline void pack8(const int *q, uint8_t *out) {
    uint64_t acc = 0;
    KC_UNROLL
    for (int k = 0; k < 8; k++)
        acc |= (uint64_t)(uint32_t)(q[k] + (1 << (BITS - 1))) << (k * BITS);
    if (BITS == 8) {
        *reinterpret_cast<uint2 *>(out) = make_uint2((uint32_t)acc, (uint32_t)(acc >> 32));
    } else if (BITS == 4) {
        *reinterpret_cast<uint32_t *>(out) = (uint32_t)acc;
    } else if (BITS == 2) {
        *reinterpret_cast<uint16_t *>(out) = (uint16_t)acc;
    } else {
        KC_UNROLL
        for (int b = 0; b < BITS; b++)
            out[b] = (uint8_t)(acc >> (8 * b));
    }
}

/* Read 8 codes (BITS bytes at in) as signed values. */
template <int BITS> __host__ __device__ inline void unpack8(const uint8_t *in, int *q) {
    uint64_t acc = 0;
    if (BITS == 8) {
        uint2 v = *reinterpret_cast<const uint2 *>(in);
        acc = (uint64_t)v.x | ((uint64_t)v.y << 32);
    } else if (BITS == 4) {
        acc = *reinterpret_cast<const uint32_t *>(in);
    } else if (BITS == 2) {
        acc = *reinterpret_cast<const uint16_t *>(in);
    } else {
        KC_UNROLL
        for (int b = 0; b < BITS; b++)
            acc |= (uint64_t)in[b] << (8 * b);
    }
    KC_UNROLL
    for (int k = 0; k < 8; k++)
        q[k] = (int)((acc >> (k * BITS)) & ((1u << BITS) - 1u)) - (1 << (BITS - 1));
}

/* Code j (0..31) of a group held in BITS 32-bit words, as a float; j is a
 * compile-time constant after unrolling, so the word index and shifts are
 * too. int->float conversion runs at a fraction of the FMA rate, so the
 * offset-binary code u is OR-ed into the mantissa of 2^23 instead (the float
 * 2^23 + u, exact) and 2^23 + 2^(BITS-1) subtracted: one logic op and one
 * add, full rate, exact (the same trick as Marlin's FP16 dequant, in FP32). */
template <int BITS> __host__ __device__ inline float code_at(const uint32_t *wd, int j) {
    const int bit = j * BITS, w = bit >> 5, sh = bit & 31;
    uint32_t v = wd[w] >> sh;
    if (sh + BITS > 32)
        v |= wd[w + 1] << (32 - sh);
    return kc_bits_to_float(0x4b000000u | (v & ((1u << BITS) - 1u))) -
           (8388608.0f + (float)(1 << (BITS - 1)));
}

#endif
