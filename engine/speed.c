/*
 * speed.c: inference speed ceilings and the communication models shared
 * with training. Decode ceiling = bandwidth / bytes read per step (seed
 * 000: 3350 GB/s / 16 GB = 209 tokens/s), compute ceiling = peak / FLOP
 * per token, ridge = peak / bandwidth (seed 000: 989e12 / 3.35e12 = 295
 * FLOP/byte; Williams et al. 2009); prefill by the chunks each runtime
 * schedules; the ring all-reduce 2 (n-1)/n * bytes / BW + latency of TP
 * and DP (nccl-tests' bus bandwidth). Units: seconds, tokens/s, bytes/s.
 */
#include <math.h>
#include <string.h>

#include "engine/internal.h"

/* Peak FLOP/s for the format's compute column (FP16 where the GPU lacks it). */
double engine_peak_flops(const struct engine_scenario *sc, enum engine_compute col,
                         bool *fallback) {
    double f = sc->gpu.flops[col];
    *fallback = false;
    if (!engine_pos(f)) {
        *fallback = true;
        f = engine_pos(sc->gpu.flops[ENGINE_COMPUTE_FP16]) ? sc->gpu.flops[ENGINE_COMPUTE_FP16]
                                                           : sc->gpu.flops[ENGINE_COMPUTE_BF16];
    }
    return f;
}

/* The ring model (see engine.h): 2 (k-1)/k x bytes / bw + latency over k ranks. */
double engine_allreduce_seconds(double bytes, double k, double bw, double latency) {
    if (k <= 1)
        return 0;
    return 2.0 * (k - 1.0) / k * bytes / bw + latency;
}

/* The one-way link bandwidth of the ring model (see engine.h). */
double engine_allreduce_bandwidth(const struct engine_scenario *sc, bool across_nodes) {
    /* Intra-node links are quoted as vendors do, both directions together
     * (H100 NVLink 900 GB/s = 450 each way); a ring all-reduce moves data
     * one way at a time, so it gets half. Inter-node figures are per
     * direction already (400 Gb/s NDR = 50 GB/s). */
    if (across_nodes)
        return sc->inter_node_bytes_per_s;
    return engine_pos(sc->intra_node_bytes_per_s) ? sc->intra_node_bytes_per_s / 2.0
           : engine_pos(sc->gpu.link_bytes_per_s) ? sc->gpu.link_bytes_per_s / 2.0
                                                  : sc->inter_node_bytes_per_s;
}

/* One-way bandwidth of a collective over `ranks` GPUs: half the vendor's
 * both-ways NVLink figure inside a node (as in training), the network's
 * per-GPU figure across nodes. */
double engine_link_bw(const struct engine_ctx *c, double ranks) {
    const struct engine_scenario *sc = c->sc;
    double intra = engine_pos(sc->intra_node_bytes_per_s) ? sc->intra_node_bytes_per_s / 2.0
                   : engine_pos(sc->gpu.link_bytes_per_s) ? sc->gpu.link_bytes_per_s / 2.0
                                                          : sc->inter_node_bytes_per_s;
    return ranks <= c->gpn ? intra : sc->inter_node_bytes_per_s;
}

/* Sum over k = 0..n-1 of max(a0 + a1 k, b0 + b1 k): two lines cross at most
 * once, so the sum splits into two arithmetic series. */
static double sum_max_lines(double a0, double a1, double b0, double b1, double n) {
    if (n <= 0)
        return 0;
        /* Series of x0 + x1 k for k in [k0, k1). */
#define SERIES(x0, x1, k0, k1)                                                                     \
    ((k1) > (k0) ? ((k1) - (k0)) * (x0) + (x1) * ((k1) * ((k1)-1) - (k0) * ((k0)-1)) / 2.0 : 0)
    double d0 = a0 - b0, d1 = a1 - b1; /* a - b = d0 + d1 k */
    double r, k;
    if (d1 == 0) {
        r = d0 >= 0 ? SERIES(a0, a1, 0, n) : SERIES(b0, b1, 0, n);
    } else if (d1 > 0) {
        /* b leads until a catches up at k = ceil(-d0 / d1). */
        k = fmin(n, fmax(0, ceil(-d0 / d1)));
        r = SERIES(b0, b1, 0, k) + SERIES(a0, a1, k, n);
    } else {
        /* a leads while d0 + d1 k >= 0. */
        k = fmin(n, fmax(0, floor(-d0 / d1) + 1));
        r = SERIES(a0, a1, 0, k) + SERIES(b0, b1, k, n);
    }
#undef SERIES
    return r;
}

/* FLOP-bearing parameters of the fullest stage per token of a prefill step,
 * on its GPUs and in host RAM (2 FLOP each): the layers' weights. The input
 * embedding is a lookup (no multiply), and the head runs only for the
 * tokens whose logits are sampled (stage_head_params): the last of a
 * prompt, and each decoding sequence (counted once in every step of a
 * chunked prompt, though only the step that ends it needs it). vLLM computes logits at the prompt's
 * last position only (v0.11 vllm/v1/worker/gpu_model_runner.py,
 * logits_indices), llama.cpp for the batch's last token unless asked for
 * more (llama-batch.cpp, llama_batch_get_one). Without the layers' shape:
 * the active parameters of the stage's share of layers. */
static double stage_active_params(const struct engine_ctx *c, double stage) {
    if (!c->sc->model.has_arch)
        return c->s.params_active * fmin(c->lps, c->L) / c->L;
    double first, n, dn, mn;
    engine_stage_range(c, stage, &first, &n);
    engine_layer_split(c, first, n, &dn, &mn);
    double moe_a = c->s.moe ? c->s.params_moe_layer_active : c->s.params_moe_layer;
    double p = dn * c->s.params_dense_layer + mn * moe_a;
    double dh, mh;
    engine_layer_split(c, 0, c->first_gpu, &dh, &mh); /* host layers run on the first stage */
    if (stage == 0)
        p += dh * c->s.params_dense_layer + mh * moe_a;
    return p;
}

/* The head's multiply (vocabulary x hidden, tied or not) on the last stage,
 * per token whose logits are computed; 0 on the other stages and without
 * the layers' shape (stage_active_params counts it there). */
static double stage_head_params(const struct engine_ctx *c, double stage) {
    if (!c->sc->model.has_arch || stage != c->p - 1)
        return 0;
    return c->s.vocab * c->s.hidden;
}

/* Parts of one prefill (or mixed) step, per GPU of the fullest stage. */
struct step_lines {
    double f0, f1;    /* compute seconds of chunk k: f0 + f1 k */
    double b0, b1;    /* byte seconds of chunk k: b0 + b1 k */
    double fixed;     /* host bytes, TP all-reduces: seconds every step */
    double allreduce; /* the TP all-reduces alone (part of fixed) */
    double handoff;   /* PP hand-off of one step's activations */
};

/* The lines of steps of `chunk` prompt tokens (chunk k starts after k
 * chunks), with `others` sequences decoding one token each at context octx. */
static struct step_lines step_lines(const struct engine_ctx *c, double stage, double chunk,
                                    double others, double octx) {
    const struct engine_scenario *sc = c->sc;
    struct step_lines l = {0};
    double first, n;
    engine_stage_range(c, stage, &first, &n);
    double lst = n + (stage == 0 ? c->first_gpu : 0); /* layers this stage computes */
    double pk, bw;
    /* Rates as the decode uses them (data sheet or measured), with the
     * efficiency assumptions. */
    pk = engine_pos(sc->measured_flop_per_s) ? sc->measured_flop_per_s : 0;
    bw = engine_pos(sc->measured_bytes_per_s) ? sc->measured_bytes_per_s
                                              : sc->gpu.bandwidth_bytes_per_s;
    if (!(pk > 0)) {
        enum engine_compute col = engine_compute_column(sc);
        pk = sc->gpu.flops[col];
        if (!engine_pos(pk))
            pk = engine_pos(sc->gpu.flops[ENGINE_COMPUTE_FP16])
                     ? sc->gpu.flops[ENGINE_COMPUTE_FP16]
                     : sc->gpu.flops[ENGINE_COMPUTE_BF16];
    }
    /* A CPU: its cores' dot products at the largest batch they measured
     * (core.c), when slower than its FMA peak. */
    double core = engine_core_prefill_flops(sc);
    if (core > 0 && !engine_pos(sc->measured_flop_per_s))
        pk = fmin(pk, core);
    pk *= sc->flops_efficiency;
    bw *= sc->bw_efficiency;
    double attn = c->s.heads * (c->s.qk_dim + c->s.v_dim); /* per layer, per (query, key) */
    double act = stage_active_params(c, stage), head = stage_head_params(c, stage);
    double tokens = chunk + others;
    /* Compute: 2 N per token, the head for the prompt's last token and each
     * decoding sequence, causal attention (s + c)^2 - s^2 = c^2 + 2 k c^2
     * over the chunk, 2 a (d_qk + d_v) octx per decoding sequence. */
    l.f0 = (2.0 * act * tokens + 2.0 * head * (1.0 + others) +
            lst * attn * (chunk * chunk + 2.0 * octx * others)) /
           c->t / pk;
    l.f1 = lst * attn * 2.0 * chunk * chunk / c->t / pk;
    /* Bytes: the stage's weights (the experts these tokens touch), the KV
     * read (k chunks before) and written (this chunk), the others' KV. */
    double unread = engine_stage_unread_expert_params(c, stage, tokens);
    double kvb = engine_kv_bytes_token_layer_gpu(c);
    l.b0 =
        (engine_stage_weight_bytes_gpu(c, stage, unread) + n * kvb * (chunk + others * octx)) / bw;
    l.b1 = n * kvb * chunk / bw;
    /* Layers in host RAM: their weights read at host bandwidth each step. */
    if (stage == 0 && c->first_gpu > 0) {
        double hw = 0;
        engine_host_bytes(c, &hw, NULL);
        l.fixed += hw / engine_host_bandwidth(sc);
    }
    /* TP: 2 all-reduces per layer of the step's 16-bit activations. */
    double act_bytes = tokens * c->s.hidden * 2.0, lat = sc->allreduce_latency_s;
    if (c->t > 1)
        l.allreduce =
            2.0 * n * engine_allreduce_seconds(act_bytes, c->t, engine_link_bw(c, c->t), lat);
    l.fixed += l.allreduce;
    if (c->p > 1)
        l.handoff = act_bytes / engine_link_bw(c, c->t * c->p) + lat;
    return l;
}

/* Seconds of one prompt of `prompt` tokens in steps of `chunk` prompt
 * tokens (the last step shorter), `others` sequences decoding alongside.
 * The p stages pipeline the steps (a proportionate flow shop: the sum of
 * the step times plus p - 1 times the longest step and its hand-off).
 * Fills the communication, compute-only and bytes-only parts and the steps. */
static double prefill_time(const struct engine_ctx *c, double stage, double prompt, double chunk,
                           double others, double octx, double *comm, double *compute_only,
                           double *bytes_only, double *steps, double *allreduce) {
    if (chunk < 1)
        chunk = 1;
    if (chunk > prompt)
        chunk = prompt;
    double n = floor(prompt / chunk), r = prompt - n * chunk;
    struct step_lines l = step_lines(c, stage, chunk, others, octx);
    double sum = sum_max_lines(l.f0, l.f1, l.b0, l.b1, n) + n * l.fixed;
    double longest = n > 0 ? fmax(l.f0 + l.f1 * (n - 1), l.b0 + l.b1 * (n - 1)) + l.fixed : 0;
    double fsum = n * l.f0 + l.f1 * n * (n - 1) / 2, bsum = n * l.b0 + l.b1 * n * (n - 1) / 2;
    double csum = n * l.fixed, hand = l.handoff, arsum = n * l.allreduce;
    if (r > 0) {
        /* The last, shorter step starts after n chunks of `chunk` tokens. */
        struct step_lines q = step_lines(c, stage, r, others, octx);
        double kk = n * chunk / r; /* its k in units of its own size */
        double fr = q.f0 + q.f1 * kk, br = q.b0 + q.b1 * kk;
        double tr = fmax(fr, br) + q.fixed;
        sum += tr;
        longest = fmax(longest, tr);
        fsum += fr;
        bsum += br;
        csum += q.fixed;
        arsum += q.allreduce;
        hand = fmax(hand, q.handoff);
    }
    double pipe = (c->p - 1) * (longest + hand);
    if (comm)
        *comm = csum + (c->p - 1) * hand;
    if (compute_only)
        *compute_only = fsum;
    if (bytes_only)
        *bytes_only = bsum;
    if (steps)
        *steps = n + (r > 0);
    if (allreduce)
        *allreduce = arsum;
    return sum + pipe;
}

/* The prefill step of the runtime: vLLM's token budget, llama.cpp's and
 * Ollama's ubatch, the whole prompt for plain. */
static double prefill_chunk(const struct engine_ctx *c, double prompt) {
    switch (c->rt) {
    case ENGINE_RUNTIME_VLLM:
        return engine_vllm_max_num_batched_tokens(c->sc);
    case ENGINE_RUNTIME_LLAMACPP:
    case ENGINE_RUNTIME_OLLAMA:
        return engine_runtime_ubatch(c->sc);
    default:
        return prompt;
    }
}

/* ---- decode as runtimes run it: batch 1, steady state (issue 25) ------- */

/* The fixed cost of one kernel on the GPU, launch and fill/drain of a
 * small kernel: llama-bench tg128 of tinyllama 1.1B Q4_K_M on an RTX 4090
 * (geerlingguy/ai-benchmarks issue 43, llama.cpp b7340): 762.37 tokens/s
 * = 1.312 ms a token, of which the 636.18 MiB of weights take 0.662 ms at
 * 1,008 GB/s; the other 0.650 ms over its 22 x 17 + 3 = 377 kernels. One
 * GPU class is measured (NVIDIA discrete); the others take its figure. */
#define KERNEL_FIXED_S 1.724e-6
/* llama.cpp's and Ollama's sampler runs on the CPU over the whole
 * vocabulary (common/sampling.cpp: logits copied back, the candidates
 * built, penalties, top-k, top-p, min-p, temperature, dist), a cost per
 * vocabulary entry; llama-bench does not sample. Calibrated on issue 25's
 * row (a 3B Q4_K model, RTX 5090, 271 tokens/s at batch 1: 3.69 ms a
 * token, 1.12 ms of bytes, 0.83 ms of kernels, 1.74 ms over 128,256
 * entries); checked on Qwen3-8B Q4_K_M, RTX 5090, 221.7 tokens/s
 * (tests/golden/measured_serving.txt). */
#define CPU_SAMPLE_S_PER_ENTRY 13.6e-9

/* Kernels a decode step launches per layer: llama.cpp's graph of a llama
 * layer (src/llama-model.cpp llm_build_llama, flash attention): norm, q, k,
 * v, two ropes, two KV-cache writes, attention, o, residual add, norm,
 * gate, up, the gated activation, down, residual add = 17; 2 more with
 * per-head q/k norms (Qwen3, Gemma 3); 3 for the output norm, head and
 * sampling. */
static double kernels_per_token(const struct engine_ctx *c) {
    double per = 17.0 + (c->sc->model.qk_norm ? 2.0 : 0.0);
    return per * c->L + 3.0;
}

/* Decode at batch 1, one stream (one replica): the step's bytes at the
 * data sheet's bandwidth (the ceiling's), plus its kernels' fixed cost
 * and, for the runtimes that sample on the CPU, the sampler. */
static void estimate_batch1(const struct engine_ctx *c, double stage, struct engine_estimate *e) {
    struct engine_serving_estimate *v = &e->serving;
    double unread = engine_stage_unread_expert_params(c, stage, 1);
    double first, n;
    engine_stage_range(c, stage, &first, &n);
    double bytes = engine_stage_weight_bytes_gpu(c, stage, unread) +
                   n * c->kv_frac_ctx * engine_kv_bytes_token_layer_gpu(c);
    double step = c->p * bytes / e->bandwidth_bytes_per_s + v->decode_host_s;
    if (c->t > 1)
        step += 2.0 * c->Lg * c->sc->allreduce_latency_s;
    bool cpu_sampler = c->rt == ENGINE_RUNTIME_LLAMACPP || c->rt == ENGINE_RUNTIME_OLLAMA;
    v->token_launch_s = kernels_per_token(c) * KERNEL_FIXED_S;
    v->token_sample_s = cpu_sampler && c->s.vocab > 0 ? c->s.vocab * CPU_SAMPLE_S_PER_ENTRY : 0;
    v->token_fixed_s = v->token_launch_s + v->token_sample_s;
    v->batch1_tokens_per_s = 1.0 / (step + v->token_fixed_s); /* one stream */
}

/* Seconds of one steady-state step of `seqs` sequences per replica on the
 * fullest stage: their decode tokens at average context `avg` and their
 * prompts' share (P / O prompt tokens per output token), the larger of
 * bytes over bandwidth and FLOP over peak, plus the TP all-reduces'
 * latency. */
static double steady_step(const struct engine_ctx *c, double stage, double seqs, double avg,
                          double prompt, double out, const struct engine_estimate *e) {
    const struct engine_scenario *sc = c->sc;
    double first, n;
    engine_stage_range(c, stage, &first, &n);
    double unread = engine_stage_unread_expert_params(c, stage, seqs);
    double bytes = engine_stage_weight_bytes_gpu(c, stage, unread) +
                   n * seqs * avg * engine_kv_bytes_token_layer_gpu(c);
    double attn_dec = 2.0 * c->L * avg * c->s.heads * (c->s.qk_dim + c->s.v_dim);
    double attn_pre = 2.0 * c->L * prompt / 2.0 * c->s.heads * (c->s.qk_dim + c->s.v_dim);
    double flops = seqs * (2.0 * e->params_active + attn_dec) +
                   seqs * prompt / out * (2.0 * e->params_active + attn_pre);
    double mem_s = bytes / (e->bandwidth_bytes_per_s * sc->bw_efficiency);
    double cmp_s = flops / (c->t * c->p * e->peak_flop_per_s * sc->flops_efficiency);
    double s = fmax(mem_s, cmp_s);
    if (c->t > 1)
        s += 2.0 * c->Lg * sc->allreduce_latency_s;
    return s;
}

/* The steady state of the workload (prompt P, output O = context - P):
 * every sequence holds on average P + (O + 1) / 2 tokens of KV, so the
 * pool holds KV tokens / that many at once (paged runtimes allocate blocks
 * as tokens come; llama.cpp and Ollama have their --concurrency slots),
 * at most the runtime's max_num_seqs; saturated (no --request-rate) every
 * step decodes that many; with a rate of r requests/s the concurrency C
 * solves Little's law C = r / d x O x step(C). Output tokens/s = d C /
 * step: a ceiling (data-sheet rates), above what a benchmark of that
 * workload can measure. Sliding windows are taken at full context (an
 * upper bound on the KV held). */
static void estimate_steady(const struct engine_ctx *c, double stage, struct engine_estimate *e) {
    const struct engine_scenario *sc = c->sc;
    struct engine_serving_estimate *v = &e->serving;
    double prompt = sc->prompt ? sc->prompt : sc->context, out = c->ctx - prompt;
    if (out < 1)
        return; /* no output tokens: no steady state */
    double avg = prompt + (out + 1) / 2;
    double first, n;
    engine_stage_range(c, stage, &first, &n);
    double per_tok = n * engine_kv_bytes_token_layer_gpu(c);
    double cap;
    bool paged = c->rt == ENGINE_RUNTIME_VLLM || c->rt == ENGINE_RUNTIME_SGLANG ||
                 c->rt == ENGINE_RUNTIME_TRTLLM;
    if (paged) {
        double bs = engine_runtime_block(sc);
        cap = floor(v->kv_tokens / (avg + (bs - 1) / 2));
        cap = fmin(cap, engine_vllm_max_num_seqs(sc));
    } else if (c->rt == ENGINE_RUNTIME_PLAIN || c->rt == ENGINE_RUNTIME_COUNT) {
        double free_kv = e->spare_bytes + e->memory.kv_cache;
        cap = per_tok > 0 ? floor(free_kv / per_tok / avg) : 0;
    } else {
        cap = c->b; /* llama.cpp / Ollama: the slots of n_ctx each */
    }
    if (!(cap >= 1)) { /* not one sequence fits */
        v->steady_context = avg;
        v->steady_concurrency = v->steady_tokens_per_s = v->steady_request_rate = 0;
        v->steady_step_s = NAN;
        return;
    }
    double seqs = cap;
    double rate = sc->serving.request_rate / c->d; /* per replica */
    if (rate > 0 && rate * out * steady_step(c, stage, cap, avg, prompt, out, e) < cap) {
        double lo = 0, hi = cap; /* f(C) = rate O step(C) - C: f(0) > 0 > f(cap) */
        for (int it = 0; it < 60; it++) {
            double mid = (lo + hi) / 2;
            if (rate * out * steady_step(c, stage, mid, avg, prompt, out, e) > mid)
                lo = mid;
            else
                hi = mid;
        }
        seqs = hi;
    }
    v->steady_context = avg;
    v->steady_concurrency = c->d * seqs;
    v->steady_step_s = steady_step(c, stage, seqs, avg, prompt, out, e);
    v->steady_tokens_per_s = c->d * seqs / v->steady_step_s;
    v->steady_request_rate = v->steady_tokens_per_s / out;
}

/* Decode and prefill ceilings (inference modes). */
/* The whole systems G GPUs take (--system), into e->systems; 0 without
 * a system (or without its power). */
double engine_system_count(const struct engine_scenario *sc, struct engine_estimate *e) {
    if (sc->system_gpus == 0 || !engine_pos(sc->system_power_w) || sc->gpus == 0)
        return 0;
    e->systems = ceil((double)sc->gpus / sc->system_gpus);
    return e->systems;
}

void engine_estimate_decode(const struct engine_ctx *c, double stage, struct engine_estimate *e) {
    const struct engine_scenario *sc = c->sc;
    struct engine_serving_estimate *v = &e->serving;
    double unread = engine_stage_unread_expert_params(c, stage, c->b);
    double weights_read = engine_stage_weight_bytes_gpu(c, stage, unread);
    double first, n;
    engine_stage_range(c, stage, &first, &n);
    double kv_read = n * c->kv_frac_ctx * c->b * engine_kv_bytes_token_layer_gpu(c);
    e->decode_bytes_per_step = weights_read + kv_read;
    double attn = 2.0 * c->L * c->ctx * c->s.heads * (c->s.qk_dim + c->s.v_dim);
    e->decode_flops_per_token = 2.0 * e->params_active + attn;
    /* Host RAM: what the step reads there (layers, experts, a head). */
    double host_w = 0, host_kv = 0;
    engine_host_bytes(c, &host_w, &host_kv);
    host_kv *= c->kv_frac_ctx * c->b / c->kv_tokens; /* read: the context, not the padding */
    v->decode_host_bytes = host_w + host_kv;
    v->host_bytes_per_s = engine_host_bandwidth(sc);
    /* Per sequence: the p stages run one after the other, each reading its
     * bytes in parallel over t GPUs, then what host RAM holds at its own
     * bandwidth; TP adds 2 all-reduces per layer. */
    v->decode_gpu_s = c->p * e->decode_bytes_per_step / e->bandwidth_bytes_per_s;
    v->decode_host_s = v->decode_host_bytes > 0 ? v->decode_host_bytes / v->host_bytes_per_s : 0;
    double step_s = v->decode_gpu_s + v->decode_host_s;
    if (c->t > 1)
        step_s += 2.0 * c->Lg * sc->allreduce_latency_s;
    double per_seq_mem = 1.0 / step_s;
    double seqs = c->d * c->b;
    e->decode_tokens_per_s_memory_bound = per_seq_mem * seqs;
    /* Compute: every GPU busy on its share of each token's FLOP. */
    e->decode_tokens_per_s_compute_bound =
        c->t * c->p * c->d * e->peak_flop_per_s / e->decode_flops_per_token;
    e->decode_tokens_per_s = fmin(e->decode_tokens_per_s_memory_bound * sc->bw_efficiency,
                                  e->decode_tokens_per_s_compute_bound * sc->flops_efficiency);
    /* A CPU: the cores' dequantize-and-dot rate may bind first (core.c). */
    e->core_seconds_per_step =
        engine_core_step_seconds(c, engine_core_dot_weights(c, e->params_active), c->b);
    e->decode_tokens_per_s_core_bound = NAN;
    if (engine_pos(e->core_seconds_per_step)) {
        e->decode_tokens_per_s_core_bound = seqs / e->core_seconds_per_step;
        e->decode_tokens_per_s = fmin(e->decode_tokens_per_s, e->decode_tokens_per_s_core_bound);
    }
    e->decode_tokens_per_s_per_sequence = e->decode_tokens_per_s / seqs;
    e->arithmetic_intensity =
        c->b * e->decode_flops_per_token / (c->t * c->p) / e->decode_bytes_per_step;
    /* Prefill of one prompt alone, in the runtime's steps; TTFT of a request
     * arriving while batch - 1 others decode (continuous batching: each step
     * carries their tokens, then as much of the prompt as its budget
     * leaves; plain runs the prompt and their tokens in one step). */
    double prompt = sc->prompt ? sc->prompt : sc->context;
    double chunk = prefill_chunk(c, prompt);
    v->prefill_chunk_tokens = fmin(chunk, prompt);
    e->prefill_seconds =
        prefill_time(c, stage, prompt, chunk, 0, c->ctx, &v->prefill_comm_s, &v->prefill_compute_s,
                     &v->prefill_bytes_s, &v->prefill_chunks, &v->prefill_allreduce_s);
    double others = c->b - 1;
    double tchunk = c->rt == ENGINE_RUNTIME_PLAIN ? chunk : fmax(1, chunk - others);
    v->ttft_s = others > 0 ? prefill_time(c, stage, prompt, tchunk, others, c->ctx, NULL, NULL,
                                          NULL, NULL, NULL)
                           : e->prefill_seconds;
    v->tpot_s = 1.0 / e->decode_tokens_per_s_per_sequence;
    estimate_batch1(c, stage, e);
    estimate_steady(c, stage, e);
    /* Energy per token at the ceiling, every GPU at its board power. */
    if (engine_pos(sc->gpu.tdp_w))
        e->decode_joules_per_token = c->t * c->p * c->d * sc->gpu.tdp_w / e->decode_tokens_per_s;
    if (engine_system_count(sc, e) > 0)
        e->decode_system_joules_per_token =
            e->systems * sc->system_power_w / e->decode_tokens_per_s;
}
