/*
 * core.c: a CPU as the device (issue 26). On a few cores a quantized
 * decode step is bound by how fast the cores dequantize and dot the
 * weights, not by memory: SmolLM2-135M Q4_1 decodes at 92-113 tokens/s
 * under llama.cpp on 2 AVX2 cores, 9-11 GB/s of its 96.6 MB, a third of
 * the 32 GB/s those cores copy (docs/benchmarks.md). The rates come in
 * with the device (struct engine_core_rates: what `vramlab measure --device
 * cpu` timed, weights per second of the probe's GEMV of each width at
 * batch 1, 4, 16), never from a constant here.
 *
 *   step seconds  = sum over width classes k of share_k * W / R_k(b)
 *   core-bound    = d * b / step seconds                     (tokens/s)
 *   prefill rate  = 1 / sum_k share_k / (2 R_k(B) B)        (FLOP/s)
 *
 * W: the weights one token multiplies (the active parameters less the
 * input embedding, which is a lookup, plus the head; a tied head is the
 * embedding matrix again), per tensor-parallel rank (the p stages run one
 * after the other and share W, so their sum is W / t). share_k: the file's
 * tensors by width (engine_model.file_width_params), else everything at
 * the weight format's bits. R_k(b): the class's rate, the step time
 * interpolated linearly in the batch between the batches measured and
 * proportional to it past the last (each more vector costs the same
 * arithmetic); a class not measured takes the nearest measured one. B: the
 * largest batch measured (the prefill's rate: its weights are reused
 * across the prompt's tokens the way the measured batch reuses them).
 */
#include <math.h>
#include <stdio.h>

#include "engine/internal.h"

/* The width class of a weight of `bits` bits. */
int engine_width_class(double bits) {
    return bits < 6 ? ENGINE_WIDTH_4 : bits < 12 ? ENGINE_WIDTH_8 : ENGINE_WIDTH_16;
}

/* Whether the device's cores measured any rate. */
bool engine_core_measured(const struct engine_scenario *sc) {
    const struct engine_core_rates *r = &sc->gpu.core;
    if (!sc->gpu.cpu)
        return false;
    for (int k = 0; k < ENGINE_WIDTHS; k++)
        if (r->batch[k][0] > 0 && engine_pos(r->weights_per_s[k][0]))
            return true;
    return false;
}

/* The measured class closest to k (k itself when measured), or -1. */
static int core_class(const struct engine_core_rates *r, int k) {
    for (int d = 0; d < ENGINE_WIDTHS; d++) {
        int lo = k - d, hi = k + d;
        if (lo >= 0 && r->batch[lo][0] > 0 && engine_pos(r->weights_per_s[lo][0]))
            return lo;
        if (hi < ENGINE_WIDTHS && r->batch[hi][0] > 0 && engine_pos(r->weights_per_s[hi][0]))
            return hi;
    }
    return -1;
}

/* How many batches class k measured (its list ends at a zero batch). */
static int core_batches(const struct engine_core_rates *r, int k) {
    int n = 0;
    while (n < ENGINE_CORE_BATCHES && r->batch[k][n] > 0 && engine_pos(r->weights_per_s[k][n]))
        n++;
    return n;
}

/* Seconds for class k's kernel to dot w weights with b vectors. */
static double core_seconds(const struct engine_core_rates *r, int k, double w, double b) {
    const uint32_t *bs = r->batch[k];
    const double *rs = r->weights_per_s[k];
    int n = core_batches(r, k);
    /* one pass over w serves bs[i] vectors in w / rs[i] seconds */
    if (b <= bs[0])
        return w / rs[0] * (bs[0] > 1 ? b / bs[0] : 1.0);
    for (int i = 0; i + 1 < n; i++)
        if (b <= bs[i + 1]) {
            double s0 = w / rs[i], s1 = w / rs[i + 1];
            return s0 + (s1 - s0) * (b - bs[i]) / (double)(bs[i + 1] - bs[i]);
        }
    return w / rs[n - 1] * b / bs[n - 1];
}

/* The share of the dotted weights in each width class: a model file's
 * tensors by type (inference), else all at the format's bits. */
static void core_shares(const struct engine_scenario *sc, double share[ENGINE_WIDTHS]) {
    const struct engine_model *m = &sc->model;
    bool file = sc->mode == ENGINE_MODE_INFER && m->file_bytes && m->has_arch;
    double all = 0;
    for (int k = 0; k < ENGINE_WIDTHS; k++) {
        share[k] = file ? m->file_width_params[k] : 0;
        all += share[k];
    }
    if (all > 0) {
        for (int k = 0; k < ENGINE_WIDTHS; k++)
            share[k] /= all;
        return;
    }
    share[engine_width_class(engine_format_bits(&sc->weight_format))] = 1;
}

/* The weights one token multiplies (see the top of the file). */
double engine_core_dot_weights(const struct engine_ctx *c, double params_active) {
    double w = params_active - c->s.params_embed_in;
    if (c->sc->model.tied)
        w += c->s.vocab * c->s.hidden;
    return w;
}

/* Seconds of one decode step's dot products at batch b, or NaN without rates. */
double engine_core_step_seconds(const struct engine_ctx *c, double weights, double b) {
    const struct engine_core_rates *r = &c->sc->gpu.core;
    double share[ENGINE_WIDTHS], s = 0;
    if (!engine_core_measured(c->sc))
        return NAN;
    core_shares(c->sc, share);
    for (int k = 0; k < ENGINE_WIDTHS; k++)
        if (share[k] > 0)
            s += core_seconds(r, core_class(r, k), share[k] * weights / c->t, b);
    return s;
}

/* The prefill's FLOP/s on a CPU: the classes' rates at their largest
 * measured batch, or 0 without rates. */
double engine_core_prefill_flops(const struct engine_scenario *sc) {
    const struct engine_core_rates *r = &sc->gpu.core;
    double share[ENGINE_WIDTHS], inv = 0;
    if (!engine_core_measured(sc))
        return 0;
    core_shares(sc, share);
    for (int k = 0; k < ENGINE_WIDTHS; k++) {
        if (!(share[k] > 0))
            continue;
        int j = core_class(r, k), n = core_batches(r, j);
        inv += share[k] / (2.0 * r->weights_per_s[j][n - 1] * r->batch[j][n - 1]);
    }
    return inv > 0 ? 1.0 / inv : 0;
}

/* The terms of the core-bound step, for explain: each width class the
 * weights fall in, its share and the measured rate that times it. */
int engine_core_terms(const struct engine_scenario *sc, struct engine_core_term t[ENGINE_WIDTHS]) {
    const struct engine_core_rates *r = &sc->gpu.core;
    double share[ENGINE_WIDTHS];
    int n = 0;
    if (!engine_core_measured(sc))
        return 0;
    core_shares(sc, share);
    for (int i = 0; i < ENGINE_WIDTHS; i++) {
        if (!(share[i] > 0))
            continue;
        int j = core_class(r, i);
        t[n].width = i;
        t[n].share = share[i];
        t[n].weights_per_s = r->weights_per_s[j][0];
        t[n].batch = r->batch[j][0];
        t[n].kernel = r->kernel[j];
        n++;
    }
    return n;
}
