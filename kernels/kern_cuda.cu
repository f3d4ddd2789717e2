/*
 * kern_cuda.cu: the probe's CUDA kernels (see kern_cuda.h for layouts and
 * the techniques, performance-anchors.md sec. 3 for their sources).
 *
 * Bit-exactness with the CPU twin (kern_quant.c): the scale is
 * __float2half_rn(amax / qmax) (IEEE division: never build with
 * --use_fast_math), codes are clip(rint(w / s)) with the same clamps and
 * the same NaN behaviour, and 8 codes pack into `bits` bytes exactly as
 * pack32 does on the host.
 */
#include "kernels/kern_cuda.h"
#include "kernels/kern_cuda_bits.cuh"

#include <cuda_fp16.h>

#define KC_BLOCK 256

/* Grid size of the streaming kernels: 8 blocks of 256 per SM. */
int kc_stream_blocks(int sms) {
    return (sms > 0 ? sms : 16) * 8;
}

/* Blocks needed to give each of n items one thread. */
static unsigned blocks_for(size_t n) {
    size_t b = (n + KC_BLOCK - 1) / KC_BLOCK;
    return (unsigned)(b > 0x7fffffffu ? 0x7fffffffu : (b ? b : 1));
}

/* Sum across a warp. */
template <typename T> __device__ inline T warp_sum(T v) {
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

/* Widen the 8 halves of a 16-byte word. */
__device__ inline void widen8(uint4 v, float *f) {
    const __half2 *h = reinterpret_cast<const __half2 *>(&v);
#pragma unroll
    for (int k = 0; k < 4; k++) {
        float2 p = __half22float2(h[k]);
        f[2 * k] = p.x;
        f[2 * k + 1] = p.y;
    }
}

/* ---- streaming: fill, copy, read, compare ----------------------------- */

/* a[i] = kc_pattern(i). */
__global__ void k_fill_pattern(uint32_t *a, size_t n) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
        a[i] = kc_pattern(i);
}

/* b = a, uint4 accesses, four loads issued before the four stores. */
__global__ void k_copy(const uint4 *__restrict__ a, uint4 *__restrict__ b, size_t n) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n; i += 4 * stride) {
        uint4 v0 = a[i], v1 = a[i + stride], v2 = a[i + 2 * stride], v3 = a[i + 3 * stride];
        b[i] = v0;
        b[i + stride] = v1;
        b[i + 2 * stride] = v2;
        b[i + 3 * stride] = v3;
    }
    for (; i < n; i += stride)
        b[i] = a[i];
}

/* *sum += all 32-bit words, four uint4 loads in flight per thread. */
__global__ void k_read(const uint4 *__restrict__ a, size_t n, unsigned long long *sum) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    unsigned long long s = 0;
    for (; i + 3 * stride < n; i += 4 * stride) {
        uint4 v0 = a[i], v1 = a[i + stride], v2 = a[i + 2 * stride], v3 = a[i + 3 * stride];
        s += (unsigned long long)v0.x + v0.y + v0.z + v0.w;
        s += (unsigned long long)v1.x + v1.y + v1.z + v1.w;
        s += (unsigned long long)v2.x + v2.y + v2.z + v2.w;
        s += (unsigned long long)v3.x + v3.y + v3.z + v3.w;
    }
    for (; i < n; i += stride) {
        uint4 v = a[i];
        s += (unsigned long long)v.x + v.y + v.z + v.w;
    }
    s = warp_sum(s);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(sum, s);
}

/* *count += words where a and b differ. */
__global__ void k_mismatch(const uint32_t *a, const uint32_t *b, size_t n,
                           unsigned long long *count) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned long long c = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
        c += a[i] != b[i];
    c = warp_sum(c);
    if ((threadIdx.x & 31) == 0 && c)
        atomicAdd(count, c);
}

/* w[i] = FP16(amp * kc_value(i, seed)). */
__global__ void k_fill_f16(uint16_t *w, size_t n, uint64_t seed, float amp) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
        w[i] = __half_as_ushort(__float2half_rn(amp * kc_value(i, seed)));
}

cudaError_t kc_fill_pattern(uint32_t *a, size_t n, int sms, cudaStream_t s) {
    k_fill_pattern<<<kc_stream_blocks(sms), KC_BLOCK, 0, s>>>(a, n);
    return cudaGetLastError();
}

cudaError_t kc_copy(const void *a, void *b, size_t bytes, int sms, cudaStream_t s) {
    k_copy<<<kc_stream_blocks(sms), KC_BLOCK, 0, s>>>((const uint4 *)a, (uint4 *)b, bytes / 16);
    return cudaGetLastError();
}

cudaError_t kc_read(const void *a, size_t bytes, unsigned long long *sum, int sms, cudaStream_t s) {
    k_read<<<kc_stream_blocks(sms), KC_BLOCK, 0, s>>>((const uint4 *)a, bytes / 16, sum);
    return cudaGetLastError();
}

cudaError_t kc_count_mismatch(const uint32_t *a, const uint32_t *b, size_t n,
                              unsigned long long *count, int sms, cudaStream_t s) {
    k_mismatch<<<kc_stream_blocks(sms), KC_BLOCK, 0, s>>>(a, b, n, count);
    return cudaGetLastError();
}

cudaError_t kc_fill_f16(uint16_t *w, size_t n, uint64_t seed, float amp, int sms, cudaStream_t s) {
    k_fill_f16<<<kc_stream_blocks(sms), KC_BLOCK, 0, s>>>(w, n, seed, amp);
    return cudaGetLastError();
}

/* ---- FP16 GEMV -------------------------------------------------------- */

/* One warp per row: each lane streams 16-byte words of W (and of x, which
 * L1/L2 serve), four in flight, float accumulation, shuffle reduction. */
__global__ void k_gemv_f16(const uint4 *__restrict__ w, const uint4 *__restrict__ x,
                           float *__restrict__ y, int rows, int k8) {
    int row = (int)((blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5);
    int lane = threadIdx.x & 31;
    if (row >= rows)
        return; /* warp-uniform */
    const uint4 *wr = w + (size_t)row * k8;
    float acc = 0.0f;
#pragma unroll 4
    for (int i = lane; i < k8; i += 32) {
        uint4 wv = wr[i], xv = x[i];
        float a[8], b[8];
        widen8(wv, a);
        widen8(xv, b);
#pragma unroll
        for (int k = 0; k < 8; k++)
            acc = fmaf(a[k], b[k], acc);
    }
    acc = warp_sum(acc);
    if (lane == 0)
        y[row] = acc;
}

cudaError_t kc_gemv_f16(const uint16_t *w, const uint16_t *x, float *y, int rows, int cols,
                        cudaStream_t s) {
    unsigned blocks = (unsigned)((rows + KC_BLOCK / 32 - 1) / (KC_BLOCK / 32));
    k_gemv_f16<<<blocks, KC_BLOCK, 0, s>>>((const uint4 *)w, (const uint4 *)x, y, rows, cols / 8);
    return cudaGetLastError();
}

/* ---- quantization ------------------------------------------------------- */

/* Four lanes per group of 32: each loads 8 halves (16 bytes), the group's
 * max-abs takes two shuffles, each lane writes its BITS bytes. Every lane
 * reaches the shuffles (tail lanes with zeros). */
template <int BITS>
__global__ void k_quantize(const uint4 *__restrict__ w, size_t n8, uint8_t *__restrict__ codes,
                           __half *__restrict__ scales, const __half *__restrict__ mscale) {
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    bool valid = t < n8;
    float f[8];
    widen8(valid ? w[t] : make_uint4(0, 0, 0, 0), f);
    float m = 0.0f;
#pragma unroll
    for (int k = 0; k < 8; k++) {
        float a = fabsf(f[k]);
        m = a > m ? a : m;
    }
    float o = __shfl_xor_sync(0xffffffffu, m, 1);
    m = o > m ? o : m;
    o = __shfl_xor_sync(0xffffffffu, m, 2);
    m = o > m ? o : m;
    __half sh = mscale ? *mscale : __float2half_rn(m / (float)((1 << (BITS - 1)) - 1));
    float s = __half2float(sh);
    int q[8];
#pragma unroll
    for (int k = 0; k < 8; k++)
        q[k] = quant_code<BITS>(f[k], s);
    if (valid) {
        size_t g = t >> 2;
        int part = (int)(t & 3);
        pack8<BITS>(q, codes + g * 4 * BITS + part * BITS);
        if (part == 0 && !mscale)
            scales[g] = sh;
    }
}

/* Eight outputs per thread: unpack BITS bytes, one 16-byte store. */
template <int BITS>
__global__ void k_dequantize(const uint8_t *__restrict__ codes, const __half *__restrict__ scales,
                             const __half *__restrict__ mscale, size_t n8,
                             uint4 *__restrict__ out) {
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t >= n8)
        return;
    size_t g = t >> 2;
    int q[8];
    unpack8<BITS>(codes + g * 4 * BITS + (t & 3) * BITS, q);
    float s = __half2float(mscale ? *mscale : scales[g]);
    uint4 v;
    __half2 *h = reinterpret_cast<__half2 *>(&v);
#pragma unroll
    for (int k = 0; k < 4; k++)
        h[k] = __halves2half2(__float2half_rn((float)q[2 * k] * s),
                              __float2half_rn((float)q[2 * k + 1] * s));
    out[t] = v;
}

/* Max |w| over n halves, atomicMax on the float bits (non-negative floats
 * order like their bit patterns). */
__global__ void k_amax(const uint4 *__restrict__ w, size_t n8, unsigned *amax) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    float m = 0.0f;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n8; i += stride) {
        float f[8];
        widen8(w[i], f);
#pragma unroll
        for (int k = 0; k < 8; k++) {
            float a = fabsf(f[k]);
            m = a > m ? a : m;
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        float v = __shfl_down_sync(0xffffffffu, m, o);
        m = v > m ? v : m;
    }
    if ((threadIdx.x & 31) == 0)
        atomicMax(amax, __float_as_uint(m));
}

/* The per-matrix scale from the max. */
__global__ void k_matrix_scale(const unsigned *amax, int qmax, __half *scale) {
    *scale = __float2half_rn(__uint_as_float(*amax) / (float)qmax);
}

/* Error statistics of 8 weights per thread against their codes. */
template <int BITS>
__global__ void k_qstats(const uint4 *__restrict__ w, const uint8_t *__restrict__ codes,
                         const __half *__restrict__ scales, const __half *__restrict__ mscale,
                         size_t n8, double *acc, unsigned *amax) {
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    double sum = 0, sq = 0, sqe = 0, zeros = 0;
    float m = 0.0f;
    if (t < n8) {
        size_t g = t >> 2;
        float f[8];
        int q[8];
        widen8(w[t], f);
        unpack8<BITS>(codes + g * 4 * BITS + (t & 3) * BITS, q);
        float s = __half2float(mscale ? *mscale : scales[g]);
#pragma unroll
        for (int k = 0; k < 8; k++) {
            float e = f[k] - (float)q[k] * s;
            sum += f[k];
            sq += (double)f[k] * f[k];
            sqe += (double)e * e;
            zeros += q[k] == 0;
            float a = fabsf(f[k]);
            m = a > m ? a : m;
        }
    }
    sum = warp_sum(sum);
    sq = warp_sum(sq);
    sqe = warp_sum(sqe);
    zeros = warp_sum(zeros);
    for (int o = 16; o > 0; o >>= 1) {
        float v = __shfl_down_sync(0xffffffffu, m, o);
        m = v > m ? v : m;
    }
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(&acc[0], sum);
        atomicAdd(&acc[1], sq);
        atomicAdd(&acc[2], sqe);
        atomicAdd(&acc[3], zeros);
        atomicMax(amax, __float_as_uint(m));
    }
}

/* Dispatch a kernel template on BITS = 2..8. */
#define KC_BITS_SWITCH(bits, CALL)                                                                 \
    switch (bits) {                                                                                \
    case 2:                                                                                        \
        CALL(2);                                                                                   \
        break;                                                                                     \
    case 3:                                                                                        \
        CALL(3);                                                                                   \
        break;                                                                                     \
    case 4:                                                                                        \
        CALL(4);                                                                                   \
        break;                                                                                     \
    case 5:                                                                                        \
        CALL(5);                                                                                   \
        break;                                                                                     \
    case 6:                                                                                        \
        CALL(6);                                                                                   \
        break;                                                                                     \
    case 7:                                                                                        \
        CALL(7);                                                                                   \
        break;                                                                                     \
    case 8:                                                                                        \
        CALL(8);                                                                                   \
        break;                                                                                     \
    default:                                                                                       \
        return cudaErrorInvalidValue;                                                              \
    }

cudaError_t kc_quantize(const uint16_t *w, size_t n, int bits, uint8_t *codes, uint16_t *scales,
                        const uint16_t *matrix_scale, cudaStream_t s) {
    size_t n8 = n / 8;
#define KC_Q(B)                                                                                    \
    k_quantize<B><<<blocks_for(n8), KC_BLOCK, 0, s>>>(                                             \
        (const uint4 *)w, n8, codes, (__half *)scales, (const __half *)matrix_scale)
    KC_BITS_SWITCH(bits, KC_Q)
#undef KC_Q
    return cudaGetLastError();
}

cudaError_t kc_amax(const uint16_t *w, size_t n, unsigned *amax_bits, int sms, cudaStream_t s) {
    k_amax<<<kc_stream_blocks(sms), KC_BLOCK, 0, s>>>((const uint4 *)w, n / 8, amax_bits);
    return cudaGetLastError();
}

cudaError_t kc_matrix_scale(const unsigned *amax_bits, int bits, uint16_t *scale, cudaStream_t s) {
    k_matrix_scale<<<1, 1, 0, s>>>(amax_bits, (1 << (bits - 1)) - 1, (__half *)scale);
    return cudaGetLastError();
}

cudaError_t kc_dequantize(const uint8_t *codes, const uint16_t *scales,
                          const uint16_t *matrix_scale, size_t n, int bits, uint16_t *out,
                          cudaStream_t s) {
    size_t n8 = n / 8;
#define KC_D(B)                                                                                    \
    k_dequantize<B><<<blocks_for(n8), KC_BLOCK, 0, s>>>(                                           \
        codes, (const __half *)scales, (const __half *)matrix_scale, n8, (uint4 *)out)
    KC_BITS_SWITCH(bits, KC_D)
#undef KC_D
    return cudaGetLastError();
}

cudaError_t kc_qstats(const uint16_t *w, const uint8_t *codes, const uint16_t *scales,
                      const uint16_t *matrix_scale, size_t n, int bits, double *acc,
                      unsigned *amax_bits, int sms, cudaStream_t s) {
    (void)sms;
    size_t n8 = n / 8;
#define KC_S(B)                                                                                    \
    k_qstats<B>                                                                                    \
        <<<blocks_for(n8), KC_BLOCK, 0, s>>>((const uint4 *)w, codes, (const __half *)scales,      \
                                             (const __half *)matrix_scale, n8, acc, amax_bits)
    KC_BITS_SWITCH(bits, KC_S)
#undef KC_S
    return cudaGetLastError();
}

/* ---- quantized GEMV ------------------------------------------------------ */

/* One warp per row; lane l takes groups l, l+32, ...: the group's 4*BITS
 * bytes in 16-byte (BITS % 4 == 0), 8-byte (BITS 2) or 4-byte loads, sum
 * q*x in float per vector, times the scale once per group. */
template <int BITS, int NB>
__global__ void k_gemv_q(const uint8_t *__restrict__ codes, const __half *__restrict__ scales,
                         const uint4 *__restrict__ x, float *__restrict__ y, int rows, int cols) {
    int row = (int)((blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5);
    int lane = threadIdx.x & 31;
    if (row >= rows)
        return; /* warp-uniform */
    int ng = cols / 32;
    const uint8_t *crow = codes + (size_t)row * ng * 4 * BITS;
    const __half *srow = scales + (size_t)row * ng;
    float acc[NB];
#pragma unroll
    for (int b = 0; b < NB; b++)
        acc[b] = 0.0f;
#pragma unroll 2
    for (int g = lane; g < ng; g += 32) {
        uint32_t wd[BITS];
        const uint8_t *p = crow + (size_t)g * 4 * BITS;
        if (BITS % 4 == 0) {
#pragma unroll
            for (int j = 0; j < BITS / 4; j++) {
                uint4 v = reinterpret_cast<const uint4 *>(p)[j];
                wd[4 * j] = v.x;
                wd[4 * j + 1] = v.y;
                wd[4 * j + 2] = v.z;
                wd[4 * j + 3] = v.w;
            }
        } else if (BITS == 2) {
            uint2 v = *reinterpret_cast<const uint2 *>(p);
            wd[0] = v.x;
            wd[BITS - 1] = v.y;
        } else {
#pragma unroll
            for (int j = 0; j < BITS; j++)
                wd[j] = reinterpret_cast<const uint32_t *>(p)[j];
        }
        float s = __half2float(srow[g]);
#pragma unroll
        for (int b = 0; b < NB; b++) {
            const uint4 *xb = x + ((size_t)b * cols + (size_t)g * 32) / 8;
            float part = 0.0f;
#pragma unroll
            for (int c = 0; c < 4; c++) {
                float xf[8], q[8];
                widen8(xb[c], xf);
                codes8<BITS>(wd, c, q);
#pragma unroll
                for (int k = 0; k < 8; k++)
                    part = fmaf(q[k], xf[k], part);
            }
            acc[b] = fmaf(part, s, acc[b]);
        }
    }
#pragma unroll
    for (int b = 0; b < NB; b++) {
        float v = warp_sum(acc[b]);
        if (lane == 0)
            y[(size_t)b * rows + row] = v;
    }
}

/* Launch k_gemv_q for one width and batch. */
template <int BITS>
static cudaError_t gemv_q_bits(const uint8_t *codes, const uint16_t *scales, const uint16_t *x,
                               float *y, int rows, int cols, int batch, cudaStream_t s) {
    unsigned blocks = (unsigned)((rows + KC_BLOCK / 32 - 1) / (KC_BLOCK / 32));
    const __half *sc = (const __half *)scales;
    const uint4 *xv = (const uint4 *)x;
    switch (batch) {
    case 1:
        k_gemv_q<BITS, 1><<<blocks, KC_BLOCK, 0, s>>>(codes, sc, xv, y, rows, cols);
        break;
    case 2:
        k_gemv_q<BITS, 2><<<blocks, KC_BLOCK, 0, s>>>(codes, sc, xv, y, rows, cols);
        break;
    case 4:
        k_gemv_q<BITS, 4><<<blocks, KC_BLOCK, 0, s>>>(codes, sc, xv, y, rows, cols);
        break;
    case 8:
        k_gemv_q<BITS, 8><<<blocks, KC_BLOCK, 0, s>>>(codes, sc, xv, y, rows, cols);
        break;
    case 16:
        k_gemv_q<BITS, 16><<<blocks, KC_BLOCK, 0, s>>>(codes, sc, xv, y, rows, cols);
        break;
    default:
        return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

cudaError_t kc_gemv_q(const uint8_t *codes, const uint16_t *scales, const uint16_t *x, float *y,
                      int rows, int cols, int bits, int batch, cudaStream_t s) {
#define KC_G(B) return gemv_q_bits<B>(codes, scales, x, y, rows, cols, batch, s)
    KC_BITS_SWITCH(bits, KC_G)
#undef KC_G
    return cudaErrorInvalidValue;
}
