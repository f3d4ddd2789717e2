/*
 * kern_cuda_bits.cuh: the bit-level helpers of the CUDA quantization
 * kernels, __host__ __device__ so that tests/test_kernels_bits.cu can check
 * them against the CPU twin on a machine without a GPU (compiled by nvcc as
 * host code). Rules and layout: kern_quant.h.
 */
#ifndef VRAMLAB_KERN_CUDA_BITS_CUH
#define VRAMLAB_KERN_CUDA_BITS_CUH

#include <cuda_fp16.h>
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

/* Two codes of one 32-bit word of a group, as exact floats, for BITS = 4
 * or 8 (a word holds n = 32 / BITS codes): pair i (0 <= i < n / 2) gives
 * codes i and i + n / 2 of the word. One logic op puts both offset-binary
 * codes u into the mantissas of two FP16 values 1024 + u (0x6400 | u: exact,
 * the FP16 ulp is 1 in [1024, 2048)), one packed subtract of 1024 +
 * 2^(BITS-1) leaves the signed codes (exact: small integers), and the two
 * widenings give floats. Per code that is 1/2 logic op (+ a shift for some
 * pairs), 1/2 packed subtract and 1 widening, against a shift, a logic op
 * and a float subtract for code_at (the trick is Marlin's FP16 dequant). */
template <int BITS> __host__ __device__ inline float2 code_pair(uint32_t word, int i) {
    static_assert(BITS == 4 || BITS == 8, "code_pair: 4- or 8-bit codes");
    const uint32_t m = (1u << BITS) - 1u;
    const uint32_t v = word >> (i * BITS);
    uint32_t h;
#ifdef __CUDA_ARCH__
    /* (v & mask) | magic in one LOP3 (ptxas splits the C form into two) */
    asm("lop3.b32 %0, %1, %2, %3, 0xea;" : "=r"(h) : "r"(v), "n"(m | m << 16), "n"(0x64006400));
#else
    h = (v & (m | m << 16)) | 0x64006400u;
#endif
    const uint32_t o = 0x6400u + (1u << (BITS - 1)); /* FP16 1024 + 2^(BITS-1) */
    const uint32_t oo = o | o << 16;
    __half2 hv, ov;
    memcpy(&hv, &h, 4); /* the low half is the first code, as in __half2's .x */
    memcpy(&ov, &oo, 4);
    return __half22float2(__hsub2(hv, ov));
}

/* Codes 8c .. 8c+7 (c = 0..3) of a group held in BITS words, as floats, in
 * order: by pairs (code_pair) for 4 and 8 bits, one by one (code_at) for
 * the other widths. k_gemv_q's dequantization. */
template <int BITS> __host__ __device__ inline void codes8(const uint32_t *wd, int c, float *q) {
    if (BITS == 4 || BITS == 8) {
        constexpr int B = BITS == 8 ? 8 : 4, n = 32 / B; /* codes per word */
        KC_UNROLL
        for (int w = 0; w < B / 4; w++) {
            KC_UNROLL
            for (int i = 0; i < n / 2; i++) {
                float2 p = code_pair<B>(wd[c * (B / 4) + w], i);
                q[w * n + i] = p.x;
                q[w * n + i + n / 2] = p.y;
            }
        }
    } else {
        KC_UNROLL
        for (int k = 0; k < 8; k++)
            q[k] = code_at<BITS>(wd, c * 8 + k);
    }
}

#endif
