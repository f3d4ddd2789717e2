/*
 * kern_cpu.c: the dispatch and the shared driver of the fast CPU kernels
 * (see kern_cpu.h and kern_cpu_impl.h).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kern_cpu.h"
#include "kernels/kern_cpu_impl.h"
#include "kernels/kern_half.h"
#include "kernels/kern_quant.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#endif

static const char *const isa_names[KERN_ISA_COUNT] = {"scalar", "avx2", "avx512", "neon"};

/* The path's name. */
const char *kern_isa_name(enum kern_isa isa) {
    return (unsigned)isa < KERN_ISA_COUNT ? isa_names[isa] : "?";
}

#if defined(__x86_64__) && defined(__GNUC__)
/* XCR0, the register state the OS saves (0 without OSXSAVE). */
static unsigned long long xcr0(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27)))
        return 0;
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((unsigned long long)hi << 32) | lo;
}

/* AVX2 + FMA + F16C with the YMM state enabled by the OS. */
static bool x86_avx2(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return false;
    bool fma = c & (1u << 12), f16c = c & (1u << 29), avx = c & (1u << 28);
    if (!fma || !f16c || !avx || (xcr0() & 6) != 6)
        return false;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return false;
    return b & (1u << 5);
}

/* AVX-512 VNNI (CPUID.7.0:ECX bit 11), on top of x86_avx512(). */
static bool x86_avx512_vnni(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return false;
    return (c & (1u << 11)) != 0;
}

/* AVX-512 F + BW + VL + DQ with the ZMM and opmask state enabled. */
static bool x86_avx512(void) {
    unsigned a, b, c, d;
    if (!x86_avx2() || (xcr0() & 0xe6) != 0xe6)
        return false;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return false;
    unsigned need = (1u << 16) | (1u << 17) | (1u << 30) | (1u << 31); /* F DQ BW VL */
    return (b & need) == need;
}
#endif

/* The table of a path, or NULL when this build lacks it. */
static const struct kern_cpu_impl *impl_of(enum kern_isa isa) {
    switch (isa) {
    case KERN_ISA_SCALAR:
        return &kern_cpu_impl_scalar;
#if defined(__x86_64__)
    case KERN_ISA_AVX2:
        return &kern_cpu_impl_avx2;
    case KERN_ISA_AVX512:
        return &kern_cpu_impl_avx512;
#endif
#if defined(__aarch64__)
    case KERN_ISA_NEON:
        return &kern_cpu_impl_neon;
#endif
    default:
        return NULL;
    }
}

/* Whether this build and this machine can run the path. */
bool kern_isa_supported(enum kern_isa isa) {
    if (!impl_of(isa))
        return false;
    switch (isa) {
#if defined(__x86_64__) && defined(__GNUC__)
    case KERN_ISA_AVX2:
        return x86_avx2();
    case KERN_ISA_AVX512:
        return x86_avx512();
#endif
    default:
        return true; /* scalar everywhere, NEON on every aarch64 */
    }
}

/* The widest supported path. */
enum kern_isa kern_isa_best(void) {
    if (kern_isa_supported(KERN_ISA_AVX512))
        return KERN_ISA_AVX512;
    if (kern_isa_supported(KERN_ISA_AVX2))
        return KERN_ISA_AVX2;
    if (kern_isa_supported(KERN_ISA_NEON))
        return KERN_ISA_NEON;
    return KERN_ISA_SCALAR;
}

/* Comma list of the supported paths. */
void kern_isa_list(char *buf, size_t len) {
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < KERN_ISA_COUNT && n < len; i++)
        if (kern_isa_supported((enum kern_isa)i))
            n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "," : "", isa_names[i]);
}

/* VRAMLAB_CPU_ISA, or the best path. */
int kern_isa_from_env(enum kern_isa *isa, char *err, size_t errlen) {
    const char *e = getenv("VRAMLAB_CPU_ISA");
    *isa = kern_isa_best();
    if (!e || !*e)
        return 0;
    for (int i = 0; i < KERN_ISA_COUNT; i++)
        if (strcmp(e, isa_names[i]) == 0) {
            if (!kern_isa_supported((enum kern_isa)i)) {
                char list[64];
                kern_isa_list(list, sizeof list);
                snprintf(err, errlen, "VRAMLAB_CPU_ISA=%s: this %s cannot run it (it runs: %s)", e,
                         impl_of((enum kern_isa)i) ? "CPU" : "build", list);
                return -1;
            }
            *isa = (enum kern_isa)i;
            return 0;
        }
    snprintf(err, errlen, "VRAMLAB_CPU_ISA=%s: unknown path (scalar, avx2, avx512 or neon)", e);
    return -1;
}

/* VNNI for the AVX-512 path's A8 kernels (kern_cpu_impl.h). */
bool kern_cpu_have_vnni(void) {
    static int cached = -1;
    if (cached < 0) {
#if defined(__x86_64__) && defined(__GNUC__)
        const char *e = getenv("VRAMLAB_TEST_NO_VNNI");
        cached = x86_avx512() && x86_avx512_vnni() && !(e && *e);
#else
        cached = 0;
#endif
    }
    return cached != 0;
}

/* The next path down that this machine runs. */
enum kern_isa kern_isa_lower(enum kern_isa isa) {
    if (isa == KERN_ISA_AVX512 && kern_isa_supported(KERN_ISA_AVX2))
        return KERN_ISA_AVX2;
    return KERN_ISA_SCALAR;
}

/* VRAMLAB_TEST_BREAK_ISA, read once: the path whose GEMVs are broken on
 * purpose (kern_cpu.h), or -1. */
static int broken_isa(void) {
    static int cached = -2;
    if (cached == -2) {
        const char *e = getenv("VRAMLAB_TEST_BREAK_ISA");
        cached = -1;
        for (int i = 0; e && i < KERN_ISA_COUNT; i++)
            if (strcmp(e, isa_names[i]) == 0)
                cached = i;
    }
    return cached;
}

/* ---- GEMV --------------------------------------------------------------- */

static size_t round_up(size_t v, size_t m) {
    return (v + m - 1) / m * m;
}

static bool is_q(enum kern_wfmt f) {
    return f == KERN_W_Q8 || f == KERN_W_Q4;
}

static const char *const wfmt_names[KERN_W_COUNT] = {"FP16",  "BF16", "W8A16",
                                                     "W4A16", "W8A8", "W4A8"};

const char *kern_wfmt_name(enum kern_wfmt f) {
    return (unsigned)f < KERN_W_COUNT ? wfmt_names[f] : "?";
}

unsigned kern_wfmt_bits(enum kern_wfmt f) {
    return f == KERN_W_Q8 || f == KERN_W_Q8A8 ? 8 : f == KERN_W_Q4 || f == KERN_W_Q4A8 ? 4 : 16;
}

bool kern_wfmt_a8(enum kern_wfmt f) {
    return f == KERN_W_Q8A8 || f == KERN_W_Q4A8;
}

/* Bytes of each scratch piece, each a multiple of 64. */
static void scratch_sizes(const struct kern_gemv *g, size_t sz[4]) {
    if (kern_wfmt_a8(g->fmt)) {
        size_t nblk = g->cols / 32;
        sz[0] = g->batch * round_up(g->cols, 64);                         /* xq */
        sz[1] = 2 * round_up(g->batch * nblk * 4 * sizeof(float), 64);    /* xd, xk */
        sz[2] = round_up(g->batch * nblk * sizeof(float), 64);            /* xdr */
        sz[3] = round_up(KERN_CPU_A8_ROWS * nblk * sizeof(uint16_t), 64); /* wsb */
        return;
    }
    size_t xpad = round_up(g->cols, KERN_CPU_LANES_MAX);
    size_t ng = is_q(g->fmt) && g->group ? g->cols / g->group : 0;
    sz[0] = round_up(g->batch * xpad * sizeof(float), 64);
    sz[1] = round_up(g->batch * ng * sizeof(float), 64);
    sz[2] = round_up(2 * KERN_CPU_TILE_ROWS * (ng ? ng : 1) * sizeof(float), 64);
    sz[3] = round_up(KERN_CPU_TILE_ROWS * KERN_CPU_TILE_COLS * sizeof(float), 64);
}

/* Per-thread scratch bytes. */
size_t kern_cpu_gemv_scratch(const struct kern_gemv *g) {
    size_t sz[4];
    scratch_sizes(g, sz);
    return sz[0] + sz[1] + sz[2] + sz[3];
}

/* The scratch pieces. */
void kern_cpu_scratch_map(const struct kern_gemv *g, unsigned lanes, void *base,
                          struct kern_cpu_scratch *s) {
    size_t sz[4];
    scratch_sizes(g, sz);
    char *p = base;
    memset(s, 0, sizeof *s);
    s->lanes = lanes;
    if (kern_wfmt_a8(g->fmt)) {
        s->nblk = g->cols / 32;
        s->xqpad = round_up(g->cols, 64);
        s->xq = (int8_t *)p;
        s->xd = (float *)(p + sz[0]);
        s->xk = (int32_t *)(p + sz[0] + sz[1] / 2);
        s->xdr = (float *)(p + sz[0] + sz[1]);
        s->wsb = (uint16_t *)(p + sz[0] + sz[1] + sz[2]);
        return;
    }
    s->xf = (float *)p;
    s->xs = (float *)(p + sz[0]);
    s->sc = (float *)(p + sz[0] + sz[1]);
    s->tile = (float *)(p + sz[0] + sz[1] + sz[2]);
    s->xpad = round_up(g->cols, KERN_CPU_LANES_MAX);
    s->ngroups = is_q(g->fmt) && g->group ? g->cols / g->group : 0;
    s->lanes = lanes;
}

/* Whether the fast kernels take this GEMV. */
int kern_cpu_gemv_check(const struct kern_gemv *g, char *err, size_t errlen) {
    if ((unsigned)g->fmt >= KERN_W_COUNT || !g->w || !g->x || !g->y || g->rows == 0 ||
        g->cols == 0) {
        snprintf(err, errlen, "empty or unknown GEMV");
        return -1;
    }
    if (g->batch < 1 || g->batch > KERN_CPU_BATCH_MAX) {
        snprintf(err, errlen, "batch %zu outside 1..%d", g->batch, KERN_CPU_BATCH_MAX);
        return -1;
    }
    if ((is_q(g->fmt) || kern_wfmt_a8(g->fmt)) &&
        (!g->scales || g->group == 0 || g->group % 32 || g->cols % g->group ||
         g->group > KERN_GROUP_MAX)) {
        snprintf(err, errlen,
                 "quantized GEMV needs a group that is a multiple of 32 up to %u"
                 " and divides the %zu columns (group %zu)",
                 KERN_GROUP_MAX, g->cols, g->group);
        return -1;
    }
    return 0;
}

/* Where element i (< 32) of block k of x goes in the path's A8 order
 * (kern_cpu_impl.h), and the index of the 32-bit lane that meets it. */
static size_t a8_pos(const struct kern_cpu_impl *im, size_t k, unsigned i, bool q4, size_t nblk,
                     size_t *lane) {
    unsigned h = q4 ? i % 2 : i / 16, p = q4 ? i / 2 : i % 16, B = im->a8_unit;
    if (B == 0) {
        *lane = 0;
        return k * 32 + i;
    }
    unsigned V = im->a8_vec ? im->a8_vec : 16 * B; /* a halves unit's lanes: 4 bytes of a half */
    size_t full = nblk / B * B;
    if (k >= full) { /* past the whole units: units of one block */
        *lane = full / B * (V / 4) + (k - full) * 4 + p / 4;
        return k * 32 + h * 16 + p;
    }
    size_t u = k / B, b = k % B, off;
    if (im->a8_vec)
        off = kern_cpu_a8_pos((unsigned)b, h, p, V);
    else
        off = h * 16 * B + b * 16 + p;
    *lane = u * (V / 4) + (off % V) / 4;
    return u * 32 * B + off;
}

/* Quantize x into the scratch in the path's order, with the scale of each
 * lane's block and the lanes' exact offset sums (every lane meets the
 * codes of one block only). In every order a block's codes move in groups
 * of 4 (4 bytes of one half, one lane's share of one dot product: a lane
 * meets 2 such groups, or 4 in the interleaved orders), so a block is 8
 * word copies to the places a table made once per call says. */
static void prepare_a8(const struct kern_cpu_impl *im, const struct kern_gemv *g,
                       const struct kern_cpu_scratch *s) {
    bool q4 = g->fmt == KERN_W_Q4A8;
    int off = q4 ? 8 : 128;
    unsigned B = im->a8_unit, V = im->a8_vec ? im->a8_vec : 16 * (B ? B : 1);
    size_t nblk = s->nblk, full = B ? nblk / B * B : 0, lanes_u = V / 4;
    /* group t (half t / 4, bytes 4 (t % 4) of it) of block b of a unit
     * (b < B), or of a block past the whole units (b = B): its place in the
     * unit (the block) and its lane */
    uint16_t gpos[9][8];
    uint8_t glane[9][8];
    for (unsigned b = 0; b <= B && B; b++)
        for (unsigned t = 0; t < 8; t++) {
            unsigned h = t / 4, p = 4 * (t % 4), i = q4 ? 2 * p + h : 16 * h + p;
            size_t ln, k = b < B ? b : full; /* past the whole units: the first such */
            size_t at = a8_pos(im, k, i, q4, b < B ? nblk : full + 1, &ln);
            gpos[b][t] = (uint16_t)(b < B ? at : at - k * 32);
            glane[b][t] = (uint8_t)(b < B ? ln : ln - full / B * lanes_u);
        }
    for (size_t v = 0; v < g->batch; v++) {
        int8_t *xq = s->xq + v * s->xqpad;
        float *xd = s->xd + v * nblk * 4, *xdr = s->xdr + v * nblk;
        int32_t *xk = s->xk + v * nblk * 4;
        const uint16_t *x = g->x + v * g->cols;
        if (!B) { /* natural order */
            kern_cpu_quantize_act8(im->isa, x, g->cols, xq, xdr);
            continue;
        }
        for (size_t k0 = 0; k0 < nblk; k0 += 8) {
            int8_t q[8 * 32];
            size_t nk = nblk - k0 < 8 ? nblk - k0 : 8;
            kern_cpu_quantize_act8(im->isa, x + k0 * 32, nk * 32, q, xdr + k0);
            for (size_t j = 0; j < nk; j++) {
                size_t k = k0 + j;
                unsigned b = k < full ? (unsigned)(k % B) : B;
                size_t base = k < full ? k / B * 32 * B : k * 32;
                size_t lb = k < full ? k / B * lanes_u : full / B * lanes_u + (k - full) * 4;
                int8_t hq[32]; /* the block's halves: first then second */
                const int8_t *qb = q + 32 * j;
                if (q4) {
                    for (unsigned i = 0; i < 16; i++) {
                        hq[i] = qb[2 * i];
                        hq[16 + i] = qb[2 * i + 1];
                    }
                    qb = hq;
                }
                for (unsigned t = 0; t < 8; t++) { /* a lane meets 2 or 4 groups */
                    xk[lb + glane[b][t]] = 0;
                    xd[lb + glane[b][t]] = xdr[k];
                }
                for (unsigned t = 0; t < 8; t++) {
                    const int8_t *gq = qb + 4 * t;
                    memcpy(xq + base + gpos[b][t], gq, 4);
                    xk[lb + glane[b][t]] -= off * (gq[0] + gq[1] + gq[2] + gq[3]);
                }
            }
        }
        for (size_t c = g->cols; c < s->xqpad; c++)
            xq[c] = 0;
    }
}

/* Widen x (and its group sums) into the scratch. */
void kern_cpu_gemv_prepare(enum kern_isa isa, const struct kern_gemv *g, void *scratch) {
    const struct kern_cpu_impl *im = impl_of(isa);
    struct kern_cpu_scratch s;
    kern_cpu_scratch_map(g, im->lanes, scratch, &s);
    if (kern_wfmt_a8(g->fmt)) {
        prepare_a8(im, g, &s);
        return;
    }
    bool perm = im->perm4 && g->fmt == KERN_W_Q4;
    for (size_t b = 0; b < g->batch; b++) {
        const uint16_t *xb = g->x + b * g->cols;
        float *xf = s.xf + b * s.xpad;
        size_t c = 0;
        if (perm) {
            /* cols is a multiple of 32 here: evens of each 32, then odds */
            for (; c < g->cols; c += 32)
                for (unsigned k = 0; k < 16; k++) {
                    xf[c + k] = kern_f16_to_f32_inline(xb[c + 2 * k]);
                    xf[c + 16 + k] = kern_f16_to_f32_inline(xb[c + 2 * k + 1]);
                }
        } else {
            for (; c < g->cols; c++)
                xf[c] = kern_f16_to_f32_inline(xb[c]);
        }
        for (; c < s.xpad; c++)
            xf[c] = 0.0f;
        if (!s.ngroups)
            continue;
        /* the group sums of x, in the stored order (any order sums the
         * same values; pairwise in 8 lanes like the kernels) */
        for (size_t gi = 0; gi < s.ngroups; gi++) {
            const float *p = xf + gi * g->group;
            float lane[8] = {0};
            for (size_t k = 0; k < g->group; k += 8)
                for (unsigned l = 0; l < 8; l++)
                    lane[l] += p[k + l];
            s.xs[b * s.ngroups + gi] = ((lane[0] + lane[1]) + (lane[2] + lane[3])) +
                                       ((lane[4] + lane[5]) + (lane[6] + lane[7]));
        }
    }
}

static void kern_cpu_gemv_rows_impl(const struct kern_cpu_impl *im, const struct kern_gemv *g,
                                    const struct kern_cpu_scratch *sp, size_t r0, size_t r1);

/* Rows [r0, r1) of y. */
void kern_cpu_gemv_rows(enum kern_isa isa, const struct kern_gemv *g, void *scratch, size_t r0,
                        size_t r1) {
    const struct kern_cpu_impl *im = impl_of(isa);
    struct kern_cpu_scratch s;
    kern_cpu_scratch_map(g, im->lanes, scratch, &s);
    if (r0 < r1 && (int)isa == broken_isa()) {
        kern_cpu_gemv_rows_impl(im, g, &s, r0, r1);
        g->y[r0] = g->y[r0] * 1.5f + 1.0f; /* the test hook's wrong answer */
        return;
    }
    kern_cpu_gemv_rows_impl(im, g, &s, r0, r1);
}

/* The path's kernels over rows [r0, r1). */
static void kern_cpu_gemv_rows_impl(const struct kern_cpu_impl *im, const struct kern_gemv *g,
                                    const struct kern_cpu_scratch *sp, size_t r0, size_t r1) {
    struct kern_cpu_scratch s = *sp;
    if (g->batch == 1 || kern_wfmt_a8(g->fmt)) {
        im->gemv1[g->fmt](g, &s, r0, r1);
        return;
    }
    if (im->gemvm[g->fmt]) {
        im->gemvm[g->fmt](g, &s, r0, r1);
        return;
    }
    if (g->batch <= KERN_CPU_SMALL_BATCH && im->gemvs[g->fmt]) {
        im->gemvs[g->fmt](g, &s, r0, r1);
        return;
    }
    if (!is_q(g->fmt) && im->gemvs[g->fmt]) {
        /* FP16/BF16 at 5..16: passes of up to 4 vectors over each pair of
         * rows (the rows stay in L1/L2 between passes; widening them again
         * costs less than a tile's store and reload) */
        for (size_t b0 = 0; b0 < g->batch; b0 += KERN_CPU_SMALL_BATCH) {
            struct kern_gemv part = *g;
            struct kern_cpu_scratch ps = s;
            part.batch =
                g->batch - b0 < KERN_CPU_SMALL_BATCH ? g->batch - b0 : KERN_CPU_SMALL_BATCH;
            part.y = g->y + b0 * g->rows;
            part.x = g->x + b0 * g->cols; /* paths that read x itself (FMLAL) */
            ps.xf = s.xf + b0 * s.xpad;
            if (part.batch == 1)
                im->gemv1[g->fmt](&part, &ps, r0, r1);
            else
                im->gemvs[g->fmt](&part, &ps, r0, r1);
        }
        return;
    }
    for (size_t rb = r0; rb < r1; rb += KERN_CPU_ROW_BLOCK) {
        size_t re = rb + KERN_CPU_ROW_BLOCK < r1 ? rb + KERN_CPU_ROW_BLOCK : r1;
        for (size_t b = 0; b < g->batch; b++)
            for (size_t r = rb; r < re; r++)
                g->y[b * g->rows + r] = 0.0f;
        for (size_t c0 = 0; c0 < g->cols; c0 += KERN_CPU_TILE_COLS) {
            size_t n = g->cols - c0 < KERN_CPU_TILE_COLS ? g->cols - c0 : KERN_CPU_TILE_COLS;
            size_t npad = round_up(n, im->lanes);
            for (size_t r = rb; r < re; r += KERN_CPU_TILE_ROWS) {
                size_t nr = re - r < KERN_CPU_TILE_ROWS ? re - r : KERN_CPU_TILE_ROWS;
                im->tile[g->fmt](g, &s, r, nr, c0, n, npad);
                im->micro(g, &s, r, nr, c0, npad);
            }
        }
    }
}

/* ---- quantize, dequantize, copy, sum, FMA -------------------------------- */

bool kern_cpu_quant_fast(unsigned bits, size_t group, size_t cols) {
    return (bits == 4 || bits == 8) && group >= 32 && group % 32 == 0 && group <= KERN_GROUP_MAX &&
           cols % group == 0;
}

void kern_cpu_quantize_f16(enum kern_isa isa, const uint16_t *w, size_t cols, size_t r0, size_t r1,
                           unsigned bits, size_t group, uint8_t *codes, uint16_t *scales) {
    impl_of(isa)->quantize(w, cols, r0, r1, bits, group, codes, scales);
}

void kern_cpu_dequantize_f16(enum kern_isa isa, const uint8_t *codes, const uint16_t *scales,
                             size_t cols, size_t r0, size_t r1, unsigned bits, size_t group,
                             uint16_t *out) {
    impl_of(isa)->dequantize(codes, scales, cols, r0, r1, bits, group, out);
}

void kern_cpu_quantize_act8(enum kern_isa isa, const uint16_t *x, size_t n, int8_t *q, float *d) {
    const struct kern_cpu_impl *im = impl_of(isa);
    if (im->quant_x8)
        im->quant_x8(x, n / 32, q, d);
    else
        kern_quantize_act8(x, n, q, d);
}

void kern_cpu_copy(enum kern_isa isa, void *dst, const void *src, size_t n) {
    impl_of(isa)->copy(dst, src, n);
}

double kern_cpu_sum(enum kern_isa isa, const double *a, size_t n) {
    return impl_of(isa)->sum(a, n);
}

double kern_cpu_fma_loop(enum kern_isa isa, uint64_t iters, float a, float b) {
    return impl_of(isa)->fma_loop(iters, a, b);
}

unsigned kern_cpu_fma_lanes(enum kern_isa isa) {
    return impl_of(isa)->lanes;
}

/* One lane of every chain, one value at a time. */
double kern_cpu_fma_lane_ref(enum kern_isa isa, uint64_t iters, float a, float b) {
    double sum = 0;
    for (unsigned k = 0; k < KERN_CPU_FMA_CHAINS; k++) {
        volatile float v = (float)k * 0.25f; /* volatile: no contraction, no folding */
        for (uint64_t i = 0; i < iters; i++) {
            if (isa == KERN_ISA_SCALAR) {
                volatile float m = v * a;
                v = m + b;
            } else {
                v = fmaf(v, a, b);
            }
        }
        sum += v;
    }
    return sum;
}
