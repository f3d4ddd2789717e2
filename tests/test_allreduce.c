/*
 * test_allreduce.c: the all-reduce test's definitions (issue 15): algbw and
 * busbw against published all_reduce_perf figures (nccl-tests), the
 * latency-bandwidth fit, --sizes and --dtypes, the check pattern, and on
 * vramlab's side the engine's ring model beside a measurement, the
 * calibration from a fit and reading a saved measurement back.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels/kern_half.h"
#include "kernels/probe_allreduce.h"
#include "tui/measure_ar.h"

#define CLOSE(a, b, rel) cr_assert(fabs((a) - (b)) <= (rel)*fabs(b), "%.10g vs %.10g", (a), (b))

/* ---- nccl-tests' definitions ------------------------------------------------ */

/* all_reduce_perf, nccl-tests, on one node of 8 NVIDIA B200 (GKE A4, a
 * public README of an NCCL test job): 1073741824 B float sum in 2576.7 us,
 * algbw 416.72 GB/s, busbw 729.25 GB/s. all_reduce_perf prints the time
 * to 0.1 us (here 2 parts in 1e5, 0.017 GB/s of algbw) and the rates to
 * 0.01 GB/s: algbw from the printed time within that, busbw from the
 * printed algbw within its last digit. */
Test(allreduce, golden_b200_8_ranks) {
    double alg = probe_ar_algbw(1073741824.0, 2576.7e-6);
    cr_assert(fabs(alg / 1e9 - 416.72) < 0.02, "algbw %.4f GB/s", alg / 1e9);
    double bus = probe_ar_busbw(416.72e9, 8);
    cr_assert(fabs(bus / 1e9 - 729.25) < 0.015, "busbw %.4f GB/s", bus / 1e9);
}

/* The same job across 2 nodes, 16 ranks: 1073741824 B in 3328.7 us,
 * algbw 322.57 GB/s, busbw 604.82 GB/s (factor 2 x 15/16 = 1.875). */
Test(allreduce, golden_b200_16_ranks) {
    double alg = probe_ar_algbw(1073741824.0, 3328.7e-6);
    cr_assert(fabs(alg / 1e9 - 322.57) < 0.02, "algbw %.4f GB/s", alg / 1e9);
    cr_assert(fabs(probe_ar_busbw(322.57e9, 16) / 1e9 - 604.82) < 0.015);
}

/* nccl-tests' PERFORMANCE.md: busbw = algbw x 2(n-1)/n; with 2 ranks
 * busbw equals algbw, with one nothing crosses a link. */
Test(allreduce, bus_factor) {
    cr_assert_eq(probe_ar_bus_factor(1), 0.0);
    cr_assert_eq(probe_ar_bus_factor(2), 1.0);
    cr_assert_eq(probe_ar_bus_factor(4), 1.5);
    cr_assert_eq(probe_ar_bus_factor(8), 1.75);
    for (unsigned n = 2; n < 4096; n++) {
        double f = probe_ar_bus_factor(n);
        cr_assert(f >= 1 && f < 2 && f > probe_ar_bus_factor(n - 1));
        cr_assert_eq(f, measure_ar_bus_factor(n));
    }
    cr_assert(isnan(probe_ar_algbw(0, 1)) && isnan(probe_ar_algbw(8, 0)));
}

/* ---- the fit ------------------------------------------------------------------ */

/* Exact points of t = alpha + bytes / beta give alpha and beta back with
 * no residual. */
Test(allreduce, fit_exact) {
    const double alphas[] = {0, 5e-6, 2.5e-5}, betas[] = {1e9, 50e9, 4.2e11};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            double x[15], t[15];
            for (int i = 0; i < 15; i++) {
                x[i] = 8.0 * pow(4, i);
                t[i] = alphas[a] + x[i] / betas[b];
            }
            struct probe_ar_fit f;
            probe_ar_fit_points(x, t, 15, &f);
            cr_assert(f.ok);
            cr_assert_eq(f.points, 15);
            cr_assert(fabs(f.alpha_s - alphas[a]) <= 1e-9 * (alphas[a] + 1e-6));
            CLOSE(f.beta_bytes_per_s, betas[b], 1e-9);
            cr_assert(f.residual < 1e-9);
        }
}

/* Noise of +-10% on alternate points: alpha and beta within 10%, the
 * residual near 10%; scaling every time by k scales alpha by k and beta by
 * 1/k (the fit has no preferred unit). */
Test(allreduce, fit_noise_and_scale) {
    double x[12], t[12], tk[12];
    for (int i = 0; i < 12; i++) {
        x[i] = 8.0 * pow(4, i);
        t[i] = (1e-5 + x[i] / 2e10) * (i % 2 ? 1.1 : 0.9);
        tk[i] = 3 * t[i];
    }
    struct probe_ar_fit f, g;
    probe_ar_fit_points(x, t, 12, &f);
    probe_ar_fit_points(x, tk, 12, &g);
    cr_assert(f.ok && g.ok);
    CLOSE(f.alpha_s, 1e-5, 0.1);
    CLOSE(f.beta_bytes_per_s, 2e10, 0.1);
    cr_assert(f.residual > 0.05 && f.residual < 0.15, "residual %g", f.residual);
    CLOSE(g.alpha_s, 3 * f.alpha_s, 1e-9);
    CLOSE(g.beta_bytes_per_s, f.beta_bytes_per_s / 3, 1e-9);
}

/* No fit: one size, or times that do not grow; never a negative alpha. */
Test(allreduce, fit_degenerate) {
    double x[3] = {8, 8, 8}, t[3] = {1e-6, 2e-6, 3e-6};
    struct probe_ar_fit f;
    probe_ar_fit_points(x, t, 3, &f);
    cr_assert(!f.ok);
    double x2[3] = {8, 1024, 1 << 20}, t2[3] = {3e-6, 2e-6, 1e-6};
    probe_ar_fit_points(x2, t2, 3, &f);
    cr_assert(!f.ok);
    /* times falling below the line at small sizes: refitted through 0 */
    double x3[4] = {8, 1024, 1 << 20, 1 << 30}, t3[4];
    for (int i = 0; i < 4; i++)
        t3[i] = x3[i] / 1e9 * (i == 0 ? 0.1 : 1);
    probe_ar_fit_points(x3, t3, 4, &f);
    cr_assert(f.ok && f.alpha_s >= 0 && f.beta_bytes_per_s > 0);
}

/* ---- --sizes, --dtypes ------------------------------------------------------ */

Test(allreduce, sizes_default) {
    struct probe_ar_sizes s;
    char msg[200];
    /* the default: 8, 64, ... 128M by 8, then 1G (fewer sizes, issue 28) */
    cr_assert_eq(probe_ar_parse_sizes(PROBE_AR_DEFAULT, 4, &s, msg, sizeof msg), 0, "%s", msg);
    cr_assert_eq(s.n, 10);
    cr_assert_eq(s.bytes[0], 8);
    cr_assert_eq(s.bytes[8], 128.0 * 1024 * 1024);
    cr_assert_eq(s.bytes[9], 1024.0 * 1024 * 1024);
    /* --full: today's whole sweep, 8, 32, ... 512M by 4, then 1G */
    cr_assert_eq(probe_ar_parse_sizes(PROBE_AR_FULL, 4, &s, msg, sizeof msg), 0, "%s", msg);
    cr_assert_eq(s.n, 15);
    cr_assert_eq(s.bytes[0], 8);
    cr_assert_eq(s.bytes[13], 512.0 * 1024 * 1024);
    cr_assert_eq(s.bytes[14], 1024.0 * 1024 * 1024);
    cr_assert_eq(probe_ar_parse_sizes("8-1Gx16", 4, &s, msg, sizeof msg), 0);
    cr_assert_eq(s.n, 8); /* 8, 128, ... 128M by 16, then 1G */
    cr_assert_eq(s.bytes[6], 128.0 * 1024 * 1024);
    cr_assert_eq(probe_ar_parse_sizes("8-1Kx2", 4, &s, msg, sizeof msg), 0);
    cr_assert_eq(s.n, 8);
    cr_assert_eq(probe_ar_parse_sizes("8,64K,1MiB,2GB", 4, &s, msg, sizeof msg), 0);
    cr_assert_eq(s.n, 4);
    cr_assert_eq(s.bytes[1], 65536);
    cr_assert_eq(s.bytes[2], 1048576);
    cr_assert_eq(s.bytes[3], 2.0 * 1024 * 1024 * 1024);
    cr_assert_eq(probe_ar_parse_sizes("6", 2, &s, msg, sizeof msg), 0); /* BF16 only */
}

/* ---- the time budget of the default sweep --------------------------------- */

Test(allreduce, budget_plan) {
    /* no budget (--full): 5 warm-ups and --iters samples, whatever the time */
    cr_assert_eq(probe_ar_warmups(0, 10.0), PROBE_AR_WARMUP);
    cr_assert_eq(probe_ar_samples(0, 10.0, 20), 20);
    cr_assert_eq(probe_ar_samples(0, 1e-9, 64), 64);
    cr_assert(!probe_ar_stop_growing(0, 1e3));
    /* a budget of 1 s: warm-ups in a quarter of it (1..5) */
    cr_assert_eq(probe_ar_warmups(1, 1e-6), PROBE_AR_WARMUP);
    cr_assert_eq(probe_ar_warmups(1, 0.1), 2);
    cr_assert_eq(probe_ar_warmups(1, 0.3), 1);
    cr_assert_eq(probe_ar_warmups(1, 30), 1);
    cr_assert_eq(probe_ar_warmups(1, 0), 1);
    /* samples: as many as fit, 5..iters */
    cr_assert_eq(probe_ar_samples(1, 1e-3, 20), 20);
    cr_assert_eq(probe_ar_samples(1, 0.1, 20), 10);
    cr_assert_eq(probe_ar_samples(1, 0.1, 64), 10);
    cr_assert_eq(probe_ar_samples(1, 0.5, 20), PROBE_AR_BUDGET_MIN);
    cr_assert_eq(probe_ar_samples(1, 9.0, 20), PROBE_AR_BUDGET_MIN);
    cr_assert_eq(probe_ar_samples(1, 0, 20), PROBE_AR_BUDGET_MIN);
    /* larger sizes left out once 5 samples of this one outrun the budget */
    cr_assert(!probe_ar_stop_growing(1, 0.2));
    cr_assert(probe_ar_stop_growing(1, 0.21));
    cr_assert(!probe_ar_stop_growing(1, 4e-3));
    /* properties: samples never below the minimum nor above iters, and the
     * timed part fits the budget unless the minimum alone does not */
    for (double b = 0.01; b < 100; b *= 3.7)
        for (double t = 1e-7; t < 50; t *= 5.3)
            for (unsigned it = PROBE_AR_MIN_ITERS; it <= PROBE_AR_MAX_ITERS; it += 22) {
                unsigned n = probe_ar_samples(b, t, it);
                cr_assert(n >= PROBE_AR_BUDGET_MIN && n <= it, "%g %g %u: %u", b, t, it, n);
                cr_assert(n * t <= b * (1 + 1e-12) || n == PROBE_AR_BUDGET_MIN, "%g %g: %u", b,
                          t, n);
                unsigned w = probe_ar_warmups(b, t);
                cr_assert(w >= 1 && w <= PROBE_AR_WARMUP);
                cr_assert(probe_ar_stop_growing(b, t) == (t * PROBE_AR_BUDGET_MIN > b));
            }
}

Test(allreduce, sizes_refused) {
    struct probe_ar_sizes s;
    char msg[200];
    const struct {
        const char *in, *says;
    } bad[] = {
        {"0", "0 bytes: nothing to reduce"},
        {"6", "not a whole number of 4-byte FP32"},
        {"100G", "above the 64 GiB"},
        {"1M-8", "goes down"},
        {"8-1Gx3", "factor of a range is 2, 4, 8 or 16"},
        {"8-1Gx32", "factor of a range is 2, 4, 8 or 16"},
        {"8,,16", "expected a size"},
        {"8,", "expected a size"},
        {"", "expected sizes"},
        {"1T", "expected a size"},
        {"abc", "expected a size"},
        {"8-1Gx2,8-1Gx2", "more than"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        msg[0] = 0;
        cr_assert_eq(probe_ar_parse_sizes(bad[i].in, 4, &s, msg, sizeof msg), -1, "%s", bad[i].in);
        cr_assert(strstr(msg, bad[i].says) && strstr(msg, "--sizes"), "%s: %s", bad[i].in, msg);
    }
}

Test(allreduce, dtypes) {
    bool w[PROBE_AR_DTYPES];
    char msg[200];
    cr_assert_eq(probe_ar_parse_dtypes("bf16", w, msg, sizeof msg), 0);
    cr_assert(!w[PROBE_AR_FP32] && w[PROBE_AR_BF16]);
    cr_assert_eq(probe_ar_parse_dtypes("fp32,bf16", w, msg, sizeof msg), 0);
    cr_assert(w[PROBE_AR_FP32] && w[PROBE_AR_BF16]);
    cr_assert_eq(probe_ar_parse_dtypes("fp16", w, msg, sizeof msg), -1);
    cr_assert(strstr(msg, "'fp16'"));
    cr_assert_eq(probe_ar_parse_dtypes("", w, msg, sizeof msg), -1);
}

/* ---- the check pattern --------------------------------------------------------- */

/* The closed-form sum equals the sum of every rank's element, for any rank
 * count, and every sum is a small integer. */
Test(allreduce, pattern_sums) {
    for (unsigned n = 1; n <= 40; n++)
        for (size_t i = 0; i < 30; i++) {
            int s = 0;
            for (unsigned r = 0; r < n; r++)
                s += probe_ar_pattern(r, i);
            cr_assert_eq(probe_ar_expected(n, i), s, "n %u i %zu", n, i);
            cr_assert(s >= -1 && s <= 1);
        }
}

/* Summing the filled buffers of n ranks passes the check; leaving one rank
 * out, counting one twice or one poisoned element fails it, in both types. */
Test(allreduce, check_catches_wrong_sums) {
    enum { N = 999 };
    for (int d = 0; d < PROBE_AR_DTYPES; d++) {
        for (unsigned n = 2; n <= 7; n++) {
            float acc[N] = {0}, part[N];
            uint16_t hb[N];
            void *buf = d == PROBE_AR_BF16 ? (void *)hb : (void *)part;
            for (unsigned r = 0; r < n; r++) {
                probe_ar_fill(buf, (enum probe_ar_dtype)d, N, r);
                for (int i = 0; i < N; i++)
                    acc[i] += d == PROBE_AR_BF16 ? kern_bf16_to_f32(hb[i]) : part[i];
            }
            float out[N];
            uint16_t outb[N];
            for (int i = 0; i < N; i++) {
                out[i] = acc[i];
                outb[i] = kern_f32_to_bf16(acc[i]);
            }
            void *o = d == PROBE_AR_BF16 ? (void *)outb : (void *)out;
            double err = -1;
            cr_assert_eq(probe_ar_check(o, (enum probe_ar_dtype)d, N, n, &err), 0);
            cr_assert_eq(err, 0);
            /* the same buffers checked as if one more rank had joined */
            cr_assert(probe_ar_check(o, (enum probe_ar_dtype)d, N, n + 1, &err) > N / 3);
            probe_ar_poison(o, (enum probe_ar_dtype)d, 1);
            cr_assert(probe_ar_check(o, (enum probe_ar_dtype)d, N, n, &err) >= 1);
        }
    }
}

/* ---- vramlab's side: the engine's ring model, calibration, files -------------- */

/* The ring model with the engine's defaults on an H100 (900 GB/s NVLink
 * both ways: 450 GB/s one way; 5 us): 1 GiB over 8 ranks takes
 * 2 x 7/8 x 2^30 / 450e9 + 5e-6 s; across nodes 50 GB/s. */
Test(allreduce, predicted_ring_model) {
    struct engine_scenario sc;
    engine_scenario_defaults(&sc);
    sc.gpu.link_bytes_per_s = 900e9;
    double t = measure_ar_predicted_seconds(&sc, 1073741824.0, 8, 1);
    CLOSE(t, 1.75 * 1073741824.0 / 450e9 + 5e-6, 1e-12);
    double t2 = measure_ar_predicted_seconds(&sc, 1073741824.0, 8, 2);
    CLOSE(t2, 1.75 * 1073741824.0 / 50e9 + 5e-6, 1e-12);
    CLOSE(measure_ar_predicted_busbw(&sc, 1073741824.0, 8, 1), 1073741824.0 / t * 1.75, 1e-12);
    cr_assert(isnan(measure_ar_predicted_seconds(&sc, 1024, 1, 1)));
    /* large messages approach the link bandwidth */
    cr_assert(measure_ar_predicted_busbw(&sc, 1e12, 8, 1) / 450e9 > 0.999);
}

/* a fit of one host sets the intra-node figure to twice the link (the
 * engine halves it) and the latency; its own ring model then reproduces
 * the fit's times exactly. Across hosts, the inter-node figure. */
Test(allreduce, calibrate_round_trip) {
    struct measure_ar_fit f = {.valid = true,
                               .ranks = 4,
                               .hosts = 1,
                               .points = 10,
                               .alpha_s = 1.2e-5,
                               .beta_bytes_per_s = 2e9};
    snprintf(f.dtype, sizeof f.dtype, "fp32");
    f.bus_beta_bytes_per_s = f.beta_bytes_per_s * measure_ar_bus_factor(4);
    struct engine_scenario sc;
    engine_scenario_defaults(&sc);
    cr_assert_eq(measure_ar_calibrate(&sc, &f), 0);
    cr_assert_eq(sc.intra_node_bytes_per_s, 2 * 3e9);
    cr_assert_eq(sc.allreduce_latency_s, 1.2e-5);
    for (double b = 8; b < 2e9; b *= 16)
        CLOSE(measure_ar_predicted_seconds(&sc, b, 4, 1), f.alpha_s + b / f.beta_bytes_per_s,
              1e-12);
    f.hosts = 3;
    engine_scenario_defaults(&sc);
    cr_assert_eq(measure_ar_calibrate(&sc, &f), 0);
    cr_assert_eq(sc.inter_node_bytes_per_s, 3e9);
    cr_assert_eq(sc.intra_node_bytes_per_s, 0);
    f.ranks = 1;
    f.valid = false;
    cr_assert_eq(measure_ar_calibrate(&sc, &f), -1);
}

/* Write text to a temporary file; returns its path (static). */
static const char *tmpfile_with(const char *text) {
    static char path[64];
    snprintf(path, sizeof path, "/tmp/vramlab-ar-XXXXXX");
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

/* The probe's lines and the --json object are both read; FP32 first. */
Test(allreduce, load_files) {
    char err[400];
    struct measure_ar_fit f;
    const char *lines =
        "{\"event\":\"device\",\"backend\":\"cpu\",\"name\":\"x\"}\n"
        "{\"event\":\"fit\",\"test\":\"allreduce\",\"transport\":\"mpi\",\"dtype\":\"bf16\","
        "\"ranks\":2,\"hosts\":1,\"points\":5,\"alpha_s\":2e-6,\"beta_bytes_per_s\":1e8,"
        "\"residual\":0.1,\"ok\":true}\n"
        "{\"event\":\"fit\",\"test\":\"allreduce\",\"transport\":\"mpi\",\"dtype\":\"fp32\","
        "\"ranks\":2,\"hosts\":1,\"points\":5,\"alpha_s\":1e-6,\"beta_bytes_per_s\":3e9,"
        "\"residual\":0.1,\"ok\":true}\n";
    const char *p = tmpfile_with(lines);
    cr_assert_eq(measure_ar_load(p, &f, err, sizeof err), 0, "%s", err);
    cr_assert_str_eq(f.dtype, "fp32");
    cr_assert_eq(f.beta_bytes_per_s, 3e9);
    cr_assert_eq(f.bus_beta_bytes_per_s, 3e9);
    unlink(p);
    const char *obj = "{\n  \"device\": null,\n  \"allreduce\": [],\n  \"allreduce_fit\": [\n"
                      "    {\n      \"test\": \"allreduce\",\n      \"transport\": \"nccl\",\n"
                      "      \"dtype\": \"bf16\",\n      \"ranks\": 8,\n      \"hosts\": 2,\n"
                      "      \"alpha_s\": 3e-05,\n      \"beta_bytes_per_s\": 2e10\n    }\n"
                      "  ],\n  \"complete\": true\n}\n";
    p = tmpfile_with(obj);
    cr_assert_eq(measure_ar_load(p, &f, err, sizeof err), 0, "%s", err);
    cr_assert_str_eq(f.dtype, "bf16");
    cr_assert_eq(f.hosts, 2);
    CLOSE(f.bus_beta_bytes_per_s, 2e10 * 1.75, 1e-12);
    unlink(p);
    /* refused: no fit, one rank, not JSON, no file */
    const char *bad[] = {
        "{\"event\":\"device\"}\n",
        "{\"event\":\"fit\",\"test\":\"allreduce\",\"dtype\":\"fp32\",\"ranks\":1,"
        "\"alpha_s\":1e-6,\"beta_bytes_per_s\":1e9}\n",
        "hello\n",
    };
    const char *says[] = {"no all-reduce fit", "one rank", "not a measurement"};
    for (int i = 0; i < 3; i++) {
        p = tmpfile_with(bad[i]);
        cr_assert_eq(measure_ar_load(p, &f, err, sizeof err), -1);
        cr_assert(strstr(err, says[i]) && strstr(err, p), "%s", err);
        unlink(p);
    }
    cr_assert_eq(measure_ar_load("/nonexistent/ar.json", &f, err, sizeof err), -1);
    cr_assert(strstr(err, "/nonexistent/ar.json"));
}
