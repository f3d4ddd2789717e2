/*
 * kern_cpu.h: the fast CPU kernels the probe's CPU backend times, with
 * run-time dispatch over instruction sets.
 *
 * The twins in kern_quant.h stay the references: every kernel here gives
 * the twin's codes and scales bit for bit (quantize, dequantize) or the
 * float64 reference's products within KERN_GEMV_RTOL (the GEMVs), on every
 * path, which tests/test_kern_cpu.c checks on awkward shapes.
 *
 * Paths (enum kern_isa): a portable C path (written so a compiler can
 * vectorise it at the target's baseline), AVX2 + FMA + F16C and AVX-512
 * (F, BW, VL) on x86-64, NEON on aarch64. kern_isa_best() is the widest
 * the CPU and the OS (XSAVE state) support; VRAMLAB_CPU_ISA=scalar|avx2|
 * avx512|neon forces one (refused with a message when the machine cannot
 * run it), so the tests run every path the machine can.
 *
 * Design (ours; informed by reading llama.cpp's ggml-cpu, whose code is
 * not used): weights stream once, several rows at a time, each with its
 * own accumulators; the activations are widened to float once per call
 * into a per-thread scratch buffer that stays in cache, never re-read per
 * weight; a quantized group of 32 is expanded in registers (4-bit: one
 * 16-byte load gives the even elements in the low nibbles and the odd
 * ones in the high nibbles, so x is stored even/odd de-interleaved per 32
 * to match) and its sum q*x is scaled once (batch 1) or the dequantized
 * tile is reused across the vectors (batch 2..16).
 *
 * W8A8 / W4A8: x is quantized once per call into the scratch (int8 codes
 * per block of 32 and their scales, laid out as the path's loads want
 * them: within a unit of P blocks, the first half of every block, then
 * the second halves, where a half of a Q4 block is its even or its odd
 * elements, so the low and high nibbles of a 16-byte load meet their x
 * with no shuffle). Every path forms, per block, four 32-bit lanes of the
 * exact integer sum q * xq (AVX-512 VNNI vpdpbusd, AVX2 vpmaddubsw and
 * vpmaddwd, NEON sdot), with the code offset taken off in the integers,
 * then scales the block once (one float multiply-add of the four lanes
 * by s_w * d). The weight layout is the W8A16 / W4A16 one: no repack.
 * Valid C and C++.
 */
#ifndef VRAMLAB_KERN_CPU_H
#define VRAMLAB_KERN_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum kern_isa {
    KERN_ISA_SCALAR = 0,
    KERN_ISA_AVX2,
    KERN_ISA_AVX512,
    KERN_ISA_NEON,
    KERN_ISA_COUNT
};

/* "scalar", "avx2", "avx512", "neon". */
const char *kern_isa_name(enum kern_isa isa);
/* Whether this build has the path and this CPU (and OS) can run it. */
bool kern_isa_supported(enum kern_isa isa);
/* The widest supported path. */
enum kern_isa kern_isa_best(void);
/* The path to use: VRAMLAB_CPU_ISA when set (0, or -1 with a message when
 * it names an unknown or unsupported path), else the best. */
int kern_isa_from_env(enum kern_isa *isa, char *err, size_t errlen);
/* Comma list of the supported paths ("scalar,avx2"). */
void kern_isa_list(char *buf, size_t len);

/* Weight formats of the GEMVs. */
enum kern_wfmt {
    KERN_W_F16 = 0, /* FP16 rows x cols */
    KERN_W_BF16,    /* BF16 rows x cols */
    KERN_W_Q8,      /* 8-bit codes (offset binary), FP16 scale per group */
    KERN_W_Q4,      /* 4-bit codes (offset binary, low nibble first), FP16 scales */
    /* The same weights as Q8 / Q4 with x quantized to 8 bits per block of
     * 32 (kern_quantize_act8 in kern_quant.h) and integer dot products:
     * W8A8 / W4A8, what llama.cpp's q8_0 / q4_0 and the CPU runtimes run */
    KERN_W_Q8A8,
    KERN_W_Q4A8,
    KERN_W_COUNT
};

/* "FP16", "BF16", "W8A16", "W4A16", "W8A8", "W4A8". */
const char *kern_wfmt_name(enum kern_wfmt f);
/* Bits a weight's code takes (16, 8 or 4; the group scales come on top). */
unsigned kern_wfmt_bits(enum kern_wfmt f);
/* Whether x is quantized to 8 bits (W8A8, W4A8). */
bool kern_wfmt_a8(enum kern_wfmt f);

#define KERN_CPU_BATCH_MAX 16

/* One GEMV: y[b * rows + r] = sum_c W[r][c] * x[b * cols + c] for b < batch
 * (A8 formats: x as its 8-bit codes times their block scales). Threads
 * that split the rows should split at multiples of KERN_CPU_ROW_ALIGN rows,
 * so no two share a cache line of y (and a 4-bit row pair ends on a byte). */
#define KERN_CPU_ROW_ALIGN 16
struct kern_gemv {
    enum kern_wfmt fmt;
    const void *w;          /* FP16/BF16 values or packed codes */
    const uint16_t *scales; /* Q8/Q4: FP16 scales, cols / group per row */
    size_t group;           /* Q8/Q4: a multiple of 32 dividing cols */
    size_t rows, cols;
    const uint16_t *x; /* batch x cols FP16 */
    size_t batch;      /* 1..KERN_CPU_BATCH_MAX */
    float *y;          /* batch x rows */
};

/* Bytes of per-thread scratch a GEMV needs (the widened x, its group
 * sums and a dequantized tile), 64-byte aligned by the caller. */
size_t kern_cpu_gemv_scratch(const struct kern_gemv *g);
/* 0 when the fast kernels take this GEMV (Q: group a multiple of 32 that
 * divides cols; batch 1..16), else -1 with a message. */
int kern_cpu_gemv_check(const struct kern_gemv *g, char *err, size_t errlen);
/* Widen x into the scratch: call once per GEMV call per thread, before
 * any kern_cpu_gemv_rows of that call (it is part of the timed work). */
void kern_cpu_gemv_prepare(enum kern_isa isa, const struct kern_gemv *g, void *scratch);
/* Rows [r0, r1) of y. */
void kern_cpu_gemv_rows(enum kern_isa isa, const struct kern_gemv *g, void *scratch, size_t r0,
                        size_t r1);

/* Quantize rows [r0, r1) of an FP16 matrix, bits 4 or 8, group a multiple
 * of 32 dividing cols: the twin's codes and scales bit for bit (the twin's
 * general path handles everything else; kern_cpu_quant_fast says which). */
bool kern_cpu_quant_fast(unsigned bits, size_t group, size_t cols);
void kern_cpu_quantize_f16(enum kern_isa isa, const uint16_t *w, size_t cols, size_t r0, size_t r1,
                           unsigned bits, size_t group, uint8_t *codes, uint16_t *scales);
/* Dequantize rows [r0, r1) to FP16 (same conditions), bit for bit. */
void kern_cpu_dequantize_f16(enum kern_isa isa, const uint8_t *codes, const uint16_t *scales,
                             size_t cols, size_t r0, size_t r1, unsigned bits, size_t group,
                             uint16_t *out);

/* x's 8-bit codes and scales per block of 32 (n a multiple of 32) on a
 * path: kern_quantize_act8's bit for bit (what the A8 GEMVs prepare). */
void kern_cpu_quantize_act8(enum kern_isa isa, const uint16_t *x, size_t n, int8_t *q, float *d);

/* Copy n bytes (dst and src 64-byte aligned, n a multiple of 64) with
 * wide loads and streaming stores (no read-for-ownership of dst). */
void kern_cpu_copy(enum kern_isa isa, void *dst, const void *src, size_t n);
/* Sum of n doubles (64-byte aligned), several accumulators. */
double kern_cpu_sum(enum kern_isa isa, const double *a, size_t n);

/* The FMA peak loop: `iters` rounds of KERN_CPU_FMA_CHAINS independent
 * chains v = v * a + b per vector lane (no memory traffic); returns the
 * sum of every lane of every chain. FLOP = 2 * iters * chains * lanes. */
#define KERN_CPU_FMA_CHAINS 12
double kern_cpu_fma_loop(enum kern_isa isa, uint64_t iters, float a, float b);
/* Lanes of one vector on a path (1 for scalar). */
unsigned kern_cpu_fma_lanes(enum kern_isa isa);
/* The sum one lane's chains reach, computed one value at a time with the
 * path's arithmetic (fused multiply-add on the vector paths, a multiply
 * then an add on the portable one): the loop's result must equal
 * lanes * this exactly. Chain k starts at k / 4. */
double kern_cpu_fma_lane_ref(enum kern_isa isa, uint64_t iters, float a, float b);

/* The self-check of a path: a few ms of GEMVs on awkward shapes against
 * the float64 references, quantize/dequantize against the twins bit for
 * bit (NaN, infinities and subnormals among the weights), copy, sum and
 * the FMA loop exact. 0, or -1 with what differed. */
int kern_cpu_selfcheck(enum kern_isa isa, char *err, size_t errlen);

/* Whether the AVX-512 path's W8A8 / W4A8 kernels use VNNI (vpdpbusd):
 * this CPU has AVX-512 VNNI and VRAMLAB_TEST_NO_VNNI is unset (a test
 * hook: the path then runs its vpmaddubsw form, which AVX-512 CPUs without
 * VNNI run, so the tests reach it on a VNNI machine too). Read once. */
bool kern_cpu_have_vnni(void);

/* The path below isa that this machine runs (AVX-512 -> AVX2 -> portable,
 * NEON -> portable), or isa itself for the portable path. */
enum kern_isa kern_isa_lower(enum kern_isa isa);

/* A test hook: VRAMLAB_TEST_BREAK_ISA=<path> makes that path's GEMVs
 * return a wrong y[r0] of every call, so the tests can watch the self-check
 * catch a broken path and the probe fall back. Never set it otherwise. */

#ifdef __cplusplus
}
#endif

#endif
