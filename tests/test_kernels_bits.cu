/*
 * test_kernels_bits.cu: the CUDA kernels' bit-level helpers (scale, code,
 * pack, unpack, code-to-float, code pairs, codes8;
 * kernels/kern_cuda_bits.cuh) run as host code against the CPU twin
 * (kern_quant.c), so their agreement is tested on machines without a GPU.
 * Built by nvcc when configure found CUDA; a plain program (0 = pass), no
 * Criterion (it is C++).
 */
#include <cuda_fp16.h>
#include <stdio.h>
#include <string.h>

#include "kernels/kern_cuda_bits.cuh"
#include "kernels/kern_half.h"
#include "kernels/kern_quant.h"

static int failures = 0;

/* Count and report a failed check. */
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            if (failures++ < 20) {                                                                 \
                printf("FAIL %s:%d: ", __FILE__, __LINE__);                                        \
                printf(__VA_ARGS__);                                                               \
                printf("\n");                                                                      \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* One width: 2000 groups of 32 (some with outliers, one all zero). */
template <int BITS> static void check_width(struct kern_rng *rng) {
    const int qmax = (1 << (BITS - 1)) - 1;
    for (int g = 0; g < 2000; g++) {
        float w[32];
        double sd = g % 3 == 0 ? 1e-3 : g % 3 == 1 ? 0.02 : 3.0;
        for (int i = 0; i < 32; i++)
            w[i] = g == 7 ? 0.0f : (float)kern_rng_normal(rng, 0.0, sd);
        if (g % 5 == 0)
            w[g % 32] = (float)(13 * sd);
        uint8_t codes[4 * BITS];
        uint16_t scale;
        kern_quantize_f32(w, 1, 32, BITS, 32, codes, &scale, NULL);

        /* the device's scale: __float2half_rn(amax / qmax) */
        float amax = 0;
        for (int i = 0; i < 32; i++)
            amax = fabsf(w[i]) > amax ? fabsf(w[i]) : amax;
        __half h = __float2half_rn(amax / (float)qmax);
        uint16_t hb;
        memcpy(&hb, &h, 2);
        CHECK(hb == scale, "b=%d g=%d scale %04x vs twin %04x", BITS, g, hb, scale);
        float s = kern_f16_to_f32(scale);

        /* codes and packing, four lanes of 8 as in k_quantize */
        uint8_t packed[4 * BITS];
        for (int part = 0; part < 4; part++) {
            int q[8];
            for (int k = 0; k < 8; k++)
                q[k] = quant_code<BITS>(w[part * 8 + k], s);
            pack8<BITS>(q, packed + part * BITS);
        }
        CHECK(memcmp(packed, codes, sizeof codes) == 0, "b=%d g=%d packed codes differ", BITS, g);

        /* unpacking (k_dequantize, k_qstats) and code_at (k_gemv_q) */
        for (int part = 0; part < 4; part++) {
            int q[8];
            unpack8<BITS>(codes + part * BITS, q);
            for (int k = 0; k < 8; k++)
                CHECK(q[k] == kern_quant_get(codes, (size_t)(part * 8 + k), BITS), "b=%d unpack8",
                      BITS);
        }
        uint32_t wd[BITS];
        memcpy(wd, codes, sizeof wd);
        for (int j = 0; j < 32; j++)
            CHECK(code_at<BITS>(wd, j) == (float)kern_quant_get(codes, (size_t)j, BITS),
                  "b=%d code_at(%d)", BITS, j);
        /* codes8 (k_gemv_q's dequantization, by pairs at 4 and 8 bits) */
        for (int c = 0; c < 4; c++) {
            float q8[8];
            codes8<BITS>(wd, c, q8);
            for (int k = 0; k < 8; k++)
                CHECK(q8[k] == (float)kern_quant_get(codes, (size_t)(c * 8 + k), BITS),
                      "b=%d codes8(%d)[%d] = %g", BITS, c, k, q8[k]);
        }
    }
}

/* code_pair (k_gemv_q at 4 and 8 bits), exhaustively: every value of the
 * two codes of every pair position, the other codes of the word random;
 * pair i is codes i and i + n/2 of the word (n = 32 / BITS), as floats
 * equal to the signed codes kern_quant_get reads. */
template <int BITS> static void check_code_pair(struct kern_rng *rng) {
    const int n = 32 / BITS, levels = 1 << BITS;
    for (int i = 0; i < n / 2; i++)
        for (int a = 0; a < levels; a++)
            for (int b = 0; b < levels; b++) {
                uint32_t word = (uint32_t)(kern_rng_next(rng) >> 32);
                const uint32_t m = (uint32_t)levels - 1u;
                word &= ~(m << (i * BITS)) & ~(m << ((i + n / 2) * BITS));
                word |= (uint32_t)a << (i * BITS) | (uint32_t)b << ((i + n / 2) * BITS);
                uint8_t bytes[4];
                memcpy(bytes, &word, 4);
                float2 p = code_pair<BITS>(word, i);
                float ea = (float)kern_quant_get(bytes, (size_t)i, BITS);
                float eb = (float)kern_quant_get(bytes, (size_t)(i + n / 2), BITS);
                CHECK(p.x == ea && p.y == eb, "b=%d code_pair(%08x, %d) = (%g, %g), twin (%g, %g)",
                      BITS, word, i, p.x, p.y, ea, eb);
                CHECK(ea == (float)(a - levels / 2) && eb == (float)(b - levels / 2),
                      "b=%d twin reads (%g, %g) for offset-binary (%d, %d)", BITS, ea, eb, a, b);
            }
}

/* Edge codes: NaN weights, ties, clipping. */
static void check_edges(void) {
    const float s = 1.0f;
    CHECK(quant_code<8>(2.5f, s) == kern_quant_code(2.5f, s, 127), "tie 2.5");
    CHECK(quant_code<8>(-3.5f, s) == kern_quant_code(-3.5f, s, 127), "tie -3.5");
    CHECK(quant_code<4>(1e30f, s) == kern_quant_code(1e30f, s, 7), "clip high");
    CHECK(quant_code<4>(-1e30f, s) == kern_quant_code(-1e30f, s, 7), "clip low");
    CHECK(quant_code<4>(NAN, s) == kern_quant_code(NAN, s, 7), "NaN");
    CHECK(quant_code<4>(0.3f, 0.0f) == 0 && kern_quant_code(0.3f, 0.0f, 7) == 0, "zero scale");
    CHECK(quant_code<3>(7.0f, 1e-30f) == kern_quant_code(7.0f, 1e-30f, 3), "tiny scale");
}

/* Entry point. */
int main(void) {
    struct kern_rng rng;
    kern_rng_seed(&rng, 77);
    check_width<2>(&rng);
    check_width<3>(&rng);
    check_width<4>(&rng);
    check_width<5>(&rng);
    check_width<6>(&rng);
    check_width<7>(&rng);
    check_width<8>(&rng);
    check_code_pair<4>(&rng);
    check_code_pair<8>(&rng);
    check_edges();
    printf("%s: %d failures\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
