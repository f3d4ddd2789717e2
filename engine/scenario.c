/*
 * scenario.c: the scenario's tables and checks: the optimizer recipes
 * (bytes per parameter of each training state: ZeRO §3.1's 2 + 2 + 12 = 16
 * B for mixed-precision Adam; seeds 000, 002, 003; bitsandbytes, Lion,
 * Adafactor), the names and parsers of modes, recompute policies, FLOP
 * models and compute columns, a format's effective bits (bits + scale/group
 * + zero/group: seed 000's "INT4 son en realidad 4.5 bits"), the
 * documented defaults, and the validation that turns bad input into
 * est->invalid bits. Pure: no I/O, no allocation.
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
static const char *const recompute_names[ENGINE_RECOMPUTE_COUNT] = {"none", "selective", "full",
                                                                    "op"};
/* Megatron-LM recompute_modules names, in enum engine_recompute_module bit order. */
static const char *const recompute_module_names[ENGINE_RECOMPUTE_MODULE_COUNT] = {
    "core_attn", "layernorm", "mlp", "moe", "moe_act", "shared_experts", "mla_up_proj"};
static const char *const recompute_method_names[ENGINE_RECOMPUTE_METHOD_COUNT] = {"uniform",
                                                                                  "block"};
static const char *const flops_model_names[ENGINE_FLOPS_MODEL_COUNT] = {"6n-attention", "6n"};
static const char *const compute_names[ENGINE_COMPUTE_COUNT] = {"fp16", "bf16", "fp32",
                                                                "fp8",  "int8", "fp4"};

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
    return (unsigned)r < ENGINE_RECOMPUTE_COUNT ? recompute_names[r] : "?";
}

/* Name of recompute module bit i (see engine.h). */
const char *engine_recompute_module_name(unsigned i) {
    return i < ENGINE_RECOMPUTE_MODULE_COUNT ? recompute_module_names[i] : "?";
}

/* Parse a comma-separated list of recompute modules into bits. */
int engine_recompute_modules_parse(const char *list, uint32_t *bits, const char **bad) {
    uint32_t out = 0;
    const char *p = list;
    if (!list || !*list) {
        if (bad)
            *bad = list;
        return -1;
    }
    while (*p) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        int found = -1;
        for (int i = 0; i < ENGINE_RECOMPUTE_MODULE_COUNT; i++)
            if (strlen(recompute_module_names[i]) == n &&
                strncmp(recompute_module_names[i], p, n) == 0)
                found = i;
        if (found < 0) {
            if (bad)
                *bad = p;
            return -1;
        }
        out |= 1u << found;
        p += n;
        if (*p == ',')
            p++;
    }
    *bits = out;
    return 0;
}

/* The recompute modules of a scenario: core_attn unless given. */
uint32_t engine_recompute_modules(const struct engine_scenario *sc) {
    return sc->recompute_modules ? sc->recompute_modules : ENGINE_RECOMPUTE_CORE_ATTN;
}

/* The context-parallel degree (see engine.h). */
uint32_t engine_cp(const struct engine_scenario *sc) {
    return sc->cp > 1 ? sc->cp : 1;
}

/* The MoE load imbalance (see engine.h). */
double engine_moe_imbalance(const struct engine_scenario *sc) {
    return sc->moe_imbalance > 0 ? sc->moe_imbalance : ENGINE_DEFAULT_MOE_IMBALANCE;
}

/* FP8 training (see engine.h): full training with a weight format that
 * computes in FP8; MXFP8 when its elements share a scale per block of 32. */
bool engine_train_fp8(const struct engine_scenario *sc) {
    return sc->mode == ENGINE_MODE_TRAIN && sc->weight_format.compute == ENGINE_COMPUTE_FP8;
}

bool engine_train_mxfp8(const struct engine_scenario *sc) {
    return engine_train_fp8(sc) && sc->weight_format.block == 32;
}

static const char *const peak_phase_names[ENGINE_PEAK_PHASE_COUNT] = {
    "", "loss forward", "loss backward", "layer backward", "optimizer step"};

/* The peak phase's name (see engine.h). */
const char *engine_peak_phase_name(enum engine_peak_phase p) {
    return (unsigned)p < ENGINE_PEAK_PHASE_COUNT ? peak_phase_names[p] : "?";
}

/* Name of a full-recompute method. */
const char *engine_recompute_method_name(enum engine_recompute_method m) {
    return (unsigned)m < ENGINE_RECOMPUTE_METHOD_COUNT ? recompute_method_names[m] : "?";
}

/* The expert-parallel degree (see engine.h). */
uint32_t engine_ep(const struct engine_scenario *sc) {
    return sc->ep > 1 ? sc->ep : 1;
}

/* Name of a training FLOPs model. */
const char *engine_flops_model_name(enum engine_flops_model f) {
    return (unsigned)f < ENGINE_FLOPS_MODEL_COUNT ? flops_model_names[f] : "?";
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
    sc->cp = 1;
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
    sc->serving.gpu_memory_utilization = 0; /* the runtime's (engine_runtime_memory_fraction) */
    sc->serving.block_size = 16;            /* vLLM's default on CUDA */
    sc->serving.flash_attention = -1;
    sc->serving.fit = true; /* llama.cpp's --fit is on by default */
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
    if (sc->mode == ENGINE_MODE_INFER || !m->has_arch || m->experts == 0 || m->experts % ep != 0 ||
        (sc->dp && sc->dp % ep != 0))
        return ENGINE_INVALID_EP;
    return 0;
}

/* Context parallelism (Megatron-LM --context-parallel-size): training only,
 * and the context splits into 2 cp chunks (each rank takes a chunk from
 * each end, so causal attention's work is even: Megatron-LM requires
 * seq_length % (2 cp) == 0). */
static uint32_t validate_cp(const struct engine_scenario *sc) {
    uint32_t cp = engine_cp(sc);
    if (cp == 1)
        return 0;
    if (sc->mode == ENGINE_MODE_INFER || sc->context % (2u * cp) != 0)
        return ENGINE_INVALID_CP;
    return 0;
}

/* Check a scenario; returns the engine_invalid bits. */
uint32_t engine_validate(const struct engine_scenario *sc, const struct engine_shape *s) {
    uint32_t bad = 0;
    const struct engine_model *m = &sc->model;
    if (!engine_pos(s->params_total) || m->layers == 0 || m->hidden == 0 || m->heads == 0 ||
        (m->has_arch && m->vocab == 0) ||
        (m->file_bytes && (m->layers > ENGINE_FILE_LAYERS_MAX || !(m->file_params >= 0) ||
                           !isfinite(m->file_params))))
        bad |= ENGINE_INVALID_SIZE;
    if (sc->gpus == 0 || sc->batch == 0 || sc->context == 0 || sc->tp == 0 || sc->pp == 0 ||
        sc->dp == 0 || sc->micro_batches == 0 || sc->interleave == 0 ||
        !isfinite(sc->reserve_bytes) || sc->reserve_bytes < 0 || sc->training_tokens < 0 ||
        !isfinite(sc->training_tokens) || sc->price_per_hour < 0 || !isfinite(sc->price_per_hour) ||
        sc->throughput_tokens_per_s < 0 || !isfinite(sc->throughput_tokens_per_s) ||
        (unsigned)sc->recipe >= ENGINE_RECIPE_COUNT)
        bad |= ENGINE_INVALID_WORKLOAD;
    if (sc->tp && sc->pp && sc->dp &&
        (uint64_t)sc->tp * engine_cp(sc) * sc->pp * sc->dp != (uint64_t)sc->gpus)
        bad |= ENGINE_INVALID_LAYOUT;
    if (sc->tp && m->heads && m->heads % sc->tp != 0)
        bad |= ENGINE_INVALID_TP_HEADS;
    if (sc->pp && m->layers && sc->pp > m->layers)
        bad |= ENGINE_INVALID_PP_LAYERS;
    if (sc->zero > 3)
        bad |= ENGINE_INVALID_ZERO;
    const struct engine_gpu *g = &sc->gpu;
    if (!engine_pos(g->memory_bytes) || !engine_pos(g->bandwidth_bytes_per_s) ||
        !(engine_pos(g->flops[ENGINE_COMPUTE_FP16]) || engine_pos(g->flops[ENGINE_COMPUTE_BF16])))
        bad |= ENGINE_INVALID_GPU;
    if (!engine_pos(engine_format_bits(&sc->weight_format)) ||
        !engine_pos(engine_format_bits(&sc->kv_format)))
        bad |= ENGINE_INVALID_FORMAT;
    if (!engine_pos(sc->bw_efficiency) || sc->bw_efficiency > 1 ||
        !engine_pos(sc->flops_efficiency) || sc->flops_efficiency > 1 || !isfinite(sc->mfu) ||
        sc->mfu < 0 || sc->mfu > 1 || (unsigned)sc->flops_model >= ENGINE_FLOPS_MODEL_COUNT)
        bad |= ENGINE_INVALID_EFFICIENCY;
    if (sc->measured_bytes_per_s < 0 || sc->measured_flop_per_s < 0 ||
        !isfinite(sc->measured_bytes_per_s) || !isfinite(sc->measured_flop_per_s))
        bad |= ENGINE_INVALID_GPU;
    if (!isfinite(sc->attention_efficiency) || sc->attention_efficiency < 0 ||
        sc->attention_efficiency > 1)
        bad |= ENGINE_INVALID_EFFICIENCY;
    if (sc->mode == ENGINE_MODE_INFER && sc->prompt > sc->context)
        bad |= ENGINE_INVALID_PROMPT;
    if (sc->mode != ENGINE_MODE_INFER && sc->global_batch &&
        (sc->batch == 0 || sc->dp == 0 || sc->global_batch % ((uint64_t)sc->batch * sc->dp) != 0))
        bad |= ENGINE_INVALID_BATCH;
    bad |= validate_ep(sc);
    bad |= validate_cp(sc);
    if (!isfinite(sc->moe_imbalance) || (sc->moe_imbalance != 0 && sc->moe_imbalance < 1) ||
        sc->recompute_modules >= (1u << ENGINE_RECOMPUTE_MODULE_COUNT))
        bad |= ENGINE_INVALID_MOE;
    if ((unsigned)sc->recompute_method >= ENGINE_RECOMPUTE_METHOD_COUNT ||
        (unsigned)sc->recompute >= ENGINE_RECOMPUTE_COUNT ||
        (m->layers && sc->recompute_num_layers > m->layers))
        bad |= ENGINE_INVALID_RECOMPUTE;
    const struct engine_serving *v = &sc->serving;
    double util = v->gpu_memory_utilization;
    bool given = v->gpu_layers_given;
    if ((unsigned)v->runtime >= ENGINE_RUNTIME_COUNT || !(util >= 0 && util <= 1) ||
        v->block_size == 0 || !(v->cuda_graph_bytes >= 0) || !isfinite(v->cuda_graph_bytes) ||
        !(v->request_rate >= 0) || !isfinite(v->request_rate) ||
        (given && (v->gpu_layers < 0 || (m->layers && (uint32_t)v->gpu_layers > m->layers))) ||
        (m->layers && v->cpu_moe_layers > m->layers) || v->host_bytes_per_s < 0 ||
        !isfinite(v->host_bytes_per_s) || (given && sc->pp > 1 && (uint32_t)v->gpu_layers < sc->pp))
        bad |= ENGINE_INVALID_SERVING;
    bad |= engine_zero_validate(sc);
    return bad;
}
