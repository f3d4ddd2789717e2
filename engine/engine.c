/*
 * engine.c: scenario -> estimate.
 *
 * All quantities in bytes, seconds, FLOP; memory is per GPU, for the most
 * loaded GPU (the pipeline stage whose total is largest). Sources:
 *  - weights N * bits_eff / 8, bits_eff = bits + scale/group (+ zero/group):
 *    seed 000 ("INT4 son en realidad 4.5 bits", 70B INT4 ~ 39 GB);
 *  - KV cache 2 * L * kv * d * ctx * batch * bytes (GQA-aware), MLA stores
 *    kv_lora + rope per token and layer (DeepSeek-V2 §2.1.2);
 *  - training states per parameter by recipe (ZeRO §3.1: 2+2+12 = 16 B;
 *    seed 000, 002, 003), divided by d under ZeRO stages 1/2/3;
 *  - activations per layer (Korthikanti et al. 2022, §4, eq. 1-2 and
 *    Table 2), generalised to GQA and gated MLPs (see act_per_layer);
 *  - decode ceiling BW / bytes read per step (seed 000: 3350 GB/s / 16 GB
 *    = 209 tokens/s), compute ceiling peak / FLOP per token, ridge peak/BW
 *    (seed 000: 989e12 / 3.35e12 = 295 FLOP/byte);
 *  - training 6 N FLOP per token (8 N with full recompute; Korthikanti §5),
 *    compute = FLOP / (G * peak * MFU), stretched by the GPipe bubble
 *    (p-1)/(m+p-1) (Huang et al. 2019; interleaved (p-1)/(v m + p-1),
 *    Narayanan et al. 2021 §2.2), plus the TP all-reduces and the part of
 *    the DP all-reduce the backward pass cannot hide; ring all-reduce
 *    2 (n-1)/n * bytes / BW.
 * The function never allocates and never fails: invalid input sets bits in
 * est->invalid and leaves the figures NaN.
 */
#include <math.h>
#include <string.h>

#include "engine/internal.h"

/* Recipes: bytes per parameter for weights, gradients, master copy, optimizer. */
static const struct engine_recipe_info recipes[ENGINE_RECIPE_COUNT] = {
    [ENGINE_RECIPE_ADAM_MIXED] = {"adam-mixed", 2, 2, 4, 8,
                                  "ZeRO (Rajbhandari et al. 2020) §3.1; seed 000"},
    [ENGINE_RECIPE_ADAM_MIXED_FP32_GRADS] = {"adam-mixed-fp32-grads", 2, 4, 4, 8,
                                             "Megatron-LM; llm-analysis; seed 003"},
    [ENGINE_RECIPE_ADAM_FP32] = {"adam-fp32", 4, 4, 0, 8, "seed 002"},
    [ENGINE_RECIPE_ADAM_BF16] = {"adam-bf16", 2, 2, 0, 8, "seed 002 (pure BF16 Adam)"},
    [ENGINE_RECIPE_ADAM_8BIT] = {"adam-8bit", 2, 2, 4, 2,
                                 "bitsandbytes 8-bit Adam (Dettmers et al. 2022)"},
    [ENGINE_RECIPE_SGD_MOMENTUM] = {"sgd-momentum", 2, 2, 4, 4, "one FP32 momentum buffer"},
};

static const char *const mode_names[] = {"infer", "train", "lora", "qlora"};
static const char *const recompute_names[] = {"none", "selective", "full"};
static const char *const compute_names[ENGINE_COMPUTE_COUNT] = {"fp16", "bf16", "fp32",
                                                                "fp8",  "int8", "fp4"};

/* Default fine-tuning set of LoRA and QLoRA runs, in tokens. */
#define LORA_DEFAULT_TOKENS 1e8

/* Look a name up in a table; returns the index or -1. */
static int table_index(const char *const *names, int n, const char *s) {
    if (!s)
        return -1;
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], s) == 0)
            return i;
    return -1;
}

/* Recipe by enum (NULL when out of range). */
const struct engine_recipe_info *engine_recipe_info(enum engine_recipe r) {
    return (unsigned)r < ENGINE_RECIPE_COUNT ? &recipes[r] : NULL;
}

/* Parse a recipe id; 0 on success. */
int engine_recipe_parse(const char *id, enum engine_recipe *out) {
    for (int i = 0; i < ENGINE_RECIPE_COUNT; i++)
        if (id && strcmp(recipes[i].id, id) == 0) {
            *out = (enum engine_recipe)i;
            return 0;
        }
    return -1;
}

/* Name of a mode. */
const char *engine_mode_name(enum engine_mode m) {
    return (unsigned)m < 4 ? mode_names[m] : "?";
}

/* Parse a mode ("inference" and "training" accepted as well). */
int engine_mode_parse(const char *s, enum engine_mode *out) {
    int i = table_index(mode_names, 4, s);
    if (i < 0 && s && strcmp(s, "inference") == 0)
        i = 0;
    if (i < 0 && s && strcmp(s, "training") == 0)
        i = 1;
    if (i < 0)
        return -1;
    *out = (enum engine_mode)i;
    return 0;
}

/* Name of a recompute policy. */
const char *engine_recompute_name(enum engine_recompute r) {
    return (unsigned)r < 3 ? recompute_names[r] : "?";
}

/* Parse a recompute policy. */
int engine_recompute_parse(const char *s, enum engine_recompute *out) {
    int i = table_index(recompute_names, 3, s);
    if (i < 0)
        return -1;
    *out = (enum engine_recompute)i;
    return 0;
}

/* Name of a FLOP/s column. */
const char *engine_compute_name(enum engine_compute c) {
    return (unsigned)c < ENGINE_COMPUTE_COUNT ? compute_names[c] : "?";
}

/* The FLOP/s column of a scenario (see engine.h). */
enum engine_compute engine_compute_column(const struct engine_scenario *sc) {
    if (sc->mode == ENGINE_MODE_TRAIN)
        return sc->recipe == ENGINE_RECIPE_ADAM_FP32 ? ENGINE_COMPUTE_FP32 : ENGINE_COMPUTE_BF16;
    if (sc->mode == ENGINE_MODE_LORA || sc->mode == ENGINE_MODE_QLORA)
        return ENGINE_COMPUTE_BF16;
    return sc->weight_format.compute;
}

/* Parse a FLOP/s column name. */
int engine_compute_parse(const char *s, enum engine_compute *out) {
    int i = table_index(compute_names, ENGINE_COMPUTE_COUNT, s);
    if (i < 0)
        return -1;
    *out = (enum engine_compute)i;
    return 0;
}

/* Effective bits per weight: bits + scale/block + zero/block + super/super_block. */
double engine_format_bits(const struct engine_format *f) {
    double b = f->bits;
    if (f->block)
        b += (f->scale_bits + f->zero_bits) / f->block;
    if (f->super_block)
        b += f->super_scale_bits / f->super_block;
    return b;
}

/* Documented defaults (engine.md); model, formats and GPU left empty. */
void engine_scenario_defaults(struct engine_scenario *sc) {
    *sc = (struct engine_scenario){0};
    sc->gpus = 1;
    sc->tp = sc->pp = sc->dp = 1;
    sc->micro_batches = 1;
    sc->interleave = 1;
    sc->mode = ENGINE_MODE_INFER;
    sc->batch = 1;
    sc->context = 4096;
    sc->recompute = ENGINE_RECOMPUTE_SELECTIVE;
    sc->recipe = ENGINE_RECIPE_ADAM_MIXED;
    sc->lora_rank = 16;
    sc->mfu = 0.40;                    /* Llama 3.1 405B: 38-43% (Llama 3 paper, Table 4) */
    sc->reserve_bytes = 1e9;           /* CUDA context and allocator slack */
    sc->inter_node_bytes_per_s = 50e9; /* 400 Gb/s InfiniBand NDR per GPU */
    sc->allreduce_latency_s = 5e-6;    /* small-message all-reduce over NVLink */
    sc->bw_efficiency = 1.0;
    sc->flops_efficiency = 1.0;
}

/* True when x is a finite positive number. */
static bool pos(double x) {
    return isfinite(x) && x > 0;
}

/* Check a scenario; returns the engine_invalid bits. */
static uint32_t validate(const struct engine_scenario *sc, const struct engine_shape *s) {
    uint32_t bad = 0;
    const struct engine_model *m = &sc->model;
    if (!pos(s->params_total) || m->layers == 0 || m->hidden == 0 || m->heads == 0 ||
        (m->has_arch && m->vocab == 0))
        bad |= ENGINE_INVALID_SIZE;
    if (sc->gpus == 0 || sc->batch == 0 || sc->context == 0 || sc->tp == 0 || sc->pp == 0 ||
        sc->dp == 0 || sc->micro_batches == 0 || sc->interleave == 0 ||
        !isfinite(sc->reserve_bytes) || sc->reserve_bytes < 0 || sc->training_tokens < 0 ||
        !isfinite(sc->training_tokens) || sc->price_per_hour < 0 || !isfinite(sc->price_per_hour))
        bad |= ENGINE_INVALID_WORKLOAD;
    if (sc->tp && sc->pp && sc->dp && (uint64_t)sc->tp * sc->pp * sc->dp != (uint64_t)sc->gpus)
        bad |= ENGINE_INVALID_LAYOUT;
    if (sc->tp && m->heads && m->heads % sc->tp != 0)
        bad |= ENGINE_INVALID_TP_HEADS;
    if (sc->pp && m->layers && sc->pp > m->layers)
        bad |= ENGINE_INVALID_PP_LAYERS;
    if (sc->zero > 3)
        bad |= ENGINE_INVALID_ZERO;
    const struct engine_gpu *g = &sc->gpu;
    if (!pos(g->memory_bytes) || !pos(g->bandwidth_bytes_per_s) ||
        !(pos(g->flops[ENGINE_COMPUTE_FP16]) || pos(g->flops[ENGINE_COMPUTE_BF16])))
        bad |= ENGINE_INVALID_GPU;
    if (!pos(engine_format_bits(&sc->weight_format)) || !pos(engine_format_bits(&sc->kv_format)))
        bad |= ENGINE_INVALID_FORMAT;
    if (!pos(sc->bw_efficiency) || sc->bw_efficiency > 1 || !pos(sc->flops_efficiency) ||
        sc->flops_efficiency > 1 || !pos(sc->mfu) || sc->mfu > 1)
        bad |= ENGINE_INVALID_EFFICIENCY;
    if (sc->measured_bytes_per_s < 0 || sc->measured_flop_per_s < 0 ||
        !isfinite(sc->measured_bytes_per_s) || !isfinite(sc->measured_flop_per_s))
        bad |= ENGINE_INVALID_GPU;
    return bad;
}

/* Working values of one estimate, shared by the helpers below. */
struct ctx {
    const struct engine_scenario *sc;
    struct engine_shape s;
    double t, p, d, b, ctx, L;
    bool training, lora;
    double lps;         /* layers per stage (ceil) */
    double bits_w;      /* bits per weight of the (frozen) weights */
    double bytes_kv;    /* bytes per KV element */
    double kv_frac_ctx; /* average stored context per layer (sliding windows) */
    double gpn;         /* GPUs per node */
};

/* Layers of stage i: dense and MoE counts. */
static void stage_layers(const struct ctx *c, double i, double *dense, double *moe) {
    double first = i * c->lps;
    double n = fmin(c->lps, c->L - first);
    if (n < 0)
        n = 0;
    double dn = fmax(0, fmin(first + n, c->s.dense_layers) - first);
    if (dn > n)
        dn = n;
    *dense = dn;
    *moe = n - dn;
}

/* Parameters held by pipeline stage i (before TP and ZeRO division). */
static double stage_params(const struct ctx *c, double i) {
    const struct engine_model *m = &c->sc->model;
    if (!m->has_arch)
        return c->s.params_total * fmin(c->lps, c->L - i * c->lps) / c->L;
    double dn, mn;
    stage_layers(c, i, &dn, &mn);
    double p = dn * c->s.params_dense_layer + mn * c->s.params_moe_layer;
    if (i == 0)
        p += c->s.params_embed_in;
    if (i == c->p - 1) {
        p += c->s.params_head;
        /* A tied head needs its own copy of the embedding on the last stage. */
        if (m->tied && c->p > 1)
            p += c->s.vocab * c->s.hidden;
    }
    return p;
}

/* Routed-expert parameters of stage i that a decode step does not read at batch b:
 * tokens route independently and uniformly, so E (1 - (1 - k/E)^b) experts are touched. */
static double stage_unread_expert_params(const struct ctx *c, double i) {
    const struct engine_model *m = &c->sc->model;
    if (!c->s.moe || m->experts == 0)
        return 0;
    double dn, mn;
    stage_layers(c, i, &dn, &mn);
    double e = m->experts, k = m->active_experts;
    double touched = e * (1.0 - pow(1.0 - k / e, c->b));
    return mn * c->s.params_experts_layer * (1.0 - touched / e);
}

/* KV heads one GPU stores: kv / t, never below one (replicated when kv < t). */
static double kv_heads_per_gpu(const struct ctx *c) {
    if (c->s.mla)
        return 1; /* the latent is shared by all heads: each TP rank keeps it whole */
    return ceil(c->s.kv_heads / c->t);
}

/* KV cache bytes of one token of one sequence on one layer of one GPU. */
static double kv_bytes_token_layer_gpu(const struct ctx *c) {
    if (c->s.mla)
        return c->s.kv_elems_per_token_layer * c->bytes_kv;
    return 2.0 * kv_heads_per_gpu(c) * c->s.head_dim * c->bytes_kv;
}

/*
 * Activation bytes of one transformer layer (Korthikanti et al. 2022, §4.1):
 * s b h (34 + 5 a s / h) without parallelism. The 34 splits into 10 terms
 * that tensor parallelism replicates (two LayerNorm inputs 4, QKV and MLP
 * inputs 2 + 2, two dropout masks 2) and 24 it splits (Q, K 4, V 2, output
 * projection input 2, MLP 16). Generalised: K and V scale with r = kv/a
 * (Q 2 + K,V 4r + out 2 = 4 + 4r), the MLP interior with its width f
 * (4 f/h plain, 6 f/h gated: gate, up and their product). With r = 1 and
 * f = 4h this is the paper's 24 exactly.
 */
static double act_per_layer(const struct ctx *c) {
    double s = c->ctx, b = c->b, h = c->s.hidden, a = c->s.heads, t = c->t;
    double r = c->s.mla ? 1.0 : c->s.kv_heads / c->s.heads;
    double f = c->s.mlp_width;
    double split = 4.0 + 4.0 * r + (c->s.gated ? 6.0 : 4.0) * f / h;
    double repl = 10.0;
    double score = 5.0 * a * s / h; /* softmax, its dropout mask and output */
    bool sp = c->sc->sequence_parallel;
    switch (c->sc->recompute) {
    case ENGINE_RECOMPUTE_FULL:
        return 2.0 * s * b * h / (sp ? t : 1.0);
    case ENGINE_RECOMPUTE_SELECTIVE:
        score = 0; /* attention scores recomputed (flash attention) */
        break;
    case ENGINE_RECOMPUTE_NONE:
        break;
    }
    return s * b * h * ((sp ? repl / t : repl) + split / t + score / t);
}

/* Full (no recompute) activations of one layer: the working set of a
 * recomputed layer under full recompute. */
static double act_layer_working(const struct ctx *c) {
    struct ctx tmp = *c;
    struct engine_scenario sc = *c->sc;
    sc.recompute = ENGINE_RECOMPUTE_SELECTIVE;
    tmp.sc = &sc;
    return act_per_layer(&tmp);
}

/* Memory of pipeline stage i on one GPU into *mem; returns the total. */
static double stage_memory(const struct ctx *c, double i, struct engine_memory *mem,
                           struct engine_estimate *est) {
    const struct engine_scenario *sc = c->sc;
    const struct engine_recipe_info *r = &recipes[sc->recipe];
    double params = stage_params(c, i) / c->t;
    *mem = (struct engine_memory){0};
    mem->reserve = sc->reserve_bytes;
    double z = sc->zero, d = c->d;
    if (sc->mode == ENGINE_MODE_TRAIN) {
        mem->weights = params * r->weights / (z >= 3 ? d : 1);
        mem->gradients = params * r->grads / (z >= 2 ? d : 1);
        mem->master_weights = params * r->master / (z >= 1 ? d : 1);
        mem->optimizer = params * r->optimizer / (z >= 1 ? d : 1);
    } else {
        mem->weights = params * c->bits_w / 8.0 / (z >= 3 && c->training ? d : 1);
    }
    if (c->lora) {
        /* Adapters r (d_in + d_out) on q, k, v, o and the MLP matrices. */
        const struct engine_model *m = &sc->model;
        double h = c->s.hidden, qd = c->s.heads * c->s.qk_dim, kvd = c->s.kv_heads * c->s.head_dim;
        double f = c->s.ffn ? c->s.ffn : 4 * h;
        double per_layer = (h + qd) + 2 * (h + kvd) + (qd + h) + (m->gated ? 3 : 2) * (h + f);
        double dn, mn;
        stage_layers(c, i, &dn, &mn);
        double trainable = sc->lora_rank * per_layer * (dn + mn) / c->t;
        est->params_trainable = sc->lora_rank * per_layer * c->L;
        mem->weights += trainable * r->weights;
        mem->gradients = trainable * r->grads / (z >= 2 ? d : 1);
        mem->master_weights = trainable * r->master / (z >= 1 ? d : 1);
        mem->optimizer = trainable * r->optimizer / (z >= 1 ? d : 1);
    }
    double dn, mn;
    stage_layers(c, i, &dn, &mn);
    double layers = dn + mn;
    if (c->training) {
        double per = act_per_layer(c);
        double inflight = fmin(sc->micro_batches, c->p - i); /* 1F1B: stage i holds p - i */
        double held = layers * inflight;
        double act = per * held;
        if (sc->recompute == ENGINE_RECOMPUTE_FULL)
            act += act_layer_working(c);
        double logits = (i == c->p - 1) ? 4.0 * c->ctx * c->b * c->s.vocab / c->t : 0;
        mem->activations = act + logits;
        est->act_per_layer_bytes = per;
        est->act_layers_held = held;
        est->act_logits_bytes = logits;
    } else {
        mem->kv_cache = layers * c->kv_frac_ctx * c->b * kv_bytes_token_layer_gpu(c);
        /* One decode step's logits in FP32 for the batch. */
        mem->activations = (i == c->p - 1) ? 4.0 * c->b * c->s.vocab / c->t : 0;
        est->act_logits_bytes = mem->activations;
    }
    mem->total = mem->weights + mem->kv_cache + mem->activations + mem->gradients +
                 mem->master_weights + mem->optimizer + mem->reserve;
    return mem->total;
}

/* Peak FLOP/s for the format's compute column (FP16 where the GPU lacks it). */
static double peak_flops(const struct engine_scenario *sc, enum engine_compute col,
                         bool *fallback) {
    double f = sc->gpu.flops[col];
    *fallback = false;
    if (!pos(f)) {
        *fallback = true;
        f = pos(sc->gpu.flops[ENGINE_COMPUTE_FP16]) ? sc->gpu.flops[ENGINE_COMPUTE_FP16]
                                                    : sc->gpu.flops[ENGINE_COMPUTE_BF16];
    }
    return f;
}

/* Fill every figure with NaN (what does not apply or cannot be computed). */
static void fill_nan(struct engine_estimate *e) {
    double *fields[] = {
        &e->params_total,
        &e->params_active,
        &e->params_trainable,
        &e->bits_per_weight,
        &e->memory.weights,
        &e->memory.kv_cache,
        &e->memory.activations,
        &e->memory.gradients,
        &e->memory.master_weights,
        &e->memory.optimizer,
        &e->memory.reserve,
        &e->memory.total,
        &e->capacity,
        &e->spare_bytes,
        &e->memory_ratio,
        &e->decode_tokens_per_s,
        &e->decode_tokens_per_s_memory_bound,
        &e->decode_tokens_per_s_compute_bound,
        &e->decode_tokens_per_s_per_sequence,
        &e->decode_bytes_per_step,
        &e->decode_flops_per_token,
        &e->ridge_flop_per_byte,
        &e->arithmetic_intensity,
        &e->compute_bound_batch,
        &e->bandwidth_bytes_per_s,
        &e->peak_flop_per_s,
        &e->kv_bytes_per_token,
        &e->prefill_seconds,
        &e->act_per_layer_bytes,
        &e->act_layers_held,
        &e->act_logits_bytes,
        &e->train_flops_per_token,
        &e->train_tokens_per_step,
        &e->train_tokens,
        &e->train_compute_seconds,
        &e->train_step_seconds,
        &e->train_bubble_fraction,
        &e->train_tp_comm_seconds,
        &e->train_dp_comm_seconds,
        &e->train_days,
        &e->train_gpu_hours,
        &e->train_cost_usd,
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        *fields[i] = NAN;
}

/* Ring all-reduce time of n bytes over k ranks at bw bytes/s, plus latency
 * (engine.h: engine_allreduce_seconds). */
static double allreduce_s(double bytes, double k, double bw, double latency) {
    if (k <= 1)
        return 0;
    return 2.0 * (k - 1.0) / k * bytes / bw + latency;
}

/* The ring model (see engine.h). */
double engine_allreduce_seconds(double bytes, double ranks, double bytes_per_s, double latency_s) {
    return allreduce_s(bytes, ranks, bytes_per_s, latency_s);
}

/* The one-way link bandwidth of the ring model (see engine.h). */
double engine_allreduce_bandwidth(const struct engine_scenario *sc, bool across_nodes) {
    /* Intra-node links are quoted as vendors do, both directions together
     * (H100 NVLink 900 GB/s = 450 each way); a ring all-reduce moves data
     * one way at a time, so it gets half. Inter-node figures are per
     * direction already (400 Gb/s NDR = 50 GB/s). */
    if (across_nodes)
        return sc->inter_node_bytes_per_s;
    return pos(sc->intra_node_bytes_per_s) ? sc->intra_node_bytes_per_s / 2.0
           : pos(sc->gpu.link_bytes_per_s) ? sc->gpu.link_bytes_per_s / 2.0
                                           : sc->inter_node_bytes_per_s;
}

/* Decode and prefill ceilings (inference modes). */
static void estimate_decode(const struct ctx *c, double stage, struct engine_estimate *e) {
    const struct engine_scenario *sc = c->sc;
    double params_gpu = (stage_params(c, stage) - stage_unread_expert_params(c, stage)) / c->t;
    double weights_read = params_gpu * c->bits_w / 8.0;
    e->decode_bytes_per_step = weights_read + e->memory.kv_cache;
    double attn = 2.0 * c->L * c->ctx * c->s.heads * (c->s.qk_dim + c->s.v_dim);
    e->decode_flops_per_token = 2.0 * e->params_active + attn;
    /* Per sequence: the p stages run one after the other, each reading its
     * bytes in parallel over t GPUs; TP adds 2 all-reduces per layer. */
    double step_s = c->p * e->decode_bytes_per_step / e->bandwidth_bytes_per_s;
    if (c->t > 1)
        step_s += 2.0 * c->L * sc->allreduce_latency_s;
    double per_seq_mem = 1.0 / step_s;
    double seqs = c->d * c->b;
    e->decode_tokens_per_s_memory_bound = per_seq_mem * seqs;
    /* Compute: every GPU busy on its share of each token's FLOP. */
    e->decode_tokens_per_s_compute_bound =
        c->t * c->p * c->d * e->peak_flop_per_s / e->decode_flops_per_token;
    e->decode_tokens_per_s = fmin(e->decode_tokens_per_s_memory_bound * sc->bw_efficiency,
                                  e->decode_tokens_per_s_compute_bound * sc->flops_efficiency);
    e->decode_tokens_per_s_per_sequence = e->decode_tokens_per_s / seqs;
    e->arithmetic_intensity =
        c->b * e->decode_flops_per_token / (c->t * c->p) / e->decode_bytes_per_step;
    double prompt = sc->prompt ? sc->prompt : sc->context;
    double prefill_flops = 2.0 * e->params_active * prompt +
                           c->L * prompt * prompt * c->s.heads * (c->s.qk_dim + c->s.v_dim);
    e->prefill_seconds = prefill_flops / (c->t * e->peak_flop_per_s * sc->flops_efficiency);
}

/* Training time, bubble and communication (training modes). */
static void estimate_training(const struct ctx *c, double stage, struct engine_estimate *e) {
    const struct engine_scenario *sc = c->sc;
    double n = e->params_active;
    double k = sc->mode == ENGINE_MODE_TRAIN ? 6.0 : 4.0; /* LoRA: no weight gradients */
    if (sc->recompute == ENGINE_RECOMPUTE_FULL)
        k += 2.0; /* one more forward pass */
    e->train_flops_per_token = k * n;
    e->train_tokens_per_step = (double)sc->batch * sc->micro_batches * c->d * c->ctx;
    double g = c->t * c->p * c->d;
    e->train_compute_seconds =
        e->train_flops_per_token * e->train_tokens_per_step / (g * e->peak_flop_per_s * sc->mfu);
    double m = sc->micro_batches, v = sc->interleave;
    e->train_bubble_fraction = (c->p - 1.0) / (v * m + c->p - 1.0);
    double intra = engine_allreduce_bandwidth(sc, false);
    /* TP: 2 all-reduces of s b h 16-bit activations per layer forward, 2 backward. */
    double act_bytes = c->ctx * c->b * c->s.hidden * 2.0;
    double lat = sc->allreduce_latency_s;
    double tp_bw = c->t <= c->gpn ? intra : sc->inter_node_bytes_per_s;
    e->train_tp_comm_seconds =
        c->t > 1 ? 4.0 * c->lps * m * allreduce_s(act_bytes, c->t, tp_bw, lat) : 0;
    /* DP: one all-reduce of the gradients of the most loaded GPU per step. */
    double grad_bytes;
    if (sc->mode == ENGINE_MODE_TRAIN)
        grad_bytes = stage_params(c, stage) / c->t * recipes[sc->recipe].grads;
    else
        grad_bytes = e->params_trainable / (c->t * c->p) * recipes[sc->recipe].grads;
    double dp_bw = c->t * c->p * c->d <= c->gpn ? intra : sc->inter_node_bytes_per_s;
    double dp = allreduce_s(grad_bytes, c->d, dp_bw, lat);
    if (sc->zero >= 3)
        dp *= 1.5; /* ZeRO-3 adds a parameter all-gather (ZeRO §7.2.2: 1.5x traffic) */
    e->train_dp_comm_seconds = dp;
    /* The step: compute at MFU stretched by the pipeline bubble, plus the TP
     * all-reduces (on the critical path) and whatever of the DP all-reduce
     * the backward pass (2/3 of the compute) cannot hide. */
    double compute = e->train_compute_seconds;
    e->train_step_seconds = compute / (1.0 - e->train_bubble_fraction) + e->train_tp_comm_seconds +
                            fmax(0.0, dp - compute * 2.0 / 3.0);
    /* Default tokens: Chinchilla's 20 per parameter for pre-training
     * (Hoffmann et al. 2022); a 100M-token fine-tuning set for LoRA. */
    double tokens = engine_training_tokens(sc, e->params_total);
    e->train_tokens = tokens;
    double seconds = tokens / e->train_tokens_per_step * e->train_step_seconds;
    e->train_days = seconds / 86400.0;
    e->train_gpu_hours = seconds / 3600.0 * g;
    /* A price of 0 given by the user (one's own GPUs) costs nothing; no
     * price at all (none given, none in the catalog) has no cost. */
    double price = engine_price_per_hour(sc);
    e->train_cost_usd = pos(price) || sc->price_given ? e->train_gpu_hours * price : NAN;
}

/* The training tokens a scenario uses (see engine.h). */
double engine_training_tokens(const struct engine_scenario *sc, double params_total) {
    if (sc->training_tokens_given || pos(sc->training_tokens))
        return sc->training_tokens;
    return sc->mode == ENGINE_MODE_TRAIN ? 20.0 * params_total : LORA_DEFAULT_TOKENS;
}

/* The price per GPU-hour a scenario uses (see engine.h). */
double engine_price_per_hour(const struct engine_scenario *sc) {
    if (sc->price_given || pos(sc->price_per_hour))
        return sc->price_per_hour;
    return pos(sc->gpu.price_per_hour) ? sc->gpu.price_per_hour : 0;
}

/* The whole estimate. */
void engine_estimate(const struct engine_scenario *sc, struct engine_estimate *e) {
    memset(e, 0, sizeof *e);
    fill_nan(e);
    struct ctx c = {.sc = sc};
    engine_shape_of(&sc->model, &c.s);
    e->params_total = c.s.params_total;
    e->params_active = c.s.params_active;
    e->tp = sc->tp;
    e->pp = sc->pp;
    e->dp = sc->dp;
    e->gpus = sc->gpus;
    e->capacity = sc->gpu.memory_bytes;
    e->invalid = validate(sc, &c.s);
    if (e->invalid) {
        e->fits = false;
        return;
    }
    c.t = sc->tp;
    c.p = sc->pp;
    c.d = sc->dp;
    c.b = sc->batch;
    c.ctx = sc->context;
    c.L = c.s.layers;
    c.lps = ceil(c.L / c.p);
    c.training = sc->mode != ENGINE_MODE_INFER;
    c.lora = sc->mode == ENGINE_MODE_LORA || sc->mode == ENGINE_MODE_QLORA;
    c.gpn =
        sc->gpus_per_node ? sc->gpus_per_node : (sc->gpu.gpus_per_node ? sc->gpu.gpus_per_node : 1);
    c.bits_w = engine_format_bits(&sc->weight_format); /* QLoRA: the caller picks NF4 */
    c.bytes_kv = engine_format_bits(&sc->kv_format) / 8.0;
    const struct engine_model *m = &sc->model;
    double win = m->sliding_window, sl = m->sliding_layers ? m->sliding_layers : m->layers;
    if (win > 0 && win < c.ctx)
        c.kv_frac_ctx = ((c.L - sl) * c.ctx + sl * win) / c.L;
    else
        c.kv_frac_ctx = c.ctx;
    e->bits_per_weight =
        sc->mode == ENGINE_MODE_TRAIN ? recipes[sc->recipe].weights * 8.0 : c.bits_w;
    e->params_trainable = sc->mode == ENGINE_MODE_TRAIN ? e->params_total : 0;
    if (sc->mode == ENGINE_MODE_INFER)
        e->params_trainable = NAN;

    /* Most loaded GPU: compare every stage (p is at most the layer count). */
    double best = -1, best_stage = 0;
    struct engine_memory mem;
    struct engine_estimate scratch = *e;
    for (double i = 0; i < c.p; i++) {
        double tot = stage_memory(&c, i, &mem, &scratch);
        if (tot > best) {
            best = tot;
            best_stage = i;
        }
    }
    stage_memory(&c, best_stage, &e->memory, e);
    e->spare_bytes = e->capacity - e->memory.total;
    e->fits = e->memory.total <= e->capacity;
    e->memory_ratio = e->memory.total / e->capacity;

    bool fallback = false;
    enum engine_compute col = engine_compute_column(sc);
    e->peak_flop_per_s = peak_flops(sc, col, &fallback);
    e->bandwidth_bytes_per_s = sc->gpu.bandwidth_bytes_per_s;
    if (pos(sc->measured_bytes_per_s))
        e->bandwidth_bytes_per_s = sc->measured_bytes_per_s;
    if (pos(sc->measured_flop_per_s))
        e->peak_flop_per_s = sc->measured_flop_per_s;
    e->ridge_flop_per_byte = e->peak_flop_per_s / e->bandwidth_bytes_per_s;
    if (!c.training)
        e->compute_bound_batch = e->ridge_flop_per_byte * c.bits_w / 8.0 / 2.0;
    e->kv_bytes_per_token =
        c.L * (c.s.mla ? c.s.kv_elems_per_token_layer : 2.0 * c.s.kv_heads * c.s.head_dim) *
        c.bytes_kv;

    if (c.training)
        estimate_training(&c, best_stage, e);
    else
        estimate_decode(&c, best_stage, e);

    /* Warnings. */
    uint32_t w = 0;
    if (c.t > c.gpn)
        w |= ENGINE_WARN_TP_ACROSS_NODES;
    if (c.training && c.p > 1 && sc->micro_batches < 4 * sc->pp)
        w |= ENGINE_WARN_BUBBLE;
    if (m->max_context && sc->context > m->max_context)
        w |= ENGINE_WARN_CONTEXT_OVER_MAX;
    if (!m->has_arch)
        w |= ENGINE_WARN_DERIVED_SHAPE;
    if (!c.training && !c.s.mla && c.t > c.s.kv_heads)
        w |= ENGINE_WARN_KV_REPLICATED;
    if (fallback && !pos(sc->measured_flop_per_s))
        w |= ENGINE_WARN_NO_FORMAT_FLOPS;
    if (!e->fits)
        w |= ENGINE_WARN_DOES_NOT_FIT;
    if (c.training && sc->zero > 0 && sc->dp == 1)
        w |= ENGINE_WARN_ZERO_WITHOUT_DP;
    if (c.training && e->train_tp_comm_seconds + e->train_dp_comm_seconds > e->train_step_seconds)
        w |= ENGINE_WARN_COMM_BOUND;
    if (c.training && !isfinite(e->train_cost_usd))
        w |= ENGINE_WARN_NO_PRICE;
    if (pos(sc->measured_bytes_per_s) || pos(sc->measured_flop_per_s))
        w |= ENGINE_WARN_CALIBRATED;
    if (!c.training && c.s.moe && sc->batch > 1)
        w |= ENGINE_WARN_MOE_ROUTING;
    if (m->layers % sc->pp)
        w |= ENGINE_WARN_UNEVEN_STAGES;
    e->warnings = w;
}
