/*
 * kern_quant.h: group quantization (symmetric round to nearest), the CPU
 * twin of every CUDA quantization kernel, and the float64 references.
 *
 * Rule (shared spec engine.md "Quantization"; seed 000, "Cuantizacion por
 * grupos"): for a group of g weights and b bits,
 *   qmax = 2^(b-1) - 1,  s = max|w| / qmax  (stored as FP16),
 *   q = clip(round(w / s), -qmax, qmax),   w_hat = q * s.
 * round is to nearest, ties to even (numpy's np.round, CUDA __float2int_rn);
 * the division uses the FP16-rounded scale, in float, so the codes and the
 * scales of the CPU twin and the CUDA kernels are equal bit for bit. g = 0
 * means one scale for the whole matrix ("per matrix").
 *
 * Layout: groups run along the last (contiguous) dimension. Codes are stored
 * offset-binary u = q + 2^(b-1) (so 0 < u < 2^b) in one little-endian bit
 * stream over the whole matrix: element i occupies bits [i*b, i*b + b). A
 * group of 32 at b bits is therefore exactly 4b bytes, word aligned. Scales
 * are a separate array of FP16, row-major, ceil(cols/g) per row.
 *
 * Statistics: relative error ||w - w_hat|| / ||w||, fraction of zero codes,
 * outlier ratio max|w| / std(w), all accumulated in float64.
 * Valid C and C++ (the CUDA backend includes it).
 */
#ifndef VRAMLAB_KERN_QUANT_H
#define VRAMLAB_KERN_QUANT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KERN_QBITS_MIN     2
#define KERN_QBITS_MAX     8
#define KERN_GROUP_MATRIX  0u /* one scale for the whole matrix */
#define KERN_GROUP_DEFAULT 32u
#define KERN_GROUP_MAX     256u /* largest group the GEMV twins accept */

/* Running statistics of a quantization (float64 accumulators). */
struct kern_qstats {
    double sum, sum_sq, sum_sq_err, max_abs;
    uint64_t n, zeros;
};

/* Largest code magnitude at b bits: 2^(b-1) - 1. */
int kern_qmax(unsigned bits);

/* 0 when b is 2..8 and g is 0 (matrix) or a power of two 8..256; else -1
 * with a message. */
int kern_quant_validate(unsigned bits, size_t group, char *err, size_t errlen);

/* Bytes of packed codes for n weights at b bits (the last byte padded). */
size_t kern_quant_code_bytes(size_t n, unsigned bits);

/* Number of FP16 scales of a rows x cols matrix with groups of g (0: 1). */
size_t kern_quant_scale_count(size_t rows, size_t cols, size_t group);

/* The FP16 scale of a group whose largest magnitude is amax. */
uint16_t kern_quant_scale(float amax, unsigned bits);

/* The code q of one weight given the widened FP16 scale s. */
int kern_quant_code(float w, float s, int qmax);

/*
 * Quantize rows [r0, r1) of a rows x cols matrix given as float (or FP16
 * bits). codes and scales point at the start of the whole matrix's arrays.
 * For per-matrix scaling (group 0) scales[0] must already hold the matrix
 * scale (kern_quant_matrix_scale); it is read, not written. st, if not
 * NULL, is added to. r0 * cols * bits must be a multiple of 8 (threads
 * split at multiples of 8 rows). Returns 0, or -1 on a misaligned split.
 */
int kern_quantize_rows_f32(const float *w, size_t cols, size_t r0, size_t r1, unsigned bits,
                           size_t group, uint8_t *codes, uint16_t *scales, struct kern_qstats *st);
int kern_quantize_rows_f16(const uint16_t *w, size_t cols, size_t r0, size_t r1, unsigned bits,
                           size_t group, uint8_t *codes, uint16_t *scales, struct kern_qstats *st);

/* The per-matrix FP16 scale of n weights. */
uint16_t kern_quant_matrix_scale_f32(const float *w, size_t n, unsigned bits);
uint16_t kern_quant_matrix_scale_f16(const uint16_t *w, size_t n, unsigned bits);

/* Quantize a whole matrix (groups of g, or per matrix when g is 0). */
void kern_quantize_f32(const float *w, size_t rows, size_t cols, unsigned bits, size_t group,
                       uint8_t *codes, uint16_t *scales, struct kern_qstats *st);
void kern_quantize_f16(const uint16_t *w, size_t rows, size_t cols, unsigned bits, size_t group,
                       uint8_t *codes, uint16_t *scales, struct kern_qstats *st);

/* Dequantize rows [r0, r1): w_hat = q * s, as float (exact) or FP16. */
void kern_dequantize_rows_f32(const uint8_t *codes, const uint16_t *scales, size_t cols, size_t r0,
                              size_t r1, unsigned bits, size_t group, float *out);
void kern_dequantize_rows_f16(const uint8_t *codes, const uint16_t *scales, size_t cols, size_t r0,
                              size_t r1, unsigned bits, size_t group, uint16_t *out);

/* Read code i (the signed q) from a packed stream. */
int kern_quant_get(const uint8_t *codes, size_t i, unsigned bits);

/* Unpack n signed codes starting at element i0 into q (any alignment). */
void kern_quant_unpack(const uint8_t *codes, size_t i0, size_t n, unsigned bits, int8_t *q);

/* Derived statistics. */
double kern_qstats_rel_error(const struct kern_qstats *st);
double kern_qstats_zero_fraction(const struct kern_qstats *st);
double kern_qstats_outlier_ratio(const struct kern_qstats *st);
/* Add b into a. */
void kern_qstats_merge(struct kern_qstats *a, const struct kern_qstats *b);

/*
 * GEMV twins, y = W x for `batch` vectors (x is batch x cols FP16,
 * y is batch x rows), rows [r0, r1) only.
 * _f16: W is FP16, float accumulation (what the CPU probe times).
 * _q:   W is packed b-bit codes with FP16 scales per group (g > 0, g <= 256,
 *       g divides cols); sum q*x in float per group, times the scale once.
 * _ref: float64 accumulation, the reference every kernel is checked against.
 */
void kern_gemv_f16(const uint16_t *w, size_t cols, size_t r0, size_t r1, const uint16_t *x,
                   size_t batch, size_t rows, float *y);
void kern_gemv_f16_ref(const uint16_t *w, size_t rows, size_t cols, const uint16_t *x, size_t batch,
                       double *y);
void kern_gemv_q(const uint8_t *codes, const uint16_t *scales, size_t cols, size_t r0, size_t r1,
                 unsigned bits, size_t group, const uint16_t *x, size_t batch, size_t rows,
                 float *y);
void kern_gemv_q_ref(const uint8_t *codes, const uint16_t *scales, size_t rows, size_t cols,
                     unsigned bits, size_t group, const uint16_t *x, size_t batch, double *y);

/* One output of the float64 references, and sum_j |w_j x_j|, the scale of
 * its tolerance (row `row` of the matrix, one vector x of cols values). */
double kern_gemv_f16_ref_row(const uint16_t *w, size_t row, size_t cols, const uint16_t *x,
                             double *abs_sum);
/* The same for BF16 weights (x stays FP16). */
double kern_gemv_bf16_ref_row(const uint16_t *w, size_t row, size_t cols, const uint16_t *x,
                              double *abs_sum);
double kern_gemv_q_ref_row(const uint8_t *codes, const uint16_t *scales, size_t row, size_t cols,
                           unsigned bits, size_t group, const uint16_t *x, double *abs_sum);

/*
 * W8A8 / W4A8: what llama.cpp's q8_0 / q4_0 products and every CPU runtime
 * compute at decode. The weights are the W8A16 / W4A16 ones (same codes,
 * same FP16 group scales); the activation vector is quantized too, per
 * block of KERN_ACT_BLOCK values (FP16 in):
 *   d = max|x| / 127 (float),  id = d > 0 ? 1 / d : 0,
 *   xq = round(x * id) to nearest, ties to even, clipped to [-127, 127],
 * and y = sum over blocks of s_w * d * sum q * xq, the integer sum exact.
 * kern_quantize_act8 is the one definition every kernel path uses (the
 * fast kernels call it to prepare x), so the codes are equal everywhere.
 * The error this adds to W8A16 / W4A16 is bounded: |x - xq d| <= d / 2
 * (plus rounding of x * id, under 1e-4 d), so per output
 * |y_A8 - y_A16| <= sum_blocks (d / 2) (1 + 2e-4) sum |w_hat| over the block;
 * kern_gemv_qa8_ref_row returns that bound beside the exact A8 product.
 */
#define KERN_ACT_BLOCK 32
/* Quantize n values (n a multiple of KERN_ACT_BLOCK): codes xq[n] and
 * scales d[n / KERN_ACT_BLOCK]. */
void kern_quantize_act8(const uint16_t *x, size_t n, int8_t *xq, float *d);
/* One output of the A8 product in float64 (the codes' sums are exact), its
 * tolerance scale sum_j |w_j xq_j d| (abs_sum), and, if act_bound is not
 * NULL, the bound above on its distance from kern_gemv_q_ref_row's A16
 * product. group a multiple of 32 dividing cols. */
double kern_gemv_qa8_ref_row(const uint8_t *codes, const uint16_t *scales, size_t row, size_t cols,
                             unsigned bits, size_t group, const uint16_t *x, double *abs_sum,
                             double *act_bound);

/*
 * Tolerance of a float-accumulated product against the float64 reference:
 * |y - y_ref| <= KERN_GEMV_RTOL * sum_j |w_j x_j| (+ one FP16 ulp of y for
 * kernels that store FP16). With K terms the float error bound is about
 * K * 2^-24 of the absolute sum; 1e-3 covers K = 16384 with margin.
 */
#define KERN_GEMV_RTOL 1e-3

/* Deterministic generator (splitmix64) and Gaussian samples (Box-Muller). */
struct kern_rng {
    uint64_t s;
    double spare;
    int has_spare;
};
void kern_rng_seed(struct kern_rng *r, uint64_t seed);
uint64_t kern_rng_next(struct kern_rng *r);
double kern_rng_uniform(struct kern_rng *r); /* [0, 1) */
double kern_rng_normal(struct kern_rng *r, double mean, double sd);

/*
 * Weights for the error lab: n Gaussian N(0, sd) values, and, when
 * outliers > 0, that many planted at +-13 sd (the seed's median matrix:
 * "hasta 13 veces la desviacion tipica"), spread evenly.
 */
#define KERN_OUTLIER_SIGMA 13.0
void kern_weights_fill(float *w, size_t n, double sd, size_t outliers, uint64_t seed);

#ifdef __cplusplus
}
#endif

#endif
