/*
 * kern_quant.c: the CPU twin of the quantization kernels (see kern_quant.h
 * for the rule, the layout and the sources).
 */
#include "kernels/kern_quant.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kernels/kern_half.h"

/* Largest code magnitude at b bits. */
int kern_qmax(unsigned bits) {
    return (1 << (bits - 1)) - 1;
}

/* Check the bits and the group size. */
int kern_quant_validate(unsigned bits, size_t group, char *err, size_t errlen) {
    if (bits < KERN_QBITS_MIN || bits > KERN_QBITS_MAX) {
        snprintf(err, errlen, "bits must be %d..%d, found %u", KERN_QBITS_MIN, KERN_QBITS_MAX,
                 bits);
        return -1;
    }
    if (group != KERN_GROUP_MATRIX &&
        (group < 8 || group > KERN_GROUP_MAX || (group & (group - 1)) != 0)) {
        snprintf(err, errlen, "group must be a power of two 8..%u or 'matrix', found %zu",
                 KERN_GROUP_MAX, group);
        return -1;
    }
    return 0;
}

/* Bytes of packed codes for n weights. */
size_t kern_quant_code_bytes(size_t n, unsigned bits) {
    return (n / 8) * bits + ((n % 8) * bits + 7) / 8;
}

/* Number of scales of a matrix. */
size_t kern_quant_scale_count(size_t rows, size_t cols, size_t group) {
    if (group == KERN_GROUP_MATRIX)
        return 1;
    return rows * ((cols + group - 1) / group);
}

/* The FP16 scale of a group with largest magnitude amax. */
uint16_t kern_quant_scale(float amax, unsigned bits) {
    return kern_f32_to_f16(amax / (float)kern_qmax(bits));
}

/* Round to nearest, ties to even, for |v| < 2^22 (adding 1.5 * 2^23 leaves
 * no fraction bits in float; FLT_EVAL_METHOD 0 on every target we build). */
static inline float round_even(float v) {
    return (v + 0x1.8p23f) - 0x1.8p23f;
}

/* Clamp v to [lo, hi]; a NaN v gives lo (the comparisons are false), the
 * same as the CUDA kernels' fmaxf/fminf and as SSE maxss/minss, so the
 * loop vectorises without a libm call. */
static inline float clampf(float v, float lo, float hi) {
    v = v > lo ? v : lo;
    return v < hi ? v : hi;
}

/* The code q of one weight given the widened FP16 scale s: clipping before
 * rounding keeps huge quotients (a tiny scale) finite, and fmaxf/fminf
 * turn a NaN weight into the bound (the CUDA kernels do the same). */
int kern_quant_code(float w, float s, int qmax) {
    if (s == 0.0f)
        return 0;
    float qm = (float)qmax;
    float r = round_even(clampf(w / s, -qm - 1.0f, qm + 1.0f));
    return (int)clampf(r, -qm, qm);
}

/* A little-endian bit stream writer that stores each byte exactly once. */
struct bitw {
    uint8_t *p;
    uint64_t acc;
    unsigned n;
};

/* Append the low `bits` bits of u. */
static inline void bitw_put(struct bitw *b, uint32_t u, unsigned bits) {
    b->acc |= (uint64_t)u << b->n;
    b->n += bits;
    if (b->n >= 32) {
        uint32_t v = (uint32_t)b->acc;
        b->p[0] = (uint8_t)v;
        b->p[1] = (uint8_t)(v >> 8);
        b->p[2] = (uint8_t)(v >> 16);
        b->p[3] = (uint8_t)(v >> 24);
        b->p += 4;
        b->acc >>= 32;
        b->n -= 32;
    }
}

/* Write the remaining bits, padding the last byte with zeros. */
static void bitw_flush(struct bitw *b) {
    while (b->n > 0) {
        *b->p++ = (uint8_t)b->acc;
        b->acc >>= 8;
        b->n = b->n > 8 ? b->n - 8 : 0;
    }
}

/* Codes of n floats with scale s: branch-free so the loop vectorises. */
static void quant_codes(const float *w, size_t n, unsigned bits, float s, int8_t *q) {
    float qm = (float)kern_qmax(bits);
    if (s == 0.0f) {
        memset(q, 0, n);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        float r = round_even(clampf(w[i] / s, -qm - 1.0f, qm + 1.0f));
        q[i] = (int8_t)(int)clampf(r, -qm, qm);
    }
}

/* Pack 32 codes into 4*bits bytes (offset binary): four runs of 8 codes,
 * each exactly `bits` bytes. `bits` is a constant at every call site, so
 * the shifts are constants and the loops unroll. */
static inline void pack32(const int8_t *q, unsigned bits, uint8_t *out) {
    int off = 1 << (bits - 1);
    /* the common widths as byte-parallel loops the compiler vectorises */
    if (bits == 8) {
        for (unsigned i = 0; i < 32; i++)
            out[i] = (uint8_t)(q[i] + off);
        return;
    }
    if (bits == 4) {
        for (unsigned i = 0; i < 16; i++)
            out[i] = (uint8_t)((q[2 * i] + off) | ((q[2 * i + 1] + off) << 4));
        return;
    }
    if (bits == 2) {
        for (unsigned i = 0; i < 8; i++)
            out[i] = (uint8_t)((q[4 * i] + off) | ((q[4 * i + 1] + off) << 2) |
                               ((q[4 * i + 2] + off) << 4) | ((q[4 * i + 3] + off) << 6));
        return;
    }
    for (unsigned c = 0; c < 4; c++, q += 8, out += bits) {
        uint64_t acc = 0;
#pragma GCC unroll 8
        for (unsigned k = 0; k < 8; k++)
            acc |= (uint64_t)(uint8_t)(q[k] + off) << (k * bits);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        memcpy(out, &acc, bits); /* the low `bits` bytes, in stream order */
#else
#pragma GCC unroll 8
        for (unsigned b = 0; b < bits; b++)
            out[b] = (uint8_t)(acc >> (8 * b));
#endif
    }
}

/* Pack n codes into the stream: whole groups of 32 on a word boundary take
 * the unrolled path, anything else the general writer. */
static void pack_codes(const int8_t *q, size_t n, unsigned bits, struct bitw *bw) {
    size_t i = 0;
    if (bw->n == 0) {
        for (; i + 32 <= n; i += 32, bw->p += 4 * bits) {
            switch (bits) {
            case 2:
                pack32(q + i, 2, bw->p);
                break;
            case 3:
                pack32(q + i, 3, bw->p);
                break;
            case 4:
                pack32(q + i, 4, bw->p);
                break;
            case 5:
                pack32(q + i, 5, bw->p);
                break;
            case 6:
                pack32(q + i, 6, bw->p);
                break;
            case 7:
                pack32(q + i, 7, bw->p);
                break;
            default:
                pack32(q + i, 8, bw->p);
                break;
            }
        }
    }
    uint32_t off = 1u << (bits - 1);
    for (; i < n; i++)
        bitw_put(bw, (uint32_t)(q[i] + (int)off), bits);
}

/* Add the statistics of n weights and their codes. */
static void quant_stats(const float *w, const int8_t *q, size_t n, float s,
                        struct kern_qstats *st) {
    double sum = 0, sq = 0, sqe = 0, mx = st->max_abs;
    uint64_t zeros = 0;
    for (size_t i = 0; i < n; i++) {
        float e = w[i] - (float)q[i] * s; /* q*s is exact in float */
        double a = fabs((double)w[i]);
        sum += w[i];
        sq += (double)w[i] * w[i];
        sqe += (double)e * e;
        mx = a > mx ? a : mx;
        zeros += q[i] == 0;
    }
    st->sum += sum;
    st->sum_sq += sq;
    st->sum_sq_err += sqe;
    st->max_abs = mx;
    st->zeros += zeros;
    st->n += n;
}

/* Quantize n floats with scale s into the stream; update the statistics. */
static void quant_span(const float *w, size_t n, unsigned bits, float s, struct bitw *bw,
                       struct kern_qstats *st) {
    int8_t q[KERN_GROUP_MAX];
    quant_codes(w, n, bits, s, q);
    pack_codes(q, n, bits, bw);
    if (st)
        quant_stats(w, q, n, s, st);
}

/* Largest magnitude of n floats. */
static float amax_f32(const float *w, size_t n) {
    float m = 0.0f;
    for (size_t i = 0; i < n; i++) {
        float a = fabsf(w[i]);
        m = a > m ? a : m;
    }
    return m;
}

/* The per-matrix FP16 scale of n floats. */
uint16_t kern_quant_matrix_scale_f32(const float *w, size_t n, unsigned bits) {
    return kern_quant_scale(amax_f32(w, n), bits);
}

/* The per-matrix FP16 scale of n FP16 values. */
uint16_t kern_quant_matrix_scale_f16(const uint16_t *w, size_t n, unsigned bits) {
    /* |h| orders like the magnitude for non-NaN FP16: compare bit patterns */
    uint16_t m = 0;
    for (size_t i = 0; i < n; i++) {
        uint16_t a = w[i] & 0x7fffu;
        if (a <= 0x7c00u && a > m)
            m = a;
    }
    return kern_quant_scale(kern_f16_to_f32(m), bits);
}

/* Largest magnitude of 32 floats, eight independent lanes. */
static inline float amax32(const float *w, float m) {
    float lane[8] = {0};
    for (unsigned j = 0; j < 32; j += 8)
        for (unsigned i = 0; i < 8; i++) {
            float a = fabsf(w[j + i]);
            lane[i] = a > lane[i] ? a : lane[i];
        }
    for (unsigned i = 0; i < 8; i++)
        m = lane[i] > m ? lane[i] : m;
    return m;
}

/* Codes of 32 floats (the same arithmetic as quant_codes). */
static inline void codes32(const float *w, float s, float qm, int8_t *q) {
    for (unsigned i = 0; i < 32; i++) {
        float r = round_even(clampf(w[i] / s, -qm - 1.0f, qm + 1.0f));
        q[i] = (int8_t)(int)clampf(r, -qm, qm);
    }
}

/*
 * The fast path: groups that are whole multiples of 32 and rows that end
 * on a 32-bit word (cols % 32 == 0), so every group is packed with the
 * unrolled packer. Same codes and scales as the general path.
 */
/* x86-64 builds get an AVX2 clone picked at run time (GCC/Clang function
 * multiversioning): twice the lanes for the same IEEE operations, so the
 * codes do not change; other targets compile the plain version. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__ELF__)
#define KERN_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define KERN_CLONES
#endif

KERN_CLONES
static void quantize_rows_fast(const void *w, int is_f16, size_t cols, size_t r0, size_t r1,
                               unsigned bits, size_t group, uint8_t *codes, uint16_t *scales,
                               struct kern_qstats *st) {
    float buf[KERN_GROUP_MAX];
    int8_t q[KERN_GROUP_MAX];
    float qm = (float)kern_qmax(bits);
    size_t per_row = cols / group;
    uint8_t *out = codes + r0 * cols * bits / 8;
    for (size_t r = r0; r < r1; r++) {
        for (size_t gi = 0; gi < per_row; gi++) {
            const float *src;
            size_t base = r * cols + gi * group;
            if (is_f16) {
                for (size_t j = 0; j < group; j += 32)
                    kern_widen32((const uint16_t *)w + base + j, buf + j);
                src = buf;
            } else {
                src = (const float *)w + base;
            }
            float m = 0.0f;
            for (size_t j = 0; j < group; j += 32)
                m = amax32(src + j, m);
            uint16_t sh = kern_quant_scale(m, bits);
            scales[r * per_row + gi] = sh;
            float s = kern_f16_to_f32_inline(sh);
            if (s == 0.0f)
                memset(q, 0, group);
            else
                for (size_t j = 0; j < group; j += 32)
                    codes32(src + j, s, qm, q + j);
            for (size_t j = 0; j < group; j += 32, out += 4 * bits) {
                switch (bits) {
                case 2:
                    pack32(q + j, 2, out);
                    break;
                case 3:
                    pack32(q + j, 3, out);
                    break;
                case 4:
                    pack32(q + j, 4, out);
                    break;
                case 5:
                    pack32(q + j, 5, out);
                    break;
                case 6:
                    pack32(q + j, 6, out);
                    break;
                case 7:
                    pack32(q + j, 7, out);
                    break;
                default:
                    pack32(q + j, 8, out);
                    break;
                }
            }
            if (st)
                quant_stats(src, q, group, s, st);
        }
    }
}

/* Shared body of the two quantize_rows variants; conv widens a chunk. */
static int quantize_rows(const void *w, int is_f16, size_t cols, size_t r0, size_t r1,
                         unsigned bits, size_t group, uint8_t *codes, uint16_t *scales,
                         struct kern_qstats *st) {
    size_t bit0 = r0 * cols * bits;
    if (bit0 % 8 != 0)
        return -1;
    if (group != KERN_GROUP_MATRIX && group % 32 == 0 && cols % group == 0) {
        quantize_rows_fast(w, is_f16, cols, r0, r1, bits, group, codes, scales, st);
        return 0;
    }
    struct bitw bw = {codes + bit0 / 8, 0, 0};
    float buf[KERN_GROUP_MAX];
    size_t chunk = group == KERN_GROUP_MATRIX ? KERN_GROUP_MAX : group;
    float s_matrix = group == KERN_GROUP_MATRIX ? kern_f16_to_f32(scales[0]) : 0.0f;
    size_t per_row = group == KERN_GROUP_MATRIX ? 0 : (cols + group - 1) / group;
    for (size_t r = r0; r < r1; r++) {
        for (size_t c = 0, gi = 0; c < cols; c += chunk, gi++) {
            size_t n = cols - c < chunk ? cols - c : chunk;
            const float *src;
            if (is_f16) {
                kern_f16_to_f32_n((const uint16_t *)w + r * cols + c, buf, n);
                src = buf;
            } else {
                src = (const float *)w + r * cols + c;
            }
            float s = s_matrix;
            if (group != KERN_GROUP_MATRIX) {
                uint16_t sh = kern_quant_scale(amax_f32(src, n), bits);
                scales[r * per_row + gi] = sh;
                s = kern_f16_to_f32(sh);
            }
            quant_span(src, n, bits, s, &bw, st);
        }
    }
    bitw_flush(&bw);
    return 0;
}

/* Quantize rows [r0, r1) of a float matrix. */
int kern_quantize_rows_f32(const float *w, size_t cols, size_t r0, size_t r1, unsigned bits,
                           size_t group, uint8_t *codes, uint16_t *scales, struct kern_qstats *st) {
    return quantize_rows(w, 0, cols, r0, r1, bits, group, codes, scales, st);
}

/* Quantize rows [r0, r1) of an FP16 matrix. */
int kern_quantize_rows_f16(const uint16_t *w, size_t cols, size_t r0, size_t r1, unsigned bits,
                           size_t group, uint8_t *codes, uint16_t *scales, struct kern_qstats *st) {
    return quantize_rows(w, 1, cols, r0, r1, bits, group, codes, scales, st);
}

/* Quantize a whole float matrix. */
void kern_quantize_f32(const float *w, size_t rows, size_t cols, unsigned bits, size_t group,
                       uint8_t *codes, uint16_t *scales, struct kern_qstats *st) {
    if (group == KERN_GROUP_MATRIX)
        scales[0] = kern_quant_matrix_scale_f32(w, rows * cols, bits);
    kern_quantize_rows_f32(w, cols, 0, rows, bits, group, codes, scales, st);
}

/* Quantize a whole FP16 matrix. */
void kern_quantize_f16(const uint16_t *w, size_t rows, size_t cols, unsigned bits, size_t group,
                       uint8_t *codes, uint16_t *scales, struct kern_qstats *st) {
    if (group == KERN_GROUP_MATRIX)
        scales[0] = kern_quant_matrix_scale_f16(w, rows * cols, bits);
    kern_quantize_rows_f16(w, cols, 0, rows, bits, group, codes, scales, st);
}

/* Read code i (signed) from a packed stream. */
int kern_quant_get(const uint8_t *codes, size_t i, unsigned bits) {
    size_t bit = i * bits;
    const uint8_t *p = codes + bit / 8;
    unsigned sh = (unsigned)(bit % 8);
    /* a code spans at most two bytes (b <= 8); read the second only if needed */
    uint32_t v = p[0];
    if (sh + bits > 8)
        v |= (uint32_t)p[1] << 8;
    uint32_t u = (v >> sh) & ((1u << bits) - 1u);
    return (int)u - (1 << (bits - 1));
}

/* Unpack n signed codes starting at element i0. */
void kern_quant_unpack(const uint8_t *codes, size_t i0, size_t n, unsigned bits, int8_t *q) {
    int off = 1 << (bits - 1);
    if (bits == 8) {
        for (size_t i = 0; i < n; i++)
            q[i] = (int8_t)((int)codes[i0 + i] - off);
        return;
    }
    if (bits == 4 && i0 % 2 == 0) {
        const uint8_t *p = codes + i0 / 2;
        size_t i = 0;
        for (; i + 1 < n; i += 2, p++) {
            q[i] = (int8_t)((*p & 0xf) - off);
            q[i + 1] = (int8_t)((*p >> 4) - off);
        }
        if (i < n)
            q[i] = (int8_t)((*p & 0xf) - off);
        return;
    }
    size_t i = 0;
    if ((i0 * bits) % 8 == 0) {
        /* runs of 8 codes are exactly `bits` bytes from a byte boundary */
        const uint8_t *p = codes + i0 * bits / 8;
        for (; i + 8 <= n; i += 8, p += bits) {
            uint64_t acc = 0;
            for (unsigned b = 0; b < bits; b++)
                acc |= (uint64_t)p[b] << (8 * b);
            for (unsigned k = 0; k < 8; k++)
                q[i + k] = (int8_t)((int)((acc >> (k * bits)) & ((1u << bits) - 1u)) - off);
        }
    }
    for (; i < n; i++)
        q[i] = (int8_t)kern_quant_get(codes, i0 + i, bits);
}

/* Dequantize rows [r0, r1) to float. */
void kern_dequantize_rows_f32(const uint8_t *codes, const uint16_t *scales, size_t cols, size_t r0,
                              size_t r1, unsigned bits, size_t group, float *out) {
    int8_t q[KERN_GROUP_MAX];
    size_t chunk = group == KERN_GROUP_MATRIX ? KERN_GROUP_MAX : group;
    size_t per_row = group == KERN_GROUP_MATRIX ? 0 : (cols + group - 1) / group;
    for (size_t r = r0; r < r1; r++) {
        for (size_t c = 0, gi = 0; c < cols; c += chunk, gi++) {
            size_t n = cols - c < chunk ? cols - c : chunk;
            float s =
                kern_f16_to_f32(group == KERN_GROUP_MATRIX ? scales[0] : scales[r * per_row + gi]);
            kern_quant_unpack(codes, r * cols + c, n, bits, q);
            for (size_t i = 0; i < n; i++)
                out[r * cols + c + i] = (float)q[i] * s;
        }
    }
}

/* Dequantize rows [r0, r1) to FP16 (q*s is exact in float, then rounded). */
void kern_dequantize_rows_f16(const uint8_t *codes, const uint16_t *scales, size_t cols, size_t r0,
                              size_t r1, unsigned bits, size_t group, uint16_t *out) {
    int8_t q[KERN_GROUP_MAX];
    size_t chunk = group == KERN_GROUP_MATRIX ? KERN_GROUP_MAX : group;
    size_t per_row = group == KERN_GROUP_MATRIX ? 0 : (cols + group - 1) / group;
    for (size_t r = r0; r < r1; r++) {
        for (size_t c = 0, gi = 0; c < cols; c += chunk, gi++) {
            size_t n = cols - c < chunk ? cols - c : chunk;
            float s =
                kern_f16_to_f32(group == KERN_GROUP_MATRIX ? scales[0] : scales[r * per_row + gi]);
            kern_quant_unpack(codes, r * cols + c, n, bits, q);
            for (size_t i = 0; i < n; i++)
                out[r * cols + c + i] = kern_f32_to_f16_inline((float)q[i] * s);
        }
    }
}

/* ||w - w_hat|| / ||w|| (0 for an all-zero matrix). */
double kern_qstats_rel_error(const struct kern_qstats *st) {
    return st->sum_sq > 0 ? sqrt(st->sum_sq_err / st->sum_sq) : 0.0;
}

/* Fraction of codes equal to zero. */
double kern_qstats_zero_fraction(const struct kern_qstats *st) {
    return st->n ? (double)st->zeros / (double)st->n : 0.0;
}

/* max|w| / std(w), the population standard deviation (0 when std is 0). */
double kern_qstats_outlier_ratio(const struct kern_qstats *st) {
    if (st->n == 0)
        return 0.0;
    double mean = st->sum / (double)st->n;
    double var = st->sum_sq / (double)st->n - mean * mean;
    return var > 0 ? st->max_abs / sqrt(var) : 0.0;
}

/* Add b into a. */
void kern_qstats_merge(struct kern_qstats *a, const struct kern_qstats *b) {
    a->sum += b->sum;
    a->sum_sq += b->sum_sq;
    a->sum_sq_err += b->sum_sq_err;
    if (b->max_abs > a->max_abs)
        a->max_abs = b->max_abs;
    a->n += b->n;
    a->zeros += b->zeros;
}

/* ---- deterministic weights -------------------------------------------- */

/* Seed the generator. */
void kern_rng_seed(struct kern_rng *r, uint64_t seed) {
    r->s = seed;
    r->has_spare = 0;
    r->spare = 0;
}

/* splitmix64 (Steele, Lea, Flood 2014). */
uint64_t kern_rng_next(struct kern_rng *r) {
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 53 random bits. */
double kern_rng_uniform(struct kern_rng *r) {
    return (double)(kern_rng_next(r) >> 11) * 0x1p-53;
}

/* Gaussian sample by the Box-Muller transform. */
double kern_rng_normal(struct kern_rng *r, double mean, double sd) {
    if (r->has_spare) {
        r->has_spare = 0;
        return mean + sd * r->spare;
    }
    double u1 = 1.0 - kern_rng_uniform(r); /* (0, 1]: log is finite */
    double u2 = kern_rng_uniform(r);
    double m = sqrt(-2.0 * log(u1));
    r->spare = m * sin(2.0 * M_PI * u2);
    r->has_spare = 1;
    return mean + sd * m * cos(2.0 * M_PI * u2);
}

/* Gaussian weights with `outliers` planted at +-13 sd. */
void kern_weights_fill(float *w, size_t n, double sd, size_t outliers, uint64_t seed) {
    struct kern_rng r;
    kern_rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++)
        w[i] = (float)kern_rng_normal(&r, 0.0, sd);
    for (size_t k = 0; k < outliers && n > 0; k++) {
        size_t i = (size_t)(((double)k + 0.5) * (double)n / (double)outliers);
        w[i < n ? i : n - 1] = (float)((k % 2 ? -1.0 : 1.0) * KERN_OUTLIER_SIGMA * sd);
    }
}
