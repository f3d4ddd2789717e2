/*
 * kern_cuda.h: the CUDA kernels of the probe, behind C++ launch wrappers
 * (compiled by nvcc; included only by .cu files).
 *
 * Every wrapper launches, then returns cudaGetLastError(), so the caller's
 * CUDA_CHECK sees launch errors at once and execution errors at the next
 * synchronisation. Layouts are those of the CPU twins (kern_quant.h):
 * FP16 weights row-major, groups of 32 along the row, codes offset-binary
 * in one little-endian bit stream (a group is 4*bits bytes), FP16 scales
 * apart. Techniques (performance-anchors.md sec. 3): 16-byte loads, several
 * loads in flight per thread, grids of a few waves, warp-shuffle
 * reductions, no shared memory on the weight stream, the group scale
 * applied once per group.
 */
#ifndef VRAMLAB_KERN_CUDA_H
#define VRAMLAB_KERN_CUDA_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

/* A deterministic value in [-1, 1) for element i: the same float on the
 * host (to check sampled rows) and on the device (to fill big buffers). */
__host__ __device__ inline float kc_value(uint64_t i, uint64_t seed) {
    uint64_t z = i * 0x9e3779b97f4a7c15ull + seed;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (float)(z >> 40) * 0x1p-23f - 1.0f; /* 24 bits: exact in float */
}

/* The copy/read pattern: word i holds i mod 65521 (sums have a closed form). */
__host__ __device__ inline uint32_t kc_pattern(uint64_t i) {
    return (uint32_t)(i % 65521u);
}

/* Grid size used for streaming kernels: a few full waves. */
int kc_stream_blocks(int sms);

cudaError_t kc_fill_pattern(uint32_t *a, size_t n, int sms, cudaStream_t s);
/* b = a with 16-byte accesses, four loads in flight per thread. */
cudaError_t kc_copy(const void *a, void *b, size_t bytes, int sms, cudaStream_t s);
/* *sum += the 32-bit words of a (bytes a multiple of 16). */
cudaError_t kc_read(const void *a, size_t bytes, unsigned long long *sum, int sms, cudaStream_t s);
/* *count += number of words where a and b differ. */
cudaError_t kc_count_mismatch(const uint32_t *a, const uint32_t *b, size_t n,
                              unsigned long long *count, int sms, cudaStream_t s);
/* w[i] = FP16(amp * kc_value(i, seed)). */
cudaError_t kc_fill_f16(uint16_t *w, size_t n, uint64_t seed, float amp, int sms, cudaStream_t s);

/* y = W x, W rows x cols FP16 (cols a multiple of 8), float accumulation,
 * one warp per row. */
cudaError_t kc_gemv_f16(const uint16_t *w, const uint16_t *x, float *y, int rows, int cols,
                        cudaStream_t s);

/* Quantize n FP16 weights (n a multiple of 32) in groups of 32; with
 * matrix_scale non-NULL that one device scale is used and scales is not
 * written (per-matrix mode). */
cudaError_t kc_quantize(const uint16_t *w, size_t n, int bits, uint8_t *codes, uint16_t *scales,
                        const uint16_t *matrix_scale, cudaStream_t s);
/* *amax_bits = max over n of |w| as float bits (start it at 0). */
cudaError_t kc_amax(const uint16_t *w, size_t n, unsigned *amax_bits, int sms, cudaStream_t s);
/* *scale = FP16(amax / qmax). */
cudaError_t kc_matrix_scale(const unsigned *amax_bits, int bits, uint16_t *scale, cudaStream_t s);
/* out = FP16(q * s). */
cudaError_t kc_dequantize(const uint8_t *codes, const uint16_t *scales,
                          const uint16_t *matrix_scale, size_t n, int bits, uint16_t *out,
                          cudaStream_t s);
/* acc[0..3] += sum w, sum w^2, sum (w - w_hat)^2, zero codes; *amax_bits
 * as kc_amax. */
cudaError_t kc_qstats(const uint16_t *w, const uint8_t *codes, const uint16_t *scales,
                      const uint16_t *matrix_scale, size_t n, int bits, double *acc,
                      unsigned *amax_bits, int sms, cudaStream_t s);
/* y (batch x rows) = W_q x (batch x cols FP16); bits 2..8, batch 1..16,
 * groups of 32, one warp per row. */
cudaError_t kc_gemv_q(const uint8_t *codes, const uint16_t *scales, const uint16_t *x, float *y,
                      int rows, int cols, int bits, int batch, cudaStream_t s);

#endif
