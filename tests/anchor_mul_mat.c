/*
 * anchor_mul_mat.c: llama.cpp's CPU MUL_MAT for one shape, timed in CPU
 * seconds: the anchor of tests/bench_kernels' per-core comparison. Not
 * built by make (it needs ggml): scripts/llama-anchor --mul-mat compiles it
 * against the llama.cpp it built from the llama-cpp-python package, in the
 * cache directory. Our code calling ggml's public API; nothing of ggml is
 * in this repository.
 *
 * usage: anchor_mul_mat TYPE N ROWS COLS [THREADS] [REPS]
 *   TYPE f16, q8_0 or q4_0: y (N x ROWS) = W (ROWS x COLS) x (N x COLS, F32)
 * Prints "cpu_seconds S" (the least process CPU time of REPS calls, default
 * 30, each a graph with one MUL_MAT, x quantized inside as llama.cpp does)
 * and "wall_seconds S" (the least wall time). W is filled with a hash of
 * its index, as bench_kernels fills ours.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ggml-cpu.h"
#include "ggml.h"

static double clock_s(clockid_t id) {
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: anchor_mul_mat f16|q8_0|q4_0 N ROWS COLS [THREADS] [REPS]\n");
        return 2;
    }
    enum ggml_type t = !strcmp(argv[1], "q8_0")   ? GGML_TYPE_Q8_0
                       : !strcmp(argv[1], "q4_0") ? GGML_TYPE_Q4_0
                       : !strcmp(argv[1], "f16")  ? GGML_TYPE_F16
                                                  : GGML_TYPE_COUNT;
    long n = atol(argv[2]), rows = atol(argv[3]), cols = atol(argv[4]);
    int nt = argc > 5 ? atoi(argv[5]) : 1, reps = argc > 6 ? atoi(argv[6]) : 30;
    if (t == GGML_TYPE_COUNT || n < 1 || rows < 1 || cols < 32 || cols % 32 || nt < 1 || reps < 1) {
        fprintf(stderr, "anchor_mul_mat: bad arguments\n");
        return 2;
    }
    size_t need = (size_t)rows * (size_t)cols * 2 + (size_t)cols * (size_t)n * 8 +
                  (size_t)rows * (size_t)n * 4 + ((size_t)64 << 20);
    struct ggml_init_params ip = {.mem_size = need, .mem_buffer = NULL, .no_alloc = false};
    struct ggml_context *ctx = ggml_init(ip);
    if (!ctx)
        return 1;
    struct ggml_tensor *a = ggml_new_tensor_2d(ctx, t, cols, rows);
    struct ggml_tensor *b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, cols, n);
    float *row = malloc((size_t)cols * sizeof *row);
    if (!a || !b || !row)
        return 1;
    for (long r = 0; r < rows; r++) {
        for (long c = 0; c < cols; c++) {
            unsigned long long z = (unsigned long long)(r * cols + c) * 0x9e3779b97f4a7c15ull;
            row[c] = (float)((double)((z >> 40) % 2001) / 1000.0 - 1.0) * 0.05f;
        }
        void *dst = (char *)a->data + a->nb[1] * (size_t)r;
        if (t == GGML_TYPE_F16)
            ggml_fp32_to_fp16_row(row, dst, cols);
        else
            ggml_quantize_chunk(t, row, dst, 0, 1, cols, NULL);
    }
    for (long i = 0; i < cols * n; i++)
        ((float *)b->data)[i] = (float)((double)((unsigned)i * 40503u % 2001) / 1000.0 - 1.0);
    struct ggml_tensor *y = ggml_mul_mat(ctx, a, b);
    struct ggml_cgraph *gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, y);
    double best_cpu = 1e30, best_wall = 1e30;
    for (int k = 0; k <= reps; k++) {
        double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
        ggml_graph_compute_with_ctx(ctx, gf, nt);
        double c = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0, w = clock_s(CLOCK_MONOTONIC) - w0;
        if (k == 0)
            continue; /* the first call: page faults, thread start */
        best_cpu = c < best_cpu ? c : best_cpu;
        best_wall = w < best_wall ? w : best_wall;
    }
    printf("cpu_seconds %.9g\nwall_seconds %.9g\n", best_cpu, best_wall);
    free(row);
    ggml_free(ctx);
    return 0;
}
