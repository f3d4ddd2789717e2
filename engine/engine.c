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
 *    Table 2), generalised to GQA and gated MLPs (see act_per_layer); the
 *    interleaved schedule's first stage holds 1 + (p-1)/(p v) times more
 *    (§4.2.3); full recompute by Megatron-LM's uniform or block method with
 *    --recompute-num-layers;
 *  - expert parallelism as Megatron-LM's theoretical_memory_usage.py counts
 *    it (experts / (t ep), their states over d / ep), its all-to-all per
 *    MoE layer; Lion's one state, Adafactor's factored second moment
 *    (Shazeer and Stern 2018 §3); K/V projections replicated per TP rank
 *    where t exceeds the KV heads (vLLM's QKVParallelLinear);
 *  - decode ceiling BW / bytes read per step (seed 000: 3350 GB/s / 16 GB
 *    = 209 tokens/s), compute ceiling peak / FLOP per token, ridge peak/BW
 *    (seed 000: 989e12 / 3.35e12 = 295 FLOP/byte);
 *  - training model FLOPs 6 N + 12 L h s per token (PaLM appendix B;
 *    --flops-model 6n drops the attention term), recompute adding to the
 *    hardware FLOPs only (Korthikanti §5); a given MFU is end to end:
 *    step = model FLOPs / (G * peak * MFU), nothing added. Without one the
 *    MFU is predicted: hardware FLOPs at the kernel efficiency, stretched
 *    by the GPipe bubble (p-1)/(m+p-1) (Huang et al. 2019; interleaved
 *    (p-1)/(v m + p-1), Narayanan et al. 2021 §2.2), plus the TP
 *    all-reduces, the PP hand-offs and the part of the DP all-reduce the
 *    backward pass cannot hide; ring all-reduce 2 (n-1)/n * bytes / BW.
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
    /* Lion keeps one state, the momentum (Chen et al. 2023, "Symbolic
     * Discovery of Optimization Algorithms", §2: half of Adam's), here in
     * FP32 beside BF16 weights and an FP32 master copy. */
    [ENGINE_RECIPE_LION] = {"lion", 2, 2, 4, 4,
                            "Lion (Chen et al. 2023) §2: one FP32 momentum state"},
    /* The same one-state optimizer with FP32 gradients, as Megatron-LM
     * accumulates its main_grad in FP32 (the 6 + 12/d of its
     * theoretical_memory_usage.py is 2 + 4 + 12/d). */
    [ENGINE_RECIPE_LION_FP32_GRADS] = {"lion-fp32-grads", 2, 4, 4, 4,
                                       "Lion (Chen et al. 2023); FP32 gradients as Megatron-LM"},
    /* Adafactor without momentum (seed 002: optim="adafactor", "no
     * momentum"; Hugging Face's beta1 = None): a factored FP32 second
     * moment, rows + columns per matrix (Shazeer and Stern 2018 §3). */
    [ENGINE_RECIPE_ADAFACTOR] = {"adafactor", 2, 2, 4, 0,
                                 "Adafactor (Shazeer and Stern 2018) §3; seed 002", true},
};

static const char *const mode_names[] = {"infer", "train", "lora", "qlora"};
static const char *const recompute_names[] = {"none", "selective", "full"};
static const char *const recompute_method_names[ENGINE_RECOMPUTE_METHOD_COUNT] = {"uniform",
                                                                                 "block"};
static const char *const flops_model_names[ENGINE_FLOPS_MODEL_COUNT] = {"6n-attention", "6n"};
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

/* The training states of one GPU (see engine.h; engine/zero.c). */
void engine_zero_states(const struct engine_scenario *sc, double params, double largest,
                        struct engine_memory *mem) {
    const struct engine_recipe_info *r = engine_recipe_info(sc->recipe);
    if (r)
        engine_zero_states_of(sc, r, params, largest, mem);
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

/* Name of a full-recompute method. */
const char *engine_recompute_method_name(enum engine_recompute_method m) {
    return (unsigned)m < ENGINE_RECOMPUTE_METHOD_COUNT ? recompute_method_names[m] : "?";
}

/* Parse a full-recompute method ("uniform", "block"). */
int engine_recompute_method_parse(const char *s, enum engine_recompute_method *out) {
    int i = table_index(recompute_method_names, ENGINE_RECOMPUTE_METHOD_COUNT, s);
    if (i < 0)
        return -1;
    *out = (enum engine_recompute_method)i;
    return 0;
}

/* The expert-parallel degree (see engine.h). */
uint32_t engine_ep(const struct engine_scenario *sc) {
    return sc->ep > 1 ? sc->ep : 1;
}

/* Name of a training FLOPs model. */
const char *engine_flops_model_name(enum engine_flops_model f) {
    return (unsigned)f < ENGINE_FLOPS_MODEL_COUNT ? flops_model_names[f] : "?";
}

/* Parse a training FLOPs model name. */
int engine_flops_model_parse(const char *s, enum engine_flops_model *out) {
    int i = table_index(flops_model_names, ENGINE_FLOPS_MODEL_COUNT, s);
    if (i < 0)
        return -1;
    *out = (enum engine_flops_model)i;
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
    sc->ep = 1;
    sc->recompute_method = ENGINE_RECOMPUTE_UNIFORM;
    sc->mode = ENGINE_MODE_INFER;
    sc->batch = 1;
    sc->context = 4096;
    sc->recompute = ENGINE_RECOMPUTE_SELECTIVE;
    sc->recipe = ENGINE_RECIPE_ADAM_MIXED;
    sc->lora_rank = 16;
    sc->mfu = 0; /* predicted (engine.h); papers: Llama 3.1 405B 38-43% (Llama 3, Table 4) */
    sc->flops_model = ENGINE_FLOPS_6N_ATTENTION;
    sc->reserve_bytes = 1e9;           /* CUDA context and allocator slack */
    sc->inter_node_bytes_per_s = 50e9; /* 400 Gb/s InfiniBand NDR per GPU */
    sc->allreduce_latency_s = 5e-6;    /* small-message all-reduce over NVLink */
    sc->bw_efficiency = 1.0;
    sc->flops_efficiency = 1.0;
    sc->serving.runtime = ENGINE_RUNTIME_PLAIN;
    sc->serving.gpu_memory_utilization = 0.9; /* vLLM's default */
    sc->serving.block_size = 16;              /* vLLM's default on CUDA */
    sc->serving.flash_attention = -1;
    sc->serving.fit = true; /* llama.cpp's --fit is on by default */
}

/* True when x is a finite positive number. */
static bool pos(double x) {
    return isfinite(x) && x > 0;
}

/* Expert parallelism as Megatron-LM lays it out (EP inside DP, the expert
 * tensor-parallel size equal to t): ep > 1 needs routed experts, in a
 * training mode, and must divide both the data-parallel degree and the
 * experts of each layer. */
static uint32_t validate_ep(const struct engine_scenario *sc) {
    uint32_t ep = engine_ep(sc);
    if (ep == 1)
        return 0;
    const struct engine_model *m = &sc->model;
    if (sc->mode == ENGINE_MODE_INFER || !m->has_arch || m->experts == 0 ||
        m->experts % ep != 0 || (sc->dp && sc->dp % ep != 0))
        return ENGINE_INVALID_EP;
    return 0;
}

/* Check a scenario; returns the engine_invalid bits. */
static uint32_t validate(const struct engine_scenario *sc, const struct engine_shape *s) {
    uint32_t bad = 0;
    const struct engine_model *m = &sc->model;
    if (!pos(s->params_total) || m->layers == 0 || m->hidden == 0 || m->heads == 0 ||
        (m->has_arch && m->vocab == 0) ||
        (m->file_bytes && (m->layers > ENGINE_FILE_LAYERS_MAX || !(m->file_params >= 0) ||
                           !isfinite(m->file_params))))
        bad |= ENGINE_INVALID_SIZE;
    if (sc->gpus == 0 || sc->batch == 0 || sc->context == 0 || sc->tp == 0 || sc->pp == 0 ||
        sc->dp == 0 || sc->micro_batches == 0 || sc->interleave == 0 ||
        !isfinite(sc->reserve_bytes) || sc->reserve_bytes < 0 || sc->training_tokens < 0 ||
        !isfinite(sc->training_tokens) || sc->price_per_hour < 0 || !isfinite(sc->price_per_hour) ||
        sc->throughput_tokens_per_s < 0 || !isfinite(sc->throughput_tokens_per_s))
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
        sc->flops_efficiency > 1 || !isfinite(sc->mfu) || sc->mfu < 0 || sc->mfu > 1 ||
        (unsigned)sc->flops_model >= ENGINE_FLOPS_MODEL_COUNT)
        bad |= ENGINE_INVALID_EFFICIENCY;
    if (sc->measured_bytes_per_s < 0 || sc->measured_flop_per_s < 0 ||
        !isfinite(sc->measured_bytes_per_s) || !isfinite(sc->measured_flop_per_s))
        bad |= ENGINE_INVALID_GPU;
    if (sc->mode == ENGINE_MODE_INFER && sc->prompt > sc->context)
        bad |= ENGINE_INVALID_PROMPT;
    if (sc->mode != ENGINE_MODE_INFER && sc->global_batch &&
        (sc->batch == 0 || sc->dp == 0 ||
         sc->global_batch % ((uint64_t)sc->batch * sc->dp) != 0))
        bad |= ENGINE_INVALID_BATCH;
    bad |= validate_ep(sc);
    if ((unsigned)sc->recompute_method >= ENGINE_RECOMPUTE_METHOD_COUNT ||
        (unsigned)sc->recompute > ENGINE_RECOMPUTE_FULL ||
        (m->layers && sc->recompute_num_layers > m->layers))
        bad |= ENGINE_INVALID_RECOMPUTE;
    const struct engine_serving *v = &sc->serving;
    double util = v->gpu_memory_utilization;
    bool given = v->gpu_layers_given;
    if ((unsigned)v->runtime >= ENGINE_RUNTIME_COUNT || !(util > 0 && util <= 1) ||
        v->block_size == 0 || (given && (v->gpu_layers < 0 || (m->layers && (uint32_t)v->gpu_layers > m->layers))) ||
        (m->layers && v->cpu_moe_layers > m->layers) || v->host_bytes_per_s < 0 ||
        !isfinite(v->host_bytes_per_s) ||
        (given && sc->pp > 1 && (uint32_t)v->gpu_layers < sc->pp))
        bad |= ENGINE_INVALID_SERVING;
    bad |= engine_zero_validate(sc);
    return bad;
}

/* Working values of one estimate, shared by the helpers below. */
struct ctx {
    const struct engine_scenario *sc;
    struct engine_shape s;
    double t, p, d, b, ctx, L;
    bool training, lora;
    double lps;         /* GPU layers per stage (ceil) */
    double bits_w;      /* bits per weight of the (frozen) weights */
    double bits_e;      /* bits of the embedding and head (16 with --keep-embeddings-16bit) */
    double bytes_kv;    /* bytes per KV element */
    double kv_frac_ctx; /* average stored context per layer (sliding windows) */
    double kv_tokens;   /* KV cells per layer of the whole batch, as the runtime allocates */
    double gpn;         /* GPUs per node */
    enum engine_runtime rt;
    double Lg;          /* transformer layers on the GPUs: the last Lg of the L */
    double first_gpu;   /* index of the first layer on a GPU: L - Lg */
    double cpu_moe;     /* layers whose routed experts stay in host RAM */
    bool embed_gpu;     /* the token embedding is on stage 0's GPU */
    bool head_gpu;      /* the output head is on the last stage's GPU */
    bool file;          /* inference weights are a model file's exact bytes */
    double expert_bpp;  /* file: bytes per routed-expert parameter */
    double expert_layer_bytes; /* file: routed-expert bytes of one MoE layer */
    double ep;          /* expert-parallel degree (training; 1 = none) */
};

/* Dense and MoE layers among the layers [first, first + n). */
static void layer_split(const struct ctx *c, double first, double n, double *dense, double *moe) {
    if (n < 0)
        n = 0;
    double dn = fmax(0, fmin(first + n, c->s.dense_layers) - first);
    if (dn > n)
        dn = n;
    *dense = dn;
    *moe = n - dn;
}

/* The layers [first, first + n) of GPU stage i. */
static void stage_range(const struct ctx *c, double i, double *first, double *n) {
    double f = i * c->lps;
    double k = fmin(c->lps, c->Lg - f);
    *first = c->first_gpu + f;
    *n = k > 0 ? k : 0;
}

/* Layers of GPU stage i: dense and MoE counts. */
static void stage_layers(const struct ctx *c, double i, double *dense, double *moe) {
    double first, n;
    stage_range(c, i, &first, &n);
    layer_split(c, first, n, dense, moe);
}

/* Layers among [first, first + n) whose experts --n-cpu-moe keeps in host RAM. */
static double cpu_moe_in(const struct ctx *c, double first, double n) {
    if (!c->s.moe || c->cpu_moe <= 0)
        return 0;
    double dn, mn;
    layer_split(c, first, n, &dn, &mn);
    double moe_first = first + dn; /* MoE layers follow the dense ones */
    return fmax(0, fmin(moe_first + mn, c->cpu_moe) - moe_first);
}

/* Parameters of the embedding and head held by GPU stage i. */
static double stage_embed_params(const struct ctx *c, double i) {
    const struct engine_model *m = &c->sc->model;
    if (!m->has_arch)
        return 0;
    double p = 0;
    if (i == 0 && c->embed_gpu)
        p += c->s.params_embed_in;
    if (i == c->p - 1 && c->head_gpu) {
        p += c->s.params_head;
        /* A tied head needs its own copy of the embedding when the
         * embedding is elsewhere (another stage, or host RAM). */
        if (m->tied && (c->p > 1 || !c->embed_gpu))
            p += c->s.vocab * c->s.hidden;
    }
    return p;
}

/* Parameters held by pipeline stage i on its GPUs (before TP and ZeRO
 * division): its layers, less the experts kept in host RAM, plus the
 * embedding (stage 0) and head (last stage) where they live on the GPU. */
static double stage_params(const struct ctx *c, double i) {
    const struct engine_model *m = &c->sc->model;
    double first, n;
    stage_range(c, i, &first, &n);
    if (!m->has_arch)
        return c->s.params_total * n / c->L;
    double dn, mn;
    layer_split(c, first, n, &dn, &mn);
    double p = dn * c->s.params_dense_layer + mn * c->s.params_moe_layer;
    p -= cpu_moe_in(c, first, n) * c->s.params_experts_layer;
    return p + stage_embed_params(c, i);
}

/* Routed experts one decode step reads at batch b (tokens route
 * independently and uniformly: E (1 - (1 - k/E)^b) of E are touched). */
static double experts_touched_fraction(const struct ctx *c, double tokens) {
    const struct engine_model *m = &c->sc->model;
    double e = m->experts, k = m->active_experts;
    return 1.0 - pow(1.0 - k / e, tokens);
}

/* Routed-expert parameters of stage i's GPUs that a step of `tokens`
 * tokens does not read. */
static double stage_unread_expert_params(const struct ctx *c, double i, double tokens) {
    const struct engine_model *m = &c->sc->model;
    if (!c->s.moe || m->experts == 0)
        return 0;
    double first, n, dn, mn;
    stage_range(c, i, &first, &n);
    layer_split(c, first, n, &dn, &mn);
    mn -= cpu_moe_in(c, first, n);
    return mn * c->s.params_experts_layer * (1.0 - experts_touched_fraction(c, tokens));
}

/* A model file's bytes of the layers [first, first + n) (whole layers). */
static double file_layers_bytes(const struct ctx *c, double first, double n) {
    const struct engine_model *m = &c->sc->model;
    double sum = 0;
    for (double i = ceil(first); i < first + n && i < m->layers && i < ENGINE_FILE_LAYERS_MAX; i++)
        sum += m->file_layer_bytes[(uint32_t)i];
    return sum;
}

/* A model file's bytes of the embedding and head held by GPU stage i (as
 * stage_embed_params: a tied head elsewhere copies the embedding). */
static double stage_embed_file_bytes(const struct ctx *c, double i) {
    const struct engine_model *m = &c->sc->model;
    double b = 0;
    if (i == 0 && c->embed_gpu)
        b += m->file_embed_bytes;
    if (i == c->p - 1 && c->head_gpu) {
        b += m->file_head_bytes;
        if (m->tied && (c->p > 1 || !c->embed_gpu))
            b += m->file_embed_bytes;
    }
    return b;
}

/* Extra K/V projection parameters one GPU holds when t exceeds (or does not
 * divide) the KV heads: each rank keeps ceil(kv / t) whole heads, so
 * 2 h d (ceil(kv/t) - kv/t) per layer more than an even split (vLLM's
 * QKVParallelLinear replicates KV heads so: num_kv_head_replicas = t / kv).
 * In training the replicas are parameters of each rank like any other:
 * they carry gradients, a master copy and optimizer states. */
static double kv_proj_extra_per_layer_gpu(const struct ctx *c) {
    if (c->s.mla || c->t <= 1)
        return 0;
    double kv = c->s.kv_heads, per = ceil(kv / c->t) - kv / c->t;
    return per > 0 ? 2.0 * c->s.hidden * c->s.head_dim * per : 0;
}

/* Weight bytes on one GPU of stage i: the layers at the format's bits, the
 * embedding and head at bits_e, the replicated K/V projections. */
static double stage_weight_bytes_gpu(const struct ctx *c, double i, double unread) {
    double emb = stage_embed_params(c, i);
    double first, n;
    stage_range(c, i, &first, &n);
    if (c->file) {
        double b = file_layers_bytes(c, first, n) -
                   cpu_moe_in(c, first, n) * c->expert_layer_bytes - unread * c->expert_bpp;
        return (b + stage_embed_file_bytes(c, i)) / c->t +
               n * kv_proj_extra_per_layer_gpu(c) * c->bits_w / 8.0;
    }
    double body = stage_params(c, i) - emb - unread;
    return (body * c->bits_w + emb * c->bits_e) / 8.0 / c->t +
           n * kv_proj_extra_per_layer_gpu(c) * c->bits_w / 8.0;
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

/* Host RAM of one replica: the layers below first_gpu (weights and KV), the
 * routed experts --n-cpu-moe keeps there, the embedding and head where they
 * are not on a GPU, llama.cpp's host compute buffer. */
static double host_bytes(const struct ctx *c, double *weights_read_per_step, double *kv_read) {
    const struct engine_model *m = &c->sc->model;
    double hl = c->first_gpu, w = 0, read = 0, fbytes = 0, fread_b = 0;
    if (c->file) {
        double dn, mn;
        layer_split(c, 0, hl, &dn, &mn);
        double unread_frac = c->s.moe ? 1.0 - experts_touched_fraction(c, c->b) : 0;
        double moe_gpu = cpu_moe_in(c, c->first_gpu, c->Lg) * c->expert_layer_bytes;
        fbytes = file_layers_bytes(c, 0, hl) + moe_gpu;
        fread_b = fbytes - (mn * c->expert_layer_bytes + moe_gpu) * unread_frac;
    } else if (!m->has_arch) {
        w = c->s.params_total * hl / c->L;
        read = w;
    } else {
        double dn, mn;
        layer_split(c, 0, hl, &dn, &mn);
        double layers = dn * c->s.params_dense_layer + mn * c->s.params_moe_layer;
        double unread_frac = c->s.moe ? 1.0 - experts_touched_fraction(c, c->b) : 0;
        w = layers;
        read = layers - mn * c->s.params_experts_layer * unread_frac;
        /* Experts of GPU layers that --n-cpu-moe keeps in host RAM. */
        double moe_gpu = cpu_moe_in(c, c->first_gpu, c->Lg) * c->s.params_experts_layer;
        w += moe_gpu;
        read += moe_gpu * (1.0 - unread_frac);
    }
    double bytes = w * c->bits_w / 8.0, rbytes = read * c->bits_w / 8.0;
    if (c->file) {
        bytes = fbytes + (c->embed_gpu ? 0 : m->file_embed_bytes) +
                (c->head_gpu ? 0 : m->file_head_bytes);
        rbytes = fread_b + (c->head_gpu ? 0 : m->file_head_bytes);
    } else if (m->has_arch) {
        double emb = 0, head = 0;
        if (!c->embed_gpu)
            emb = c->s.params_embed_in;
        if (!c->head_gpu)
            head = c->s.params_head;
        bytes += (emb + head) * c->bits_e / 8.0;
        rbytes += head * c->bits_e / 8.0; /* the head is read whole; the embedding a row */
    }
    double kv = hl * c->kv_tokens * c->s.kv_elems_per_token_layer * c->bytes_kv;
    if (weights_read_per_step)
        *weights_read_per_step = rbytes;
    if (kv_read)
        *kv_read = kv;
    double buf = 0;
    if (c->rt == ENGINE_RUNTIME_LLAMACPP || c->rt == ENGINE_RUNTIME_OLLAMA)
        buf = engine_llamacpp_host_buffer(&c->s, engine_runtime_ubatch(c->sc));
    return bytes + kv + buf;
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
static double act_layer_at(const struct ctx *c, enum engine_recompute level) {
    double s = c->ctx, b = c->b, h = c->s.hidden, a = c->s.heads, t = c->t;
    double r = c->s.mla ? 1.0 : c->s.kv_heads / c->s.heads;
    double f = c->s.mlp_width;
    double split = 4.0 + (c->s.gated ? 6.0 : 4.0) * f / h;
    /* K and V: 4 r / t, or 4 ceil(kv / t) / a where t exceeds (or does not
     * divide) the KV heads and each rank computes whole replicated heads. */
    double kv_gpu = c->s.mla ? 4.0 * r / t : 4.0 * ceil(c->s.kv_heads / t) / a;
    double repl = 10.0;
    double score = 5.0 * a * s / h; /* softmax, its dropout mask and output */
    bool sp = c->sc->sequence_parallel;
    switch (level) {
    case ENGINE_RECOMPUTE_FULL:
        return 2.0 * s * b * h / (sp ? t : 1.0);
    case ENGINE_RECOMPUTE_SELECTIVE:
        score = 0; /* attention scores recomputed (flash attention) */
        break;
    case ENGINE_RECOMPUTE_NONE:
        break;
    }
    return s * b * h * ((sp ? repl / t : repl) + split / t + kv_gpu + score / t);
}

/* Activation bytes of one layer at the scenario's recompute level. */
static double act_per_layer(const struct ctx *c) {
    return act_layer_at(c, c->sc->recompute);
}

/* Activations of one layer with its attention scores recomputed: the
 * working set of a recomputed layer under full recompute. */
static double act_layer_working(const struct ctx *c) {
    return act_layer_at(c, ENGINE_RECOMPUTE_SELECTIVE);
}

/* ---- training: pipeline in-flight activations, recompute methods -------- */

/* Micro-batches' worth of the stage's layers GPU stage i holds at the peak
 * of the schedule. 1F1B: min(m, p - i), stage i runs p - i forwards before
 * its first backward (Narayanan et al. 2021 §2.2). Interleaved with v model
 * chunks of 1/v of the stage's layers each: Megatron-LM's schedule warms up
 * (v - 1) p + 2 (p - i - 1) chunks and holds one more, at most the m v of a
 * step; on the first stage p v + p - 1 chunks = p (1 + (p - 1) / (p v))
 * micro-batches, the factor of Korthikanti et al. 2022 §4.2.3. */
static double inflight_microbatches(const struct ctx *c, double i) {
    double m = c->sc->micro_batches, v = c->sc->interleave, p = c->p;
    if (v <= 1 || p <= 1)
        return fmin(m, p - i);
    return fmin(m * v, (v - 1.0) * p + 2.0 * (p - i - 1.0) + 1.0) / v;
}

/* Layers per checkpointed group of full recompute (uniform), or layers
 * recomputed per stage (block), of a stage of n layers. */
static double recompute_layers(const struct ctx *c, double n) {
    double k = c->sc->recompute_num_layers;
    if (c->sc->recompute_method == ENGINE_RECOMPUTE_BLOCK)
        return k > 0 ? fmin(k, n) : n;
    return k > 1 ? k : 1;
}

/* Training activations of GPU stage i with `layers` layers: what one
 * micro-batch leaves stored, times the micro-batches in flight, plus the
 * working set of a recompute and the logits (Korthikanti et al. 2022 Table
 * 2: full recompute keeps 2 s b h per checkpoint). Full recompute, uniform
 * with N layers a group (Megatron-LM --recompute-method uniform
 * --recompute-num-layers N): ceil(layers / N) checkpoints, and N layers
 * re-run at once; block: the first N layers of the stage keep 2 s b h, the
 * others their whole activations (no recompute), one layer re-run at once. */
static void train_activations(const struct ctx *c, double i, double layers,
                              struct engine_memory *mem, struct engine_estimate *est) {
    const struct engine_scenario *sc = c->sc;
    double inflight = inflight_microbatches(c, i);
    double stored = layers * act_per_layer(c), working = 0;
    if (sc->recompute == ENGINE_RECOMPUTE_FULL) {
        double ckpt = act_layer_at(c, ENGINE_RECOMPUTE_FULL);
        double k = recompute_layers(c, layers);
        if (sc->recompute_method == ENGINE_RECOMPUTE_BLOCK) {
            stored = k * ckpt + (layers - k) * act_layer_at(c, ENGINE_RECOMPUTE_NONE);
            working = k > 0 ? act_layer_working(c) : 0;
        } else {
            stored = ceil(layers / k) * ckpt;
            working = fmax(1.0, fmin(k, layers)) * act_layer_working(c);
        }
    }
    double logits = (i == c->p - 1) ? 4.0 * c->ctx * c->b * c->s.vocab / c->t : 0;
    mem->activations = stored * inflight + working + logits;
    est->act_per_layer_bytes = layers > 0 ? stored / layers : act_per_layer(c);
    est->act_layers_held = layers * inflight;
    est->act_logits_bytes = logits;
}

/* ---- training: expert parallelism, Adafactor's factored states ----------- */

/* Routed-expert parameters of GPU stage i (all its MoE layers, undivided). */
static double stage_expert_params(const struct ctx *c, double i) {
    if (!c->s.moe)
        return 0;
    double dn, mn;
    stage_layers(c, i, &dn, &mn);
    return mn * c->s.params_experts_layer;
}

/* Parameters one GPU of stage i holds whose states shard over the whole
 * data-parallel group: the stage's over t, plus the K/V projections each
 * TP rank replicates where t exceeds the KV heads; under expert
 * parallelism the routed experts are left to ep_expert_states. */
static double stage_params_gpu(const struct ctx *c, double i) {
    double p = stage_params(c, i);
    if (c->ep > 1)
        p -= stage_expert_params(c, i);
    double dn, mn;
    stage_layers(c, i, &dn, &mn);
    return p / c->t + (dn + mn) * kv_proj_extra_per_layer_gpu(c);
}

/* The routed experts of stage i under expert parallelism, as Megatron-LM's
 * theoretical_memory_usage.py counts them: each GPU holds experts /
 * (etp * ep) with the expert tensor-parallel size etp = t (its default),
 * and ZeRO or the distributed optimizer shards their states over the
 * expert data-parallel group of G / (etp * ep * p) = d / ep ranks (6 + 12 /
 * (d / ep) bytes with its recipe, adam-mixed-fp32-grads at ZeRO-1). */
static void ep_expert_states(const struct ctx *c, double i, struct engine_memory *mem) {
    if (c->ep <= 1)
        return;
    const struct engine_scenario *sc = c->sc;
    const struct engine_recipe_info *r = &recipes[sc->recipe];
    double p = stage_expert_params(c, i) / (c->t * c->ep);
    double z = sc->zero, de = c->d / c->ep;
    if (sc->mode == ENGINE_MODE_TRAIN) {
        /* The experts' states by the memory convention and offload
         * (engine/zero.c), partitioned over their d / ep replicas. */
        struct engine_scenario se = *sc;
        se.dp = (uint32_t)de;
        struct engine_memory em = {0};
        engine_zero_states_of(&se, r, p, 0, &em);
        mem->weights += em.weights;
        mem->gradients += em.gradients;
        mem->master_weights += em.master_weights;
        mem->optimizer += em.optimizer;
        mem->host += em.host;
        mem->nvme += em.nvme;
    } else {
        mem->weights += p * c->bits_w / 8.0 / (z >= 3 ? de : 1); /* frozen (LoRA) */
    }
}

/* The sum of d_in + d_out over the matrices LoRA adapts in one layer (q,
 * k, v, o and the MLP's); their count into *n when n is not NULL. */
static double lora_dims_per_layer(const struct ctx *c, double *n) {
    double h = c->s.hidden, qd = c->s.heads * c->s.qk_dim, kvd = c->s.kv_heads * c->s.head_dim;
    double f = c->s.ffn ? c->s.ffn : 4 * h, nm = c->sc->model.gated ? 3 : 2;
    if (n)
        *n = 4 + nm;
    return (h + qd) + 2 * (h + kvd) + (qd + h) + nm * (h + f);
}

/* Adafactor's factored second moment of one weight matrix of r x c
 * parameters: a row and a column vector, r + c floats instead of r c. */
static double factored(double rows, double cols) {
    return rows + cols;
}

/* Factored-state elements of one layer (MoE or dense), split into what is
 * not a routed expert and the routed experts: q, k, v and o as matrices,
 * the MLP's two or three, each expert's and the router; every other
 * parameter of the layer (norms, biases) is a vector kept whole. MLA's
 * projections count as their GQA equivalents (a few floats apart). */
static void factored_layer(const struct ctx *c, bool moe, double *other, double *experts) {
    const struct engine_shape *s = &c->s;
    double h = s->hidden, qd = s->heads * s->qk_dim, kvd = s->kv_heads * s->head_dim;
    double od = s->heads * s->v_dim, nm = s->gated ? 3.0 : 2.0;
    double mats = factored(qd, h) + 2.0 * factored(kvd, h) + factored(h, od);
    double mat_params = qd * h + 2.0 * kvd * h + od * h;
    double layer = moe ? s->params_moe_layer : s->params_dense_layer;
    *experts = 0;
    if (moe) {
        const struct engine_model *m = &c->sc->model;
        double fe = m->moe_ffn ? m->moe_ffn : m->ffn, e = m->experts, sh = m->shared_experts;
        *experts = e * nm * factored(fe, h);
        mats += sh * nm * factored(fe, h) + factored(e, h);
        mat_params += (e + sh) * nm * fe * h + e * h;
    } else {
        mats += nm * factored(s->ffn, h);
        mat_params += nm * s->ffn * h;
    }
    *other = mats + fmax(0.0, layer - mat_params);
}

/* Add Adafactor's factored FP32 second moment of GPU stage i to the
 * optimizer states (Shazeer and Stern 2018 §3; Hugging Face's Adafactor
 * factors every tensor of two or more dimensions, keeps vectors whole).
 * Per GPU the factors of a sharded matrix are taken as 1/t of the whole
 * (a rank's shard of r/t x c has r/t + c: a few floats more); ZeRO stage
 * 1 and up divides them by d, the experts' by d / ep. */
static void adafactor_states(const struct ctx *c, double i, struct engine_memory *mem) {
    const struct engine_scenario *sc = c->sc;
    if (!recipes[sc->recipe].factored)
        return;
    double dn, mn, o_d, e_d, o_m, e_m;
    stage_layers(c, i, &dn, &mn);
    if (c->lora) {
        /* Adapters A (r x d_in) and B (d_out x r): r + d_in and d_out + r. */
        double nmat, dims = lora_dims_per_layer(c, &nmat);
        double per = dims + 2.0 * sc->lora_rank * nmat;
        mem->optimizer += 4.0 * (dn + mn) * per / c->t / (sc->zero >= 1 ? c->d : 1);
        return;
    }
    factored_layer(c, false, &o_d, &e_d);
    factored_layer(c, c->s.moe, &o_m, &e_m);
    double other = dn * o_d + mn * o_m, experts = mn * e_m;
    double emb = stage_embed_params(c, i), h = c->s.hidden;
    if (emb > 0) {
        /* Embedding and head matrices V x h, their norms and positions. */
        double n_mat = 0, rest = emb;
        if (i == 0 && c->embed_gpu) {
            n_mat += 1;
            rest -= c->s.vocab * h;
        }
        if (i == c->p - 1 && c->head_gpu && (!c->sc->model.tied || c->p > 1)) {
            n_mat += 1;
            rest -= c->s.vocab * h;
        }
        other += n_mat * factored(c->s.vocab, h) + fmax(0.0, rest);
    }
    double z = sc->zero, de = c->ep > 1 ? c->d / c->ep : c->d;
    double oe = c->ep > 1 ? 0 : experts; /* experts with the rest without EP */
    double bytes = 4.0 * (other + oe) / c->t / (z >= 1 ? c->d : 1);
    if (c->ep > 1)
        bytes += 4.0 * experts / (c->t * c->ep) / (z >= 1 ? de : 1);
    /* --offload moves the optimizer states off the GPU (engine/zero.c). */
    if (sc->mode == ENGINE_MODE_TRAIN && sc->offload == ENGINE_OFFLOAD_CPU)
        mem->host += bytes;
    else if (sc->mode == ENGINE_MODE_TRAIN && sc->offload == ENGINE_OFFLOAD_NVME)
        mem->nvme += bytes;
    else
        mem->optimizer += bytes;
}

/* Weight and KV bytes of one layer on one GPU (Ollama's layer buffer). */
static double layer_bytes_gpu(const struct ctx *c) {
    double p = c->sc->model.has_arch ? c->s.params_dense_layer : c->s.params_total / c->L;
    if (c->s.moe && c->s.dense_layers < c->L)
        p = c->s.params_moe_layer;
    return p * c->bits_w / 8.0 / c->t + kv_proj_extra_per_layer_gpu(c) * c->bits_w / 8.0 +
           c->kv_tokens * kv_bytes_token_layer_gpu(c);
}

/* KV, activations, the runtime's buffers and reserve of GPU stage i in
 * inference (engine/runtime.c has the runtimes' figures and sources). */
static void inference_memory(const struct ctx *c, double i, double layers,
                             struct engine_memory *mem, struct engine_estimate *est) {
    const struct engine_scenario *sc = c->sc;
    bool last = i == c->p - 1;
    mem->kv_cache = layers * c->kv_tokens * kv_bytes_token_layer_gpu(c);
    switch (c->rt) {
    case ENGINE_RUNTIME_PLAIN:
    case ENGINE_RUNTIME_COUNT:
        /* One decode step's logits in FP32 for the batch. */
        mem->activations = last ? 4.0 * c->b * c->s.vocab / c->t : 0;
        break;
    case ENGINE_RUNTIME_VLLM: {
        double tok = engine_vllm_max_num_batched_tokens(sc);
        double req = fmin(engine_vllm_max_num_seqs(sc), tok);
        double peak = engine_vllm_activation_peak(&c->s, c->t, tok, req, last);
        est->serving.activation_peak_bytes = peak;
        est->serving.non_torch_bytes = sc->reserve_bytes;
        mem->overhead = peak + sc->reserve_bytes;
        /* What gpu_memory_utilization leaves to others (and CUDA graphs). */
        mem->reserve = sc->gpu.memory_bytes * (1.0 - sc->serving.gpu_memory_utilization);
        break;
    }
    case ENGINE_RUNTIME_LLAMACPP: {
        double u = engine_runtime_ubatch(sc);
        mem->overhead = engine_llamacpp_compute_buffer(
            &c->s, c->t, u, c->kv_tokens, engine_runtime_flash_attention(sc), last && c->head_gpu);
        est->serving.compute_buffer_bytes = mem->overhead;
        break;
    }
    case ENGINE_RUNTIME_OLLAMA: {
        double u = engine_runtime_ubatch(sc);
        double graph = engine_ollama_graph(&c->s, c->t, fmin(c->kv_tokens, u), c->kv_tokens,
                                           c->Lg >= c->L && c->p == 1);
        est->serving.compute_buffer_bytes = graph;
        /* EstimateGPULayers: the graph, and one layer's worth as a buffer. */
        mem->overhead = graph + layer_bytes_gpu(c);
        break;
    }
    }
    est->serving.overhead_bytes = mem->overhead;
    est->act_logits_bytes = mem->activations;
}

/* The largest module's parameters of GPU stage i (whole, before TP): its
 * layers' largest matrix, the embedding on stage 0, the head (or the tied
 * copy of the embedding) on the last (engine/zero.c). */
static double stage_largest_layer(const struct ctx *c, double i) {
    const struct engine_model *m = &c->sc->model;
    double dn, mn;
    stage_layers(c, i, &dn, &mn);
    bool embed = i == 0 && c->embed_gpu;
    bool head = i == c->p - 1 && c->head_gpu && (!m->tied || c->p > 1 || !c->embed_gpu);
    return engine_largest_layer_of(m, &c->s, embed, head, dn, mn);
}

/* Memory of pipeline stage i on one GPU into *mem; returns the total. */
static double stage_memory(const struct ctx *c, double i, struct engine_memory *mem,
                           struct engine_estimate *est) {
    const struct engine_scenario *sc = c->sc;
    const struct engine_recipe_info *r = &recipes[sc->recipe];
    double params = stage_params_gpu(c, i);
    *mem = (struct engine_memory){0};
    mem->reserve = sc->reserve_bytes;
    double z = sc->zero, d = c->d;
    if (sc->mode == ENGINE_MODE_TRAIN) {
        double largest = stage_largest_layer(c, i);
        engine_zero_states_of(sc, r, params, largest / c->t, mem);
        est->largest_layer_params = largest;
    } else {
        mem->weights = c->training ? params * c->bits_w / 8.0 / (z >= 3 ? d : 1)
                                   : stage_weight_bytes_gpu(c, i, 0);
    }
    if (c->lora) {
        /* Adapters r (d_in + d_out) on q, k, v, o and the MLP matrices. */
        double per_layer = lora_dims_per_layer(c, NULL);
        double dn, mn;
        stage_layers(c, i, &dn, &mn);
        double trainable = sc->lora_rank * per_layer * (dn + mn) / c->t;
        est->params_trainable = sc->lora_rank * per_layer * c->L;
        mem->weights += trainable * r->weights;
        mem->gradients = trainable * r->grads / (z >= 2 ? d : 1);
        mem->master_weights = trainable * r->master / (z >= 1 ? d : 1);
        mem->optimizer = trainable * r->optimizer / (z >= 1 ? d : 1);
    }
    if (c->training) {
        ep_expert_states(c, i, mem);
        adafactor_states(c, i, mem);
    }
    double dn, mn;
    stage_layers(c, i, &dn, &mn);
    double layers = dn + mn;
    if (c->training) {
        train_activations(c, i, layers, mem, est);
    } else {
        inference_memory(c, i, layers, mem, est);
    }
    mem->total = mem->weights + mem->kv_cache + mem->activations + mem->gradients +
                 mem->master_weights + mem->optimizer + mem->reserve + mem->overhead +
                 mem->zero3_working;
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
        &e->memory.overhead,
        &e->memory.host,
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
        &e->train_hw_flops_per_token,
        &e->train_pp_comm_seconds,
        &e->train_kernel_efficiency,
        &e->train_mfu,
        &e->train_hfu,
        &e->train_tokens_per_step,
        &e->train_global_batch,
        &e->train_micro_batches,
        &e->train_tokens,
        &e->train_compute_seconds,
        &e->train_step_seconds,
        &e->train_bubble_fraction,
        &e->train_tp_comm_seconds,
        &e->train_dp_comm_seconds,
        &e->train_all_to_all_seconds,
        &e->train_days,
        &e->train_gpu_hours,
        &e->train_cost_usd,
        &e->train_cost_spot_usd,
        &e->train_energy_joules,
        &e->train_energy_joules_per_token,
        &e->decode_joules_per_token,
        &e->systems,
        &e->train_system_energy_joules,
        &e->decode_system_joules_per_token,
        &e->largest_layer_params,
        &e->train_offload_bytes_per_step,
        &e->train_offload_seconds,
        &e->host_link_bytes_per_s,
        &e->host_bytes_per_node,
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        *fields[i] = NAN;
    double *v = (double *)&e->serving; /* a struct of doubles only */
    for (size_t i = 0; i < sizeof e->serving / sizeof(double); i++)
        v[i] = NAN;
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

/* One-way bandwidth of a collective over `ranks` GPUs: half the vendor's
 * both-ways NVLink figure inside a node (as in training), the network's
 * per-GPU figure across nodes. */
static double link_bw(const struct ctx *c, double ranks) {
    const struct engine_scenario *sc = c->sc;
    double intra = pos(sc->intra_node_bytes_per_s) ? sc->intra_node_bytes_per_s / 2.0
                   : pos(sc->gpu.link_bytes_per_s) ? sc->gpu.link_bytes_per_s / 2.0
                                                   : sc->inter_node_bytes_per_s;
    return ranks <= c->gpn ? intra : sc->inter_node_bytes_per_s;
}

/* Sum over k = 0..n-1 of max(a0 + a1 k, b0 + b1 k): two lines cross at most
 * once, so the sum splits into two arithmetic series. */
static double sum_max_lines(double a0, double a1, double b0, double b1, double n) {
    if (n <= 0)
        return 0;
    /* Series of x0 + x1 k for k in [k0, k1). */
#define SERIES(x0, x1, k0, k1) ((k1) > (k0) ? ((k1) - (k0)) * (x0) + (x1) * ((k1) * ((k1) - 1) - (k0) * ((k0) - 1)) / 2.0 : 0)
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

/* FLOP-bearing parameters of the fullest stage per token, on its GPUs and in
 * host RAM (2 FLOP each; the whole model at p = 1, as 2 N_active). */
static double stage_active_params(const struct ctx *c, double stage) {
    if (!c->sc->model.has_arch)
        return c->s.params_active * fmin(c->lps, c->L) / c->L;
    double first, n, dn, mn;
    stage_range(c, stage, &first, &n);
    layer_split(c, first, n, &dn, &mn);
    double moe_a = c->s.moe ? c->s.params_moe_layer_active : c->s.params_moe_layer;
    double p = dn * c->s.params_dense_layer + mn * moe_a;
    double dh, mh;
    layer_split(c, 0, c->first_gpu, &dh, &mh); /* host layers run on the first stage */
    if (stage == 0)
        p += dh * c->s.params_dense_layer + mh * moe_a + c->s.params_embed_in;
    if (stage == c->p - 1)
        p += c->s.params_head;
    return p;
}

/* Parts of one prefill (or mixed) step, per GPU of the fullest stage. */
struct step_lines {
    double f0, f1; /* compute seconds of chunk k: f0 + f1 k */
    double b0, b1; /* byte seconds of chunk k: b0 + b1 k */
    double fixed;  /* host bytes, TP all-reduces: seconds every step */
    double handoff; /* PP hand-off of one step's activations */
};

/* The lines of steps of `chunk` prompt tokens (chunk k starts after k
 * chunks), with `others` sequences decoding one token each at context octx. */
static struct step_lines step_lines(const struct ctx *c, double stage, double chunk,
                                    double others, double octx) {
    const struct engine_scenario *sc = c->sc;
    struct step_lines l = {0};
    double first, n;
    stage_range(c, stage, &first, &n);
    double lst = n + (stage == 0 ? c->first_gpu : 0); /* layers this stage computes */
    double pk, bw;
    /* Rates as the decode uses them (data sheet or measured), with the
     * efficiency assumptions. */
    pk = pos(sc->measured_flop_per_s) ? sc->measured_flop_per_s : 0;
    bw = pos(sc->measured_bytes_per_s) ? sc->measured_bytes_per_s : sc->gpu.bandwidth_bytes_per_s;
    if (!(pk > 0)) {
        enum engine_compute col = engine_compute_column(sc);
        pk = sc->gpu.flops[col];
        if (!pos(pk))
            pk = pos(sc->gpu.flops[ENGINE_COMPUTE_FP16]) ? sc->gpu.flops[ENGINE_COMPUTE_FP16]
                                                         : sc->gpu.flops[ENGINE_COMPUTE_BF16];
    }
    pk *= sc->flops_efficiency;
    bw *= sc->bw_efficiency;
    double attn = c->s.heads * (c->s.qk_dim + c->s.v_dim); /* per layer, per (query, key) */
    double act = stage_active_params(c, stage);
    double tokens = chunk + others;
    /* Compute: 2 N per token, causal attention (s + c)^2 - s^2 = c^2 + 2 k c^2
     * over the chunk, 2 a (d_qk + d_v) octx per decoding sequence. */
    l.f0 = (2.0 * act * tokens + lst * attn * (chunk * chunk + 2.0 * octx * others)) / c->t / pk;
    l.f1 = lst * attn * 2.0 * chunk * chunk / c->t / pk;
    /* Bytes: the stage's weights (the experts these tokens touch), the KV
     * read (k chunks before) and written (this chunk), the others' KV. */
    double unread = stage_unread_expert_params(c, stage, tokens);
    double kvb = kv_bytes_token_layer_gpu(c);
    l.b0 = (stage_weight_bytes_gpu(c, stage, unread) + n * kvb * (chunk + others * octx)) / bw;
    l.b1 = n * kvb * chunk / bw;
    /* Layers in host RAM: their weights read at host bandwidth each step. */
    if (stage == 0 && c->first_gpu > 0) {
        double hw = 0;
        host_bytes(c, &hw, NULL);
        l.fixed += hw / engine_host_bandwidth(sc);
    }
    /* TP: 2 all-reduces per layer of the step's 16-bit activations. */
    double act_bytes = tokens * c->s.hidden * 2.0, lat = sc->allreduce_latency_s;
    if (c->t > 1)
        l.fixed += 2.0 * n * allreduce_s(act_bytes, c->t, link_bw(c, c->t), lat);
    if (c->p > 1)
        l.handoff = act_bytes / link_bw(c, c->t * c->p) + lat;
    return l;
}

/* Seconds of one prompt of `prompt` tokens in steps of `chunk` prompt
 * tokens (the last step shorter), `others` sequences decoding alongside.
 * The p stages pipeline the steps (a proportionate flow shop: the sum of
 * the step times plus p - 1 times the longest step and its hand-off).
 * Fills the communication, compute-only and bytes-only parts and the steps. */
static double prefill_time(const struct ctx *c, double stage, double prompt, double chunk,
                           double others, double octx, double *comm, double *compute_only,
                           double *bytes_only, double *steps) {
    if (chunk < 1)
        chunk = 1;
    if (chunk > prompt)
        chunk = prompt;
    double n = floor(prompt / chunk), r = prompt - n * chunk;
    struct step_lines l = step_lines(c, stage, chunk, others, octx);
    double sum = sum_max_lines(l.f0, l.f1, l.b0, l.b1, n) + n * l.fixed;
    double longest = n > 0 ? fmax(l.f0 + l.f1 * (n - 1), l.b0 + l.b1 * (n - 1)) + l.fixed : 0;
    double fsum = n * l.f0 + l.f1 * n * (n - 1) / 2, bsum = n * l.b0 + l.b1 * n * (n - 1) / 2;
    double csum = n * l.fixed, hand = l.handoff;
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
    return sum + pipe;
}

/* The prefill step of the runtime: vLLM's token budget, llama.cpp's and
 * Ollama's ubatch, the whole prompt for plain. */
static double prefill_chunk(const struct ctx *c, double prompt) {
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

/* Decode and prefill ceilings (inference modes). */
/* The whole systems G GPUs take (--system), into e->systems; 0 without
 * a system (or without its power). */
static double system_count(const struct engine_scenario *sc, struct engine_estimate *e) {
    if (sc->system_gpus == 0 || !pos(sc->system_power_w) || sc->gpus == 0)
        return 0;
    e->systems = ceil((double)sc->gpus / sc->system_gpus);
    return e->systems;
}

static void estimate_decode(const struct ctx *c, double stage, struct engine_estimate *e) {
    const struct engine_scenario *sc = c->sc;
    struct engine_serving_estimate *v = &e->serving;
    double unread = stage_unread_expert_params(c, stage, c->b);
    double weights_read = stage_weight_bytes_gpu(c, stage, unread);
    double first, n;
    stage_range(c, stage, &first, &n);
    double kv_read = n * c->kv_frac_ctx * c->b * kv_bytes_token_layer_gpu(c);
    e->decode_bytes_per_step = weights_read + kv_read;
    double attn = 2.0 * c->L * c->ctx * c->s.heads * (c->s.qk_dim + c->s.v_dim);
    e->decode_flops_per_token = 2.0 * e->params_active + attn;
    /* Host RAM: what the step reads there (layers, experts, a head). */
    double host_w = 0, host_kv = 0;
    host_bytes(c, &host_w, &host_kv);
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
    e->prefill_seconds = prefill_time(c, stage, prompt, chunk, 0, c->ctx, &v->prefill_comm_s,
                                      &v->prefill_compute_s, &v->prefill_bytes_s,
                                      &v->prefill_chunks);
    double others = c->b - 1;
    double tchunk = c->rt == ENGINE_RUNTIME_PLAIN ? chunk : fmax(1, chunk - others);
    v->ttft_s = others > 0 ? prefill_time(c, stage, prompt, tchunk, others, c->ctx, NULL, NULL,
                                          NULL, NULL)
                           : e->prefill_seconds;
    v->tpot_s = 1.0 / e->decode_tokens_per_s_per_sequence;
    /* Energy per token at the ceiling, every GPU at its board power. */
    if (pos(sc->gpu.tdp_w))
        e->decode_joules_per_token = c->t * c->p * c->d * sc->gpu.tdp_w / e->decode_tokens_per_s;
    if (system_count(sc, e) > 0)
        e->decode_system_joules_per_token = e->systems * sc->system_power_w / e->decode_tokens_per_s;
}

/* Model and hardware FLOPs per trained token. Model FLOPs (MFU's
 * numerator): 6 N (4 N for LoRA: no weight gradients) plus, with the
 * attention model, the score and value products 2 L s a (d_qk + d_v)
 * forward and twice that backward, 6 L s a (d_qk + d_v) = 12 L h s for
 * d_qk = d_v = h/a (PaLM appendix B, Chowdhery et al. 2022; Narayanan et
 * al. 2021 eq. 3's 1 + s/6h). Hardware FLOPs (HFU's) add what recompute
 * runs again: the whole forward 2 N + 2 L s a (d_qk + d_v) under full
 * recompute, the attention forward under selective (Korthikanti et al.
 * 2022 §5). */
static double recompute_fraction(const struct ctx *c);
static void train_flops(const struct ctx *c, struct engine_estimate *e) {
    const struct engine_scenario *sc = c->sc;
    double n = e->params_active;
    double k = sc->mode == ENGINE_MODE_TRAIN ? 6.0 : 4.0;
    double attn_fwd = 0; /* per token, forward */
    if (sc->flops_model == ENGINE_FLOPS_6N_ATTENTION)
        attn_fwd = 2.0 * c->L * c->ctx * c->s.heads * (c->s.qk_dim + c->s.v_dim);
    e->train_flops_per_token = k * n + 3.0 * attn_fwd;
    double again = 0;
    if (sc->recompute == ENGINE_RECOMPUTE_FULL)
        again = (2.0 * n + attn_fwd) * recompute_fraction(c);
    else if (sc->recompute == ENGINE_RECOMPUTE_SELECTIVE)
        again = attn_fwd;
    e->train_hw_flops_per_token = e->train_flops_per_token + again;
}

/* The fraction of the layers full recompute re-runs: all of them under
 * the uniform method, N of a stage's layers under block (Megatron-LM
 * --recompute-method block --recompute-num-layers N). */
static double recompute_fraction(const struct ctx *c) {
    if (c->sc->recompute_method != ENGINE_RECOMPUTE_BLOCK || !(c->lps > 0))
        return 1.0;
    return recompute_layers(c, c->lps) / c->lps;
}

/* The expert-parallel all-to-alls of one step on GPU stage i: per MoE
 * layer and micro-batch, two forward (dispatch the tokens to their experts,
 * combine the results) and two backward, each GPU sending the (ep - 1) / ep
 * of its s b / t tokens x k experts x h x 2 bytes that leave it (nccl-tests'
 * all-to-all: bus bandwidth = algorithm bandwidth x (n - 1) / n), over
 * NVLink when the t x ep GPUs of an EP group (Megatron-LM's rank order
 * tp-cp-ep-dp-pp) share a node, else the network. */
static double ep_all_to_all_seconds(const struct ctx *c, double stage) {
    if (c->ep <= 1 || !c->s.moe)
        return 0;
    const struct engine_scenario *sc = c->sc;
    double dn, mn;
    stage_layers(c, stage, &dn, &mn);
    double k = sc->model.active_experts;
    double bytes = c->ctx * c->b / c->t * k * c->s.hidden * 2.0;
    double one = (c->ep - 1.0) / c->ep * bytes / link_bw(c, c->t * c->ep) + sc->allreduce_latency_s;
    return 4.0 * mn * sc->micro_batches * one;
}

/* Gradient bytes one GPU of stage i all-reduces over the d replicas, and
 * (under expert parallelism) its experts' over the d / ep expert
 * data-parallel ranks. */
static double ep_expert_dp_comm(const struct ctx *c, double stage, double bw, double lat) {
    if (c->ep <= 1)
        return 0;
    double bytes = stage_expert_params(c, stage) / (c->t * c->ep) * recipes[c->sc->recipe].grads;
    if (c->sc->mode != ENGINE_MODE_TRAIN)
        return 0; /* frozen experts: LoRA's adapters are dense */
    return allreduce_s(bytes, c->d / c->ep, bw, lat);
}

/* Micro-batches per replica of a training step (see engine.h). */
uint32_t engine_micro_batches(const struct engine_scenario *sc) {
    uint64_t per = (uint64_t)sc->batch * sc->dp;
    if (sc->mode != ENGINE_MODE_INFER && sc->global_batch && per && sc->global_batch % per == 0)
        return (uint32_t)(sc->global_batch / per);
    return sc->micro_batches;
}

/* The kernel efficiency of training (see engine.h). */
double engine_train_kernel_efficiency(const struct engine_scenario *sc) {
    return sc->flops_efficiency_given ? sc->flops_efficiency
                                      : ENGINE_DEFAULT_TRAIN_KERNEL_EFFICIENCY;
}

/* Training time, bubble, communication and MFU (training modes). */
static void estimate_training(const struct ctx *c, double stage, struct engine_estimate *e) {
    const struct engine_scenario *sc = c->sc;
    train_flops(c, e);
    e->train_micro_batches = sc->micro_batches;
    e->train_global_batch = (double)sc->batch * sc->micro_batches * c->d;
    e->train_tokens_per_step = e->train_global_batch * c->ctx;
    double g = c->t * c->p * c->d;
    double peak = e->peak_flop_per_s;
    double eff = engine_train_kernel_efficiency(sc);
    e->train_kernel_efficiency = eff;
    e->train_compute_seconds =
        e->train_hw_flops_per_token * e->train_tokens_per_step / (g * peak * eff);
    double m = sc->micro_batches, v = sc->interleave;
    e->train_bubble_fraction = (c->p - 1.0) / (v * m + c->p - 1.0);
    double intra = engine_allreduce_bandwidth(sc, false);
    /* TP: 2 all-reduces of s b h 16-bit activations per layer forward, 2 backward. */
    double act_bytes = c->ctx * c->b * c->s.hidden * 2.0;
    double lat = sc->allreduce_latency_s;
    double tp_bw = c->t <= c->gpn ? intra : sc->inter_node_bytes_per_s;
    e->train_tp_comm_seconds =
        c->t > 1 ? 4.0 * c->lps * m * allreduce_s(act_bytes, c->t, tp_bw, lat) : 0;
    /* PP: each of the v m + p - 1 slots of the schedule hands one
     * micro-batch's activations forward and their gradient backward; each
     * TP rank sends 1/t of them (Megatron's scatter/gather, Narayanan et al.
     * 2021 §4.1), across nodes when the stages do not share one. */
    e->train_pp_comm_seconds =
        c->p > 1 ? 2.0 * (v * m + c->p - 1.0) * (act_bytes / c->t / link_bw(c, c->t * c->p) + lat)
                 : 0;
    /* DP: one all-reduce of the gradients of the most loaded GPU per step. */
    double grad_bytes;
    if (sc->mode == ENGINE_MODE_TRAIN)
        grad_bytes = stage_params_gpu(c, stage) * recipes[sc->recipe].grads;
    else
        grad_bytes = e->params_trainable / (c->t * c->p) * recipes[sc->recipe].grads;
    double dp_bw = c->t * c->p * c->d <= c->gpn ? intra : sc->inter_node_bytes_per_s;
    double dp = allreduce_s(grad_bytes, c->d, dp_bw, lat);
    if (sc->zero >= 3)
        dp *= 1.5; /* ZeRO-3 adds a parameter all-gather (ZeRO §7.2.2: 1.5x traffic) */
    dp += ep_expert_dp_comm(c, stage, dp_bw, lat) * (sc->zero >= 3 ? 1.5 : 1.0);
    e->train_dp_comm_seconds = dp;
    e->train_all_to_all_seconds = ep_all_to_all_seconds(c, stage);
    /* Offload (engine/zero.c): this GPU's partition crosses its host link. */
    e->host_link_bytes_per_s = engine_host_link_bandwidth(sc);
    e->train_offload_bytes_per_step =
        sc->mode == ENGINE_MODE_TRAIN ? engine_offload_bytes(sc, recipes[sc->recipe].weights,
                                                   stage_params(c, stage) / c->t, m)
                                      : 0;
    e->train_offload_seconds = e->train_offload_bytes_per_step / e->host_link_bytes_per_s;
    e->host_bytes_per_node = e->memory.host * fmin(c->gpn, g);
    double model_flops = e->train_flops_per_token * e->train_tokens_per_step;
    if (pos(sc->throughput_tokens_per_s)) {
        /* A known throughput (seed 002): the step is its tokens at that
         * rate, the MFU what the rate implies. */
        e->train_step_seconds = e->train_tokens_per_step / sc->throughput_tokens_per_s;
        e->train_mfu = model_flops / (g * peak * e->train_step_seconds);
    } else if (pos(sc->mfu)) {
        /* MFU given: end to end, as papers report it; nothing is added. */
        e->train_mfu = sc->mfu;
        e->train_step_seconds = model_flops / (g * peak * sc->mfu);
    } else {
        /* Predicted: the kernels' time stretched by the pipeline bubble,
         * plus the TP all-reduces and PP hand-offs (on the critical path)
         * and whatever of the DP all-reduce the backward pass (2/3 of the
         * compute) cannot hide. */
        double compute = e->train_compute_seconds;
        e->train_step_seconds = compute / (1.0 - e->train_bubble_fraction) +
                                e->train_tp_comm_seconds + e->train_pp_comm_seconds +
                                e->train_all_to_all_seconds +
                                fmax(0.0, dp - compute * 2.0 / 3.0) + e->train_offload_seconds;
        e->train_mfu = model_flops / (g * peak * e->train_step_seconds);
    }
    e->train_hfu = e->train_mfu * e->train_hw_flops_per_token / e->train_flops_per_token;
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
    e->train_cost_spot_usd =
        pos(sc->gpu.spot_price_per_hour) ? e->train_gpu_hours * sc->gpu.spot_price_per_hour : NAN;
    /* Energy at board power (seed 003: watts and watt-hours answer
     * different questions): every GPU at its tdp the whole run. */
    if (pos(sc->gpu.tdp_w)) {
        e->train_energy_joules = e->train_gpu_hours * 3600.0 * sc->gpu.tdp_w;
        e->train_energy_joules_per_token = e->train_energy_joules / tokens;
    }
    /* At the systems' power: whole systems for the whole run (wall time). */
    if (system_count(sc, e) > 0)
        e->train_system_energy_joules = e->systems * sc->system_power_w * seconds;
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

/* The serving figures vLLM prints at start-up, from the fullest stage's
 * memory (kv_cache_utils.py): blocks of the available KV, the concurrency
 * at max_model_len, the longest max_model_len one request fits in. */
static void vllm_blocks(const struct ctx *c, double stage, struct engine_estimate *e) {
    const struct engine_scenario *sc = c->sc;
    struct engine_serving_estimate *v = &e->serving;
    double first, n;
    stage_range(c, stage, &first, &n);
    double bs = sc->serving.block_size;
    double page_layers = bs * kv_bytes_token_layer_gpu(c) * n; /* one block on every layer */
    v->available_kv_bytes = sc->gpu.memory_bytes * sc->serving.gpu_memory_utilization -
                            e->memory.weights - e->memory.overhead - e->memory.activations;
    v->kv_blocks = page_layers > 0 && v->available_kv_bytes > 0
                       ? floor(v->available_kv_bytes / page_layers)
                       : 0;
    v->kv_tokens = v->kv_blocks * bs;
    double mml = sc->serving.max_model_len ? sc->serving.max_model_len : sc->context;
    v->max_model_len = mml;
    double per_req = ceil(mml / bs);
    v->max_concurrency = v->kv_blocks / per_req;
    v->max_model_len_that_fits = v->kv_blocks >= per_req ? mml : v->kv_tokens;
    v->kv_blocks_needed = c->b * ceil(c->kv_frac_ctx / bs);
    v->max_num_batched_tokens = engine_vllm_max_num_batched_tokens(sc);
    v->max_num_seqs = engine_vllm_max_num_seqs(sc);
}

/* The estimate of a scenario whose GPU layers are settled. */
static void estimate_core(const struct engine_scenario *sc, struct engine_estimate *e) {
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
    const struct engine_model *m = &sc->model;
    c.t = sc->tp;
    c.p = sc->pp;
    c.d = sc->dp;
    c.b = sc->batch;
    c.ctx = sc->context;
    c.L = c.s.layers;
    c.training = sc->mode != ENGINE_MODE_INFER;
    c.lora = sc->mode == ENGINE_MODE_LORA || sc->mode == ENGINE_MODE_QLORA;
    c.rt = c.training ? ENGINE_RUNTIME_PLAIN : sc->serving.runtime;
    c.ep = c.training ? engine_ep(sc) : 1;
    /* Partial offload (inference): the last Lg layers on the GPUs, the rest
     * in host RAM; the output layer goes to the GPU with the first
     * offloaded layer and llama.cpp keeps the token embedding in host RAM
     * (llama-model.cpp), plain and vLLM keep it on stage 0 unless a layer
     * stays behind in host RAM. */
    c.Lg = c.L;
    if (!c.training && sc->serving.gpu_layers_given)
        c.Lg = fmin(c.L, sc->serving.gpu_layers);
    c.first_gpu = c.L - c.Lg;
    c.cpu_moe = c.training ? 0 : sc->serving.cpu_moe_layers;
    bool ggml = c.rt == ENGINE_RUNTIME_LLAMACPP || c.rt == ENGINE_RUNTIME_OLLAMA;
    c.head_gpu = c.training || c.Lg >= 1;
    c.embed_gpu = c.training || (!ggml && c.Lg >= c.L);
    c.lps = c.Lg > 0 ? ceil(c.Lg / c.p) : 0;
    c.gpn =
        sc->gpus_per_node ? sc->gpus_per_node : (sc->gpu.gpus_per_node ? sc->gpu.gpus_per_node : 1);
    c.bits_w = engine_format_bits(&sc->weight_format); /* QLoRA: the caller picks NF4 */
    c.bits_e = c.bits_w;
    if (!c.training && sc->serving.keep_embeddings_16bit && c.bits_w < 16)
        c.bits_e = 16;
    c.file = !c.training && m->file_bytes && m->has_arch;
    if (c.file) {
        /* The file's own bits: its layers' bytes over their parameters. */
        double lb = file_layers_bytes(&c, 0, c.L);
        c.bits_w = m->file_layer_params > 0 ? lb * 8.0 / m->file_layer_params : c.bits_w;
        c.bits_e = c.bits_w;
        double moe_layers = c.L - c.s.dense_layers;
        if (c.s.moe && m->file_expert_params > 0 && moe_layers > 0) {
            c.expert_bpp = m->file_expert_bytes / m->file_expert_params;
            c.expert_layer_bytes = m->file_expert_bytes / moe_layers;
        }
    }
    c.bytes_kv = engine_format_bits(&sc->kv_format) / 8.0;
    double win = m->sliding_window, sl = m->sliding_layers ? m->sliding_layers : m->layers;
    if (win > 0 && win < c.ctx)
        c.kv_frac_ctx = ((c.L - sl) * c.ctx + sl * win) / c.L;
    else
        c.kv_frac_ctx = c.ctx;
    /* The KV cells each runtime allocates per layer for the batch: vLLM
     * whole blocks, llama.cpp n_ctx padded to 256 per sequence. */
    c.kv_tokens = c.kv_frac_ctx * c.b;
    if (c.rt == ENGINE_RUNTIME_VLLM)
        c.kv_tokens = c.b * ceil(c.kv_frac_ctx / sc->serving.block_size) * sc->serving.block_size;
    else if (ggml)
        c.kv_tokens = c.b * ceil(c.kv_frac_ctx / 256.0) * 256.0;
    e->bits_per_weight =
        sc->mode == ENGINE_MODE_TRAIN ? recipes[sc->recipe].weights * 8.0 : c.bits_w;
    if (c.file && m->file_params > 0)
        e->bits_per_weight = (file_layers_bytes(&c, 0, c.L) + m->file_embed_bytes +
                              m->file_head_bytes) * 8.0 / m->file_params;
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
    if (!c.training)
        e->memory.host = host_bytes(&c, NULL, NULL);
    if (!c.training && c.first_gpu == 0 && c.cpu_moe == 0 && c.embed_gpu && !ggml)
        e->memory.host = 0;
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

    if (c.training) {
        estimate_training(&c, best_stage, e);
    } else {
        estimate_decode(&c, best_stage, e);
        struct engine_serving_estimate *v = &e->serving;
        v->gpu_layers = c.Lg;
        v->host_layers = c.first_gpu;
        if (isnan(v->overhead_bytes))
            v->overhead_bytes = e->memory.overhead;
        if (ggml)
            v->context_padded = ceil(c.kv_frac_ctx / 256.0) * 256.0;
        if (c.rt == ENGINE_RUNTIME_VLLM)
            vllm_blocks(&c, best_stage, e);
        if (m->has_arch && c.bits_e != c.bits_w)
            v->embed_16bit_bytes =
                (c.s.params_embed_in + c.s.params_head) * (c.bits_e - c.bits_w) / 8.0;
    }

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
    if (c.training && sc->zero > 0 && sc->dp == 1 && sc->offload == ENGINE_OFFLOAD_NONE)
        w |= ENGINE_WARN_ZERO_WITHOUT_DP;
    if (c.training && e->train_tp_comm_seconds + e->train_pp_comm_seconds +
                              e->train_dp_comm_seconds + e->train_all_to_all_seconds >
                          e->train_step_seconds)
        w |= ENGINE_WARN_COMM_BOUND;
    if (c.training && !isfinite(e->train_cost_usd))
        w |= ENGINE_WARN_NO_PRICE;
    if (pos(sc->measured_bytes_per_s) || pos(sc->measured_flop_per_s))
        w |= ENGINE_WARN_CALIBRATED;
    if (!c.training && c.s.moe && sc->batch > 1)
        w |= ENGINE_WARN_MOE_ROUTING;
    if (m->layers % sc->pp)
        w |= ENGINE_WARN_UNEVEN_STAGES;
    if (c.rt == ENGINE_RUNTIME_VLLM && e->serving.kv_blocks_needed > e->serving.kv_blocks)
        w |= ENGINE_WARN_KV_POOL_SHORT;
    if (!c.training && (c.first_gpu > 0 || c.cpu_moe > 0 || !c.head_gpu)) {
        w |= ENGINE_WARN_OFFLOADED;
        if (!(sc->serving.host_bytes_per_s > 0))
            w |= ENGINE_WARN_HOST_BW_ASSUMED;
    }
    e->warnings = w;
}

/* Whether the runtime picks the GPU layers itself: llama.cpp with --fit and
 * no -ngl, Ollama unless num_gpu is set (not on unified memory, where host
 * RAM is the GPU's). */
static bool fits_layers_itself(const struct engine_scenario *sc) {
    enum engine_runtime r = sc->serving.runtime;
    return sc->mode == ENGINE_MODE_INFER && !sc->serving.gpu_layers_given &&
           !sc->gpu.unified_memory &&
           ((r == ENGINE_RUNTIME_LLAMACPP && sc->serving.fit) || r == ENGINE_RUNTIME_OLLAMA);
}

/* The whole estimate: llama.cpp's --fit and Ollama's scheduler put as many
 * layers on the GPUs as fit (common/fit.cpp, llm/memory.go), all of them
 * when they can; memory rises with the layers, so a binary search. */
void engine_estimate(const struct engine_scenario *given, struct engine_estimate *e) {
    /* A global batch sets the micro-batches (gradient accumulation) of
     * this layout: global / (micro-batch size x dp). */
    struct engine_scenario derived;
    const struct engine_scenario *sc = given;
    if (given->mode != ENGINE_MODE_INFER && given->global_batch) {
        derived = *given;
        derived.micro_batches = engine_micro_batches(given);
        sc = &derived;
    }
    if (!fits_layers_itself(sc)) {
        estimate_core(sc, e);
        return;
    }
    struct engine_scenario r = *sc;
    uint32_t L = sc->model.layers, lo = sc->pp > 1 ? sc->pp : 0, hi = L;
    r.serving.gpu_layers = (int32_t)L;
    r.serving.gpu_layers_given = true;
    estimate_core(&r, e);
    if (e->invalid || e->fits || L == 0) {
        e->gpu_layers_fitted = !e->invalid;
        return;
    }
    r.serving.gpu_layers = (int32_t)lo;
    estimate_core(&r, e);
    if (!e->invalid && e->fits) {
        /* Largest n in [lo, L) that fits; lo fits. */
        while (lo + 1 < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            r.serving.gpu_layers = (int32_t)mid;
            estimate_core(&r, e);
            if (!e->invalid && e->fits)
                lo = mid;
            else
                hi = mid;
        }
        r.serving.gpu_layers = (int32_t)lo;
        estimate_core(&r, e);
    }
    e->gpu_layers_fitted = !e->invalid;
}
