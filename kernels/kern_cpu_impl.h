/*
 * kern_cpu_impl.h: what each instruction-set path of kern_cpu.h provides
 * (internal to kernels/kern_cpu*.c).
 *
 * The shared driver (kern_cpu.c) checks arguments, widens x into the
 * scratch in the layout the path asks for, and splits the batch-2..16
 * products into tiles; a path supplies the inner loops.
 *
 * Scratch layout (per thread, 64-byte aligned): xf, batch rows of xpad
 * floats (x widened, zero padded to a multiple of KERN_CPU_LANES_MAX;
 * for Q4 with perm4 set, each run of 32 stored even elements first, then
 * odd); xs, for Q8/Q4, batch rows of ngroups floats (the sums of x over
 * each group: sum_g s_g sum q*x = sum_g s_g sum u*x - off * sum_g s_g xs_g,
 * so the code offset costs one dot product of a row's scales with xs,
 * not a subtraction per weight); sc, 4 rows of ngroups float scales
 * and 4 rows of off times them;
 * tile, 4 rows of KERN_CPU_TILE_COLS floats.
 *
 * A8 formats (W8A8, W4A8) use other pieces: xq, batch rows of xqpad
 * int8 codes of x in the path's order (below); xd, batch rows of up to
 * nblk x 4 floats, the scale d of the block each 32-bit lane of the
 * integer sums belongs to; xk, the same lanes' int32 starting values,
 * minus the code offset times the sum of the x codes the lane meets (so
 * the lane ends at the exact q * xq, not u * xq); xdr, batch rows of nblk
 * floats, d once per block; wsb, KERN_CPU_A8_ROWS rows of nblk FP16
 * weight scales, one per block of 32 (groups wider than 32).
 *
 * x's order for A8 (a half of a block: Q8 its elements 0-15 or 16-31, Q4
 * its even or odd elements, the low or high nibbles of its 16 bytes):
 *  - a8_unit 0: natural order (the portable path);
 *  - a8_vec 0, a8_unit P: units of P blocks, the P first halves, then the
 *    P second halves; a lane is 4 bytes of one half, 4 lanes a block;
 *  - a8_vec V (16, 32 or 64 bytes: one vector of the path), a8_unit
 *    2 V / 16: units of that many blocks laid out as four V-byte vectors
 *    (kern_cpu_a8_pos): in 128-bit lane m of each, two 4-byte lanes of
 *    block m and two of block m + V / 16, so four integer dot products
 *    of the unit's four weight vectors sum 16 bytes of a block into each
 *    of its 2 lanes; the weight codes are regrouped to match with two
 *    shuffle steps (by 128-bit lane, then by 64 bits within them).
 * After the last whole unit, blocks come one at a time as in units of
 * one block (first half, second half; 4 lanes). The lanes of unit U start
 * at U * lanes-per-unit in xd and xk; those of a block b past the whole
 * units at (whole units) * lanes-per-unit + (b - their blocks) * 4.
 */
#ifndef VRAMLAB_KERN_CPU_IMPL_H
#define VRAMLAB_KERN_CPU_IMPL_H

#include "kernels/kern_cpu.h"

#define KERN_CPU_LANES_MAX 16
#define KERN_CPU_TILE_ROWS 4
#ifndef KERN_CPU_TILE_COLS
#define KERN_CPU_TILE_COLS 512 /* floats per tile row: 4 x 2 KiB, in L1 */
#endif
#ifndef KERN_CPU_ROW_BLOCK
#define KERN_CPU_ROW_BLOCK 32 /* rows sharing one column block of x */
#endif

/* Where the pieces of the scratch are. */
struct kern_cpu_scratch {
    float *xf;   /* batch x xpad */
    float *xs;   /* batch x ngroups (Q only) */
    float *sc;   /* 4 x ngroups scales, then 4 x ngroups off * scale */
    float *tile; /* 4 x KERN_CPU_TILE_COLS */
    size_t xpad; /* padded row length of xf */
    size_t ngroups;
    unsigned lanes;
    /* A8 formats */
    int8_t *xq;
    float *xd, *xdr;
    int32_t *xk;
    uint16_t *wsb;
    size_t xqpad, nblk;
};

/* Rows an A8 kernel may ask block scales for at once (wsb slots). */
#define KERN_CPU_A8_ROWS 4

/* Batch-1 rows [r0, r1): y[r] = W[r] . x. */
typedef void (*kern_cpu_gemv1_fn)(const struct kern_gemv *g, const struct kern_cpu_scratch *s,
                                  size_t r0, size_t r1);
/* Widen (and for Q dequantize with the scales) rows [r, r + nr) of W,
 * columns [c0, c0 + n) (n a multiple of 32 or the row's end) into the
 * tile, each tile row zero padded to `npad` columns. Q4 keeps the
 * even/odd order of the path's x. */
typedef void (*kern_cpu_tile_fn)(const struct kern_gemv *g, const struct kern_cpu_scratch *s,
                                 size_t r, size_t nr, size_t c0, size_t n, size_t npad);
/* y[(b0 + k) * rows + r + i] += tile row i . x row b0 + k (columns c0..
 * c0 + npad of xf), i < nr, k < nb <= batch - b0; npad a multiple of the
 * path's lanes. */
typedef void (*kern_cpu_micro_fn)(const struct kern_gemv *g, const struct kern_cpu_scratch *s,
                                  size_t r, size_t nr, size_t c0, size_t npad);

/* Batches up to this run the direct small-batch kernels where a path has
 * them (no tile: memory-bound, W is widened once in registers). */
#define KERN_CPU_SMALL_BATCH 4

/* Bytes of x (as floats, all the batch's vectors) that one slice of
 * columns takes in the batch-2..16 FP16/BF16 kernels (gemvm): a quarter
 * of a 1 MiB L2, half of a 512 KiB one, so the slice stays in L2 while
 * every row of a piece passes over it (W's rows stream through once, x is
 * read from L2, not from L3 once per row). */
#ifndef KERN_CPU_SLICE_BYTES
#define KERN_CPU_SLICE_BYTES ((size_t)256 << 10)
#endif

/* Columns of a slice for `batch` vectors: a multiple of `lanes`, at least
 * one vector. */
static inline size_t kern_cpu_slice_cols(size_t batch, size_t lanes) {
    size_t c = KERN_CPU_SLICE_BYTES / (batch * sizeof(float)) / lanes * lanes;
    return c ? c : lanes;
}

/* The walk of a path's gemvm over rows [r0, r1) of g: x's columns in
 * slices of kern_cpu_slice_cols(batch, LANES) up to the last whole vector
 * (n_whole), in each every block of R rows taking the batch's vectors in
 * groups of V (V <= 6) and then the rest as one group. BLOCK(r, nr, b0,
 * c0, c1, first, last, pf, NV) runs one block and group, NV a constant; pf:
 * the block's first group, with the next block (this piece's) to
 * prefetch. */
#define KERN_CPU_GEMVM_WALK(g, r0, r1, LANES, R, V, BLOCK)                                          \
    do {                                                                                           \
        size_t n_whole = (g)->cols / (LANES) * (LANES), nb_ = (g)->batch;                           \
        size_t slice_ = kern_cpu_slice_cols(nb_, (LANES));                                         \
        for (size_t c0 = 0;; c0 += slice_) {                                                       \
            size_t c1 = n_whole - c0 < slice_ ? n_whole : c0 + slice_;                             \
            bool first = c0 == 0, last = c1 == n_whole;                                            \
            for (size_t r = (r0); r < (r1); r += (R)) {                                            \
                size_t nr = (r1) - r < (R) ? (r1) - r : (R), b0 = 0;                               \
                bool pf = r + 2 * (R) <= (r1);                                                     \
                for (; b0 + (V) <= nb_; b0 += (V), pf = false)                                     \
                    BLOCK(r, nr, b0, c0, c1, first, last, pf, (V));                                \
                switch (nb_ - b0) { /* fewer than V */                                             \
                case 5:                                                                            \
                    if (5 < (V))                                                                   \
                        BLOCK(r, nr, b0, c0, c1, first, last, pf, 5);                              \
                    break;                                                                         \
                case 4:                                                                            \
                    if (4 < (V))                                                                   \
                        BLOCK(r, nr, b0, c0, c1, first, last, pf, 4);                              \
                    break;                                                                         \
                case 3:                                                                            \
                    BLOCK(r, nr, b0, c0, c1, first, last, pf, 3);                                  \
                    break;                                                                         \
                case 2:                                                                            \
                    BLOCK(r, nr, b0, c0, c1, first, last, pf, 2);                                  \
                    break;                                                                         \
                case 1:                                                                            \
                    BLOCK(r, nr, b0, c0, c1, first, last, pf, 1);                                  \
                    break;                                                                         \
                default:                                                                           \
                    break;                                                                         \
                }                                                                                  \
            }                                                                                      \
            if (last)                                                                              \
                break;                                                                             \
        }                                                                                          \
    } while (0)

struct kern_cpu_impl {
    enum kern_isa isa;
    unsigned lanes; /* floats per vector */
    bool perm4;     /* Q4: x stored even/odd per 32 */
    unsigned a8_unit; /* A8: blocks per unit of x's order (0: natural order) */
    unsigned a8_vec;  /* A8: 0 (halves), or the vector bytes of the interleaved order */
    kern_cpu_gemv1_fn gemv1[KERN_W_COUNT];
    /* gemv1[KERN_W_Q8A8] and [KERN_W_Q4A8] take every batch */
    /* batch 2..KERN_CPU_SMALL_BATCH, rows [r0, r1), or NULL (tiles) */
    kern_cpu_gemv1_fn gemvs[KERN_W_COUNT];
    /* FP16/BF16 batch 2..16, rows [r0, r1): every vector per slice of x's
     * columns (kern_cpu_slice_cols), the next rows prefetched; taken before
     * gemvs where a path has it; NULL: gemvs, and past
     * KERN_CPU_SMALL_BATCH passes of it over the whole rows */
    kern_cpu_gemv1_fn gemvm[KERN_W_COUNT];
    kern_cpu_tile_fn tile[KERN_W_COUNT];
    kern_cpu_micro_fn micro;
    /* kern_quantize_act8 of nblk blocks of 32 (natural order), the twin's
     * codes and scales bit for bit; NULL: the twin itself */
    void (*quant_x8)(const uint16_t *x, size_t nblk, int8_t *q, float *d);
    void (*quantize)(const uint16_t *w, size_t cols, size_t r0, size_t r1, unsigned bits,
                     size_t group, uint8_t *codes, uint16_t *scales);
    void (*dequantize)(const uint8_t *codes, const uint16_t *scales, size_t cols, size_t r0,
                       size_t r1, unsigned bits, size_t group, uint16_t *out);
    void (*copy)(void *dst, const void *src, size_t n);
    double (*sum)(const double *a, size_t n);
    double (*fma_loop)(uint64_t iters, float a, float b);
};

extern const struct kern_cpu_impl kern_cpu_impl_scalar;
#if defined(__x86_64__)
extern const struct kern_cpu_impl kern_cpu_impl_avx2;
extern const struct kern_cpu_impl kern_cpu_impl_avx512;
#endif
#if defined(__aarch64__)
extern const struct kern_cpu_impl kern_cpu_impl_neon;
#endif

/* ---- plain-C pieces every path shares (no intrinsics) -------------------- */

#include "kernels/kern_half.h"

/* Zero tile rows [nr, 4) and the padding of the used rows. */
static inline void kern_cpu_tile_pad(const struct kern_cpu_scratch *s, size_t nr, size_t n,
                                     size_t npad) {
    for (size_t i = 0; i < KERN_CPU_TILE_ROWS; i++) {
        float *t = s->tile + i * KERN_CPU_TILE_COLS;
        for (size_t c = i < nr ? n : 0; c < npad; c++)
            t[c] = 0.0f;
    }
}

/* Columns [c, n) of a 16-bit row times x, one at a time (the ragged end). */
static inline float kern_cpu_half_tail(const uint16_t *w, const float *x, size_t c, size_t n,
                                       bool bf) {
    float t = 0;
    for (; c < n; c++)
        t += (bf ? kern_bf16_to_f32(w[c]) : kern_f16_to_f32_inline(w[c])) * x[c];
    return t;
}

/* The x rows of a small batch (past the batch: the last again, unused). */
static inline void kern_cpu_xrows4(const struct kern_gemv *g, const struct kern_cpu_scratch *s,
                                   const float *xr[4]) {
    for (size_t k = 0; k < 4; k++)
        xr[k] = s->xf + (k < g->batch ? k : g->batch - 1) * s->xpad;
}

/* The four formats' entry points of a path from its bodies: NAME_f16 and
 * NAME_bf16 call BODY(..., bf), NAME_q8 and NAME_q4 call QBODY(..., bits).
 * ARGS/CALL are the entry's parameters and the body's leading arguments. */
#define KERN_CPU_FORMATS(NAME, BODY, QBODY, ARGS, CALL)                                            \
    static void NAME##_f16 ARGS {                                                                  \
        BODY(CALL, false);                                                                         \
    }                                                                                              \
    static void NAME##_bf16 ARGS {                                                                 \
        BODY(CALL, true);                                                                          \
    }                                                                                              \
    static void NAME##_q8 ARGS {                                                                   \
        QBODY(CALL, 8);                                                                            \
    }                                                                                              \
    static void NAME##_q4 ARGS {                                                                   \
        QBODY(CALL, 4);                                                                            \
    }
#define KERN_CPU_ROWS_ARGS                                                                         \
    (const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r0, size_t r1)
#define KERN_CPU_ROWS_CALL g, s, r0, r1
#define KERN_CPU_TILE_ARGS                                                                         \
    (const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r, size_t nr, size_t c0,  \
     size_t n, size_t npad)
#define KERN_CPU_TILE_CALL g, s, r, nr, c0, n, npad

/* Where element p (< 16) of half h of block b of x goes in the
 * interleaved A8 order with vectors of V bytes (kern_cpu_impl.h), b < the
 * unit's 2 V / 16 blocks: its offset in the unit. */
static inline size_t kern_cpu_a8_pos(unsigned b, unsigned h, unsigned p, unsigned V) {
    unsigned l128 = V / 16, m = b % l128, upper = b / l128, dq = p / 4;
    unsigned k = 2 * h + dq / 2, j = (dq & 1) + 2 * upper;
    return (size_t)k * V + m * 16 + j * 4 + p % 4;
}

/* The FP16 weight scale of every block of 32 of row r: the row's own
 * scales when the group is 32, else expanded into wsb slot `slot`. */
static inline const uint16_t *kern_cpu_a8_wscales(const struct kern_gemv *g,
                                                  const struct kern_cpu_scratch *s, size_t r,
                                                  unsigned slot) {
    size_t ng = g->cols / g->group, per = g->group / 32;
    const uint16_t *src = g->scales + r * ng;
    if (per == 1)
        return src;
    uint16_t *dst = s->wsb + slot * s->nblk;
    for (size_t k = 0; k < s->nblk; k++)
        dst[k] = src[k / per];
    return dst;
}

/* The scratch pieces of a GEMV for a path. */
void kern_cpu_scratch_map(const struct kern_gemv *g, unsigned lanes, void *base,
                          struct kern_cpu_scratch *s);


#endif
