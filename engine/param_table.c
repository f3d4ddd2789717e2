/*
 * param_table.c: the parameter table (see param_table.h): every parameter of vramlab
 * once, with its type, range, default, unit, help, modes, whether the
 * explorer sets it, and the field of struct engine_scenario it fills. The
 * enumerations' names are the engine's own (engine_mode_name, ...), read
 * through small index functions, so no list of names is written twice.
 * Pure: no I/O, no allocation.
 */
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "engine/param_table.h"

/* ---- the values of the enumerations ------------------------------------------- */

/* The i-th name of a NULL-terminated list. */
static const char *list_at(const char *const *names, unsigned i) {
    for (unsigned k = 0; names[k]; k++)
        if (k == i)
            return names[k];
    return NULL;
}

#define LIST(fn, ...)                                                                              \
    static const char *fn(unsigned i) {                                                            \
        static const char *const names[] = {__VA_ARGS__, NULL};                                    \
        return list_at(names, i);                                                                  \
    }

LIST(units_value, "gb", "gib")
LIST(theme_value, "dark", "light", "high-contrast", "mono")
LIST(bias_value, "none", "qkv", "all")
LIST(norm_value, "rms", "layer")
LIST(yes_no_value, "yes", "no")
LIST(on_off_value, "on", "off")
LIST(on_off_auto_value, "on", "off", "auto")
LIST(device_value, "cpu")

/* The engine's names, as index functions (NULL past the last). */
static const char *mode_value(unsigned i) {
    return i < 4 ? engine_mode_name((enum engine_mode)i) : NULL;
}
static const char *recompute_value(unsigned i) {
    return i < ENGINE_RECOMPUTE_COUNT ? engine_recompute_name((enum engine_recompute)i) : NULL;
}
static const char *recompute_method_value(unsigned i) {
    return i < ENGINE_RECOMPUTE_METHOD_COUNT
               ? engine_recompute_method_name((enum engine_recompute_method)i)
               : NULL;
}
static const char *recipe_value(unsigned i) {
    return i < ENGINE_RECIPE_COUNT ? engine_recipe_info((enum engine_recipe)i)->id : NULL;
}
static const char *flops_model_value(unsigned i) {
    return i < ENGINE_FLOPS_MODEL_COUNT ? engine_flops_model_name((enum engine_flops_model)i)
                                        : NULL;
}
static const char *convention_value(unsigned i) {
    return i < ENGINE_MEMCONV_COUNT
               ? engine_memory_convention_name((enum engine_memory_convention)i)
               : NULL;
}
static const char *offload_value(unsigned i) {
    return i < ENGINE_OFFLOAD_COUNT ? engine_offload_name((enum engine_offload)i) : NULL;
}
static const char *runtime_value(unsigned i) {
    return i < ENGINE_RUNTIME_COUNT ? engine_runtime_name((enum engine_runtime)i) : NULL;
}
static const char *rank_value(unsigned i) {
    return i < 3 ? engine_rank_name((enum engine_rank)i) : NULL;
}

/* Parsers that take the engine's aliases ("inference", "llamacpp"). */
static int mode_parse(const char *s, int *out) {
    enum engine_mode m;
    if (engine_mode_parse(s, &m) != 0)
        return -1;
    *out = (int)m;
    return 0;
}
/* A runtime with the release of its profile: NAME[@VERSION] ("vllm@0.21");
 * the front end reads the version (engine_runtime_spec_parse). */
static int runtime_parse(const char *s, int *out) {
    enum engine_runtime r;
    uint32_t version;
    if (engine_runtime_spec_parse(s, &r, &version) != 0)
        return -1;
    *out = (int)r;
    return 0;
}
/* gb or gib, in any case. */
static int units_parse(const char *s, int *out) {
    for (unsigned i = 0; units_value(i); i++)
        if (!strcasecmp(s, units_value(i))) {
            *out = (int)i;
            return 0;
        }
    return -1;
}
/* The explorer's colour schemes ("contrast" and "high" too). */
static int theme_parse(const char *s, int *out) {
    for (unsigned i = 0; theme_value(i); i++)
        if (!strcmp(s, theme_value(i))) {
            *out = (int)i;
            return 0;
        }
    if (!strcmp(s, "contrast") || !strcmp(s, "high")) {
        *out = 2;
        return 0;
    }
    return -1;
}
/* A switch: the first name or yes/on/true/1; the second or no/off/false/0. */
static int switch_parse(const char *s, int *out) {
    static const char *const yes[] = {"yes", "on", "true", "1"};
    static const char *const no[] = {"no", "off", "false", "0"};
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (!strcasecmp(s, yes[i])) {
            *out = 0;
            return 0;
        }
        if (!strcasecmp(s, no[i])) {
            *out = 1;
            return 0;
        }
    }
    return -1;
}
/* on, off, auto (yes/no/true/false/1/0 too). */
static int on_off_auto_parse(const char *s, int *out) {
    if (switch_parse(s, out) == 0)
        return 0;
    if (!strcasecmp(s, "auto")) {
        *out = 2;
        return 0;
    }
    return -1;
}

/* ---- the table ------------------------------------------------------------------- */

#define SC(field) offsetof(struct engine_scenario, field)
#define G16 16777216.0 /* 2^24 */
#define G20 1048576.0  /* 2^20 */
#define G30 1073741824.0

/* Row builders by type: {id, name, type, optional, metavar, min, max, value, parse,
 * def, unit, help, example, scope, modes, flags, store, offset}. */
#define ROW(id, name, type, metavar, def, unit, help, ex, scope, modes, flags)                     \
    [id] = {id, name, type, false, metavar, 0, 0, NULL, NULL, def, unit, help, ex, scope, modes,    \
            flags, PARAM_S_NONE, 0}
#define STORED(id, name, type, metavar, def, unit, help, ex, modes, flags, store, off)             \
    [id] = {id,   name, type,  false,    metavar,  0,   0,     NULL,  NULL, def,  unit,            \
            help, ex,   PARAM_SCOPE_SCENARIO, modes, flags, store, off}
#define INT(id, name, lo, hi, def, unit, help, ex, modes, flags, off)                              \
    [id] = {id,   name, PARAM_T_INT, false, "N", lo, hi, NULL, NULL, def, unit, help, ex,           \
            PARAM_SCOPE_SCENARIO, modes, flags, PARAM_S_U32, off}
#define TOKENS(id, name, lo, hi, def, help, ex, modes, flags, off)                                 \
    [id] = {id,   name, PARAM_T_TOKENS, false, "N", lo, hi, NULL, NULL, def, PARAM_U_TOKENS, help,   \
            ex,   PARAM_SCOPE_SCENARIO, modes, flags, PARAM_S_U32, off}
#define RATIO(id, name, def, help, ex, modes, off)                                                 \
    [id] = {id,   name, PARAM_T_RATIO, false, "X", 0, 1, NULL, NULL, def, PARAM_U_RATIO, help, ex,  \
            PARAM_SCOPE_SCENARIO, modes, 0, PARAM_S_DOUBLE, off}
#define ENUM(id, name, metavar, value, parse, def, help, ex, modes, flags, store, off)             \
    [id] = {id,   name, PARAM_T_ENUM, false, metavar, 0, 0, value, parse, def, PARAM_U_NONE, help,  \
            ex,   PARAM_SCOPE_SCENARIO, modes, flags, store, off}
#define FLAG(id, name, help, scope, modes, flags, store, off)                                      \
    [id] = {id,   name, PARAM_T_FLAG, false, NULL, 0, 0, NULL, NULL, NULL, PARAM_U_NONE, help,      \
            "",   scope, modes, flags, store, off}

static const struct param_info params[PARAM_COUNT] = {
    /* the model */
    ROW(PARAM_MODEL, "model", PARAM_T_ID, "ID", "llama-3.1-8b", PARAM_U_NONE,
        PARAM_N_("catalog model (default llama-3.1-8b)"), "llama-3.1-70b", PARAM_SCOPE_SCENARIO,
        PARAM_M_ALL, PARAM_F_TUI),
    ROW(PARAM_PARAMS, "params", PARAM_T_AMOUNT, "N", NULL, PARAM_U_PARAMETERS,
        PARAM_N_("bare model size instead: 70B, 405e9"), "70B", PARAM_SCOPE_SCENARIO, PARAM_M_ALL,
        PARAM_F_TUI),
    ROW(PARAM_MODEL_CONFIG, "model-config", PARAM_T_PATH, "FILE", NULL, PARAM_U_NONE,
        PARAM_N_("a Hugging Face config.json"), NULL, PARAM_SCOPE_SCENARIO, PARAM_M_ALL, 0),
    ROW(PARAM_MODEL_FILE, "model-file", PARAM_T_PATH, "PATH", NULL, PARAM_U_NONE,
        PARAM_N_("GGUF or safetensors file, index .json or HF folder (headers)"), NULL,
        PARAM_SCOPE_SCENARIO, PARAM_M_ALL, PARAM_F_TUI),
    ROW(PARAM_FORMAT, "format", PARAM_T_ID, "ID", "fp16", PARAM_U_NONE,
        PARAM_N_("weight format (default fp16; bf16 training)"), "int4-g32", PARAM_SCOPE_SCENARIO,
        PARAM_M_INFER | PARAM_M_LORA | PARAM_M_QLORA, PARAM_F_TUI),
    ROW(PARAM_KV_FORMAT, "kv-format", PARAM_T_ID, "ID", "fp16", PARAM_U_NONE,
        PARAM_N_("KV cache format (default fp16)"), "fp8", PARAM_SCOPE_SCENARIO, PARAM_M_INFER,
        PARAM_F_TUI),
    /* the GPUs and their layout */
    ROW(PARAM_GPU, "gpu", PARAM_T_ID, "ID", "h100-sxm", PARAM_U_NONE,
        PARAM_N_("catalog GPU (default h100-sxm)"), "a100-80gb", PARAM_SCOPE_SCENARIO, PARAM_M_ALL,
        PARAM_F_TUI),
    ENUM(PARAM_DEVICE, "device", "cpu", device_value, NULL, NULL,
         PARAM_N_("this machine's CPU as the device: its measured rates (vramlab measure "
                  "--device cpu)"),
         "cpu", PARAM_M_ALL, 0, PARAM_S_NONE, 0),
    ROW(PARAM_SYSTEM, "system", PARAM_T_ID, "ID", NULL, PARAM_U_NONE,
        PARAM_N_("catalog system (dgx-h100, gb300-nvl72): its GPU, GPUs per node, links and power"),
        "dgx-h100", PARAM_SCOPE_SCENARIO, PARAM_M_ALL, 0),
    INT(PARAM_GPUS, "gpus", 1, G16, "1", PARAM_U_COUNT,
        PARAM_N_("number of GPUs (default tp*cp*pp*dp, or 1)"), "8", PARAM_M_ALL, PARAM_F_TUI,
        SC(gpus)),
    INT(PARAM_TP, "tp", 1, G20, "1", PARAM_U_COUNT, PARAM_N_("tensor-parallel degree"), "2",
        PARAM_M_ALL, PARAM_F_TUI, SC(tp)),
    INT(PARAM_PP, "pp", 1, G20, "1", PARAM_U_COUNT, PARAM_N_("pipeline-parallel degree"), "2",
        PARAM_M_ALL, PARAM_F_TUI, SC(pp)),
    INT(PARAM_DP, "dp", 1, G16, "1", PARAM_U_COUNT, PARAM_N_("data-parallel degree"), "2",
        PARAM_M_ALL, PARAM_F_TUI, SC(dp)),
    [PARAM_ZERO] = {PARAM_ZERO, "zero", PARAM_T_INT, false, "0..3", 0, 3, NULL, NULL, "0",
                    PARAM_U_NONE, PARAM_N_("ZeRO stage"), "1", PARAM_SCOPE_SCENARIO,
                    PARAM_M_TRAINING, PARAM_F_TUI, PARAM_S_U32, SC(zero)},
    ENUM(PARAM_MEMORY_CONVENTION, "memory-convention", "C", convention_value, NULL, "paper",
         PARAM_N_("training states as counted by: paper (default) | deepspeed | megatron | peak "
                  "(as measured)"),
         "deepspeed", PARAM_M_TRAINING, 0, PARAM_S_ENUM, SC(memory_convention)),
    ENUM(PARAM_OFFLOAD, "offload", "WHERE", offload_value, NULL, "none",
         PARAM_N_("training states off the GPU: none (default) | cpu (ZeRO-Offload) | nvme "
                  "(ZeRO-Infinity)"),
         "cpu", PARAM_M_TRAIN, 0, PARAM_S_ENUM, SC(offload)),
    STORED(PARAM_HOST_LINK_BW, "host-link-bw", PARAM_T_BANDWIDTH, "BW", NULL, PARAM_U_BYTES_PER_S,
           PARAM_N_("per-GPU host link for offload (default PCIe 5.0 x16: 63GB/s)"), "32GB/s",
           PARAM_M_TRAIN, 0, PARAM_S_DOUBLE, SC(host_link_bytes_per_s)),
    /* the workload */
    ENUM(PARAM_MODE, "mode", "MODE", mode_value, mode_parse, "infer",
         PARAM_N_("infer | train | lora | qlora"), "train", PARAM_M_ALL, PARAM_F_TUI, PARAM_S_ENUM,
         SC(mode)),
    INT(PARAM_BATCH, "batch", 1, G16, "1", PARAM_U_COUNT,
        PARAM_N_("sequences per replica at once (default 1); training: per micro-batch"), "8",
        PARAM_M_ALL, PARAM_F_TUI, SC(batch)),
    TOKENS(PARAM_CONTEXT, "context", 1, G30, "4096",
           PARAM_N_("tokens per sequence (default 4096; 8k, 128K: k = 1024)"), "8k", PARAM_M_ALL,
           PARAM_F_TUI, SC(context)),
    TOKENS(PARAM_PROMPT, "prompt", 0, G30, "0",
           PARAM_N_("prefill tokens (default: the context; 8k)"), "2k", PARAM_M_INFER, 0,
           SC(prompt)),
    INT(PARAM_MICRO_BATCHES, "micro-batches", 1, G16, "1", PARAM_U_COUNT,
        PARAM_N_("micro-batches per step per replica (gradient accumulation)"), "8",
        PARAM_M_TRAINING, PARAM_F_TUI, SC(micro_batches)),
    /* sequences (a whole number in [min, max]), or N-tokens (PARAM_T_TOKENS's rule) */
    [PARAM_GLOBAL_BATCH] = {PARAM_GLOBAL_BATCH, "global-batch", PARAM_T_TEXT, false, "N", 1, G30,
                            NULL, NULL, NULL, PARAM_U_COUNT,
                            PARAM_N_("sequences per step, all replicas; or tokens: 16M-tokens (M "
                                     "= 1024k)"),
                            "16", PARAM_SCOPE_SCENARIO, PARAM_M_TRAINING, 0, PARAM_S_NONE, 0},
    [PARAM_MICRO_BATCH_SIZE] = {PARAM_MICRO_BATCH_SIZE, "micro-batch-size", PARAM_T_INT, false,
                                "N", 1, G16, NULL, NULL, NULL, PARAM_U_COUNT,
                                PARAM_N_("training: sequences per micro-batch (--batch's meaning "
                                         "there)"),
                                "2", PARAM_SCOPE_SCENARIO, PARAM_M_TRAINING, PARAM_F_ALIAS,
                                PARAM_S_NONE, 0},
    ENUM(PARAM_RECOMPUTE, "recompute", "R", recompute_value, NULL, NULL,
         PARAM_N_("none | selective (attention-only) | full | op (torchtitan) (default selective; "
                  "full for LoRA/QLoRA)"),
         "full", PARAM_M_TRAINING, PARAM_F_TUI, PARAM_S_ENUM, SC(recompute)),
    ENUM(PARAM_OPTIMIZER, "optimizer", "RECIPE", recipe_value, NULL, "adam-mixed",
         PARAM_N_("training recipe (default adam-mixed)"), "adam-8bit", PARAM_M_TRAINING, PARAM_F_TUI,
         PARAM_S_ENUM, SC(recipe)),
    [PARAM_MFU] = {PARAM_MFU, "mfu", PARAM_T_RATIO, false, "X", 0, 1, NULL, NULL, NULL,
                   PARAM_U_RATIO,
                   PARAM_N_("model FLOP utilisation end to end (0.4 or 40%; default: predicted)"),
                   "0.4", PARAM_SCOPE_SCENARIO, PARAM_M_TRAINING, 0, PARAM_S_DOUBLE, SC(mfu)},
    ROW(PARAM_TOKENS, "tokens", PARAM_T_AMOUNT, "N", NULL, PARAM_U_TOKENS,
        PARAM_N_("training tokens: 15.6T"), "15.6T", PARAM_SCOPE_SCENARIO, PARAM_M_TRAINING, 0),
    ROW(PARAM_THROUGHPUT, "throughput", PARAM_T_TEXT, "TOK/S", NULL, PARAM_U_TOKENS_PER_S,
        PARAM_N_("training tokens/s of the whole deployment (1000; 1000/gpu: per GPU)"), "1000",
        PARAM_SCOPE_SCENARIO, PARAM_M_TRAINING, 0),
    ROW(PARAM_DATASET, "dataset", PARAM_T_TEXT, "NxT", NULL, PARAM_U_TOKENS,
        PARAM_N_("training set: N examples of T tokens, 10000x512"), "10000x512",
        PARAM_SCOPE_SCENARIO, PARAM_M_TRAINING, PARAM_F_ALIAS),
    ROW(PARAM_DATASET_TOKENS, "dataset-tokens", PARAM_T_AMOUNT, "N", NULL, PARAM_U_TOKENS,
        PARAM_N_("training set in tokens: 5.12M"), "5.12M", PARAM_SCOPE_SCENARIO, PARAM_M_TRAINING,
        PARAM_F_ALIAS),
    ROW(PARAM_EPOCHS, "epochs", PARAM_T_AMOUNT, "E", "1", PARAM_U_COUNT,
        PARAM_N_("passes over the training set (default 1)"), "3", PARAM_SCOPE_SCENARIO,
        PARAM_M_TRAINING, PARAM_F_ALIAS),
    [PARAM_UNITS] = {PARAM_UNITS, "units", PARAM_T_ENUM, false, "U", 0, 0, units_value,
                     units_parse, "gb", PARAM_U_NONE, PARAM_N_("gb (1e9, default) | gib (2^30)"),
                     "gib", PARAM_SCOPE_DISPLAY, PARAM_M_ALL, PARAM_F_TUI, PARAM_S_NONE, 0},
    STORED(PARAM_RESERVE, "reserve", PARAM_T_BYTES, "BYTES", "1GB", PARAM_U_BYTES,
           PARAM_N_("per-GPU reserve: 1GB, 512MiB"), "512MiB", PARAM_M_ALL, 0, PARAM_S_DOUBLE,
           SC(reserve_bytes)),
    ROW(PARAM_CATALOG, "catalog", PARAM_T_PATH, "FILE", NULL, PARAM_U_NONE,
        PARAM_N_("extra catalog YAML file"), NULL, PARAM_SCOPE_SESSION, PARAM_M_ALL, 0),
    /* training's layout and method */
    FLAG(PARAM_SEQUENCE_PARALLEL, "sequence-parallel", PARAM_N_("sequence parallelism with TP"),
         PARAM_SCOPE_SCENARIO, PARAM_M_TRAINING, 0, PARAM_S_BOOL, SC(sequence_parallel)),
    [PARAM_INTERLEAVE] = {PARAM_INTERLEAVE, "interleave", PARAM_T_INT, false, "V", 1, 1024, NULL,
                          NULL, "1", PARAM_U_COUNT, PARAM_N_("virtual pipeline stages per GPU"),
                          "2", PARAM_SCOPE_SCENARIO, PARAM_M_TRAINING, 0, PARAM_S_U32,
                          SC(interleave)},
    INT(PARAM_EP, "ep", 1, 65536, "1", PARAM_U_COUNT,
        PARAM_N_("MoE training: expert-parallel degree inside DP (divides --dp and the experts)"),
        "2", PARAM_M_TRAINING, PARAM_F_TUI, SC(ep)),
    ENUM(PARAM_RECOMPUTE_METHOD, "recompute-method", "M", recompute_method_value, NULL, "uniform",
         PARAM_N_("full recompute: uniform (default) | block (Megatron-LM)"), "block", PARAM_M_TRAINING, 0,
         PARAM_S_ENUM, SC(recompute_method)),
    INT(PARAM_RECOMPUTE_NUM_LAYERS, "recompute-num-layers", 1, G20, NULL, PARAM_U_COUNT,
        PARAM_N_("full recompute: layers per checkpoint (uniform) or recomputed per stage "
                 "(block)"),
        "4", PARAM_M_TRAINING, 0, SC(recompute_num_layers)),
    [PARAM_CP] = {PARAM_CP, "cp", PARAM_T_INT, false, "N", 1, 65536, NULL, NULL, "1",
                  PARAM_U_COUNT,
                  PARAM_N_("training: context-parallel degree, each sequence over N GPUs (G = tp x "
                           "cp x pp x dp)"),
                  "2", PARAM_SCOPE_SCENARIO, PARAM_M_TRAINING, 0, PARAM_S_U32, SC(cp)},
    [PARAM_MOE_IMBALANCE] = {PARAM_MOE_IMBALANCE, "moe-imbalance", PARAM_T_NUMBER, false, "X", 1,
                             64, NULL, NULL, NULL, PARAM_U_RATIO,
                             PARAM_N_("MoE training: busiest expert rank's tokens over the mean "
                                      "(default 1.25; 1 = balanced)"),
                             "1.5", PARAM_SCOPE_SCENARIO, PARAM_M_TRAINING, 0, PARAM_S_DOUBLE,
                             SC(moe_imbalance)},
    /* a list of Megatron-LM's module names (engine_recompute_module_name) */
    [PARAM_RECOMPUTE_MODULES] = {PARAM_RECOMPUTE_MODULES, "recompute-modules", PARAM_T_TEXT, false,
                                 "LIST", 0, 0, NULL, NULL, NULL, PARAM_U_NONE,
                                 PARAM_N_("selective recompute of Megatron-LM's modules: core_attn "
                                          "(default),layernorm,mlp,moe,moe_act,shared_experts,"
                                          "mla_up_proj"),
                                 "core_attn,mlp", PARAM_SCOPE_SCENARIO, PARAM_M_TRAINING, 0,
                                 PARAM_S_NONE, 0},
    FLAG(PARAM_FINE_TUNE, "fine-tune",
         PARAM_N_("--mode train is full fine-tuning: a fine-tuning set's tokens, not 20 per "
                  "parameter"),
         PARAM_SCOPE_SCENARIO, PARAM_M_TRAIN, 0, PARAM_S_BOOL, SC(fine_tune)),
    [PARAM_ATTENTION_EFFICIENCY] = {PARAM_ATTENTION_EFFICIENCY, "attention-efficiency",
                                    PARAM_T_RATIO, false, "X", 0, 1, NULL, NULL, NULL,
                                    PARAM_U_RATIO,
                                    PARAM_N_("training: fraction of peak the attention kernels "
                                             "reach (default: the kernels')"),
                                    "0.5", PARAM_SCOPE_SCENARIO, PARAM_M_TRAINING, 0,
                                    PARAM_S_DOUBLE, SC(attention_efficiency)},
    /* the links between GPUs */
    INT(PARAM_GPUS_PER_NODE, "gpus-per-node", 1, 65536, NULL, PARAM_U_COUNT,
        PARAM_N_("GPUs per node (default: the GPU's)"), "4", PARAM_M_ALL, 0, SC(gpus_per_node)),
    STORED(PARAM_INTRA_BW, "intra-node-bw", PARAM_T_BANDWIDTH, "BW", NULL, PARAM_U_BYTES_PER_S,
           PARAM_N_("per-GPU link bandwidth: 900GB/s"), "450GB/s", PARAM_M_ALL, 0,
           PARAM_S_DOUBLE, SC(intra_node_bytes_per_s)),
    STORED(PARAM_INTER_BW, "inter-node-bw", PARAM_T_BANDWIDTH, "BW", "50GB/s", PARAM_U_BYTES_PER_S,
           PARAM_N_("per-GPU network bandwidth: 50GB/s"), "25GB/s", PARAM_M_ALL, 0,
           PARAM_S_DOUBLE, SC(inter_node_bytes_per_s)),
    STORED(PARAM_ALLREDUCE_LATENCY, "allreduce-latency", PARAM_T_SECONDS, "T", "5us",
           PARAM_U_SECONDS, PARAM_N_("per all-reduce: 5us"), "10us", PARAM_M_ALL, 0,
           PARAM_S_DOUBLE, SC(allreduce_latency_s)),
    RATIO(PARAM_BW_EFFICIENCY, "bw-efficiency", "1", PARAM_N_("fraction of data-sheet bandwidth"),
          "0.8", PARAM_M_ALL, SC(bw_efficiency)),
    RATIO(PARAM_FLOPS_EFFICIENCY, "flops-efficiency", "1",
          PARAM_N_("fraction of data-sheet FLOP/s (default 1; training kernels 0.57)"), "0.5",
          PARAM_M_ALL, SC(flops_efficiency)),
    ENUM(PARAM_FLOPS_MODEL, "flops-model", "M", flops_model_value, NULL, "6n-attention",
         PARAM_N_("training FLOPs: 6n-attention (default) | 6n"), "6n", PARAM_M_TRAINING, 0,
         PARAM_S_ENUM, SC(flops_model)),
    [PARAM_LORA_RANK] = {PARAM_LORA_RANK, "lora-rank", PARAM_T_INT, false, "R", 1, G20, NULL, NULL,
                         "16", PARAM_U_COUNT, PARAM_N_("LoRA rank"), "64", PARAM_SCOPE_SCENARIO,
                         PARAM_M_LORA | PARAM_M_QLORA, 0, PARAM_S_U32, SC(lora_rank)},
    STORED(PARAM_PRICE, "price", PARAM_T_PRICE, "USD", NULL, PARAM_U_USD_PER_HOUR,
           PARAM_N_("price per GPU-hour: 2.49 or $2.49/h"), "2.49", PARAM_M_TRAINING, 0,
           PARAM_S_DOUBLE, SC(price_per_hour)),
    /* calibration */
    STORED(PARAM_MEASURED_BW, "measured-bw", PARAM_T_BANDWIDTH, "BW", NULL, PARAM_U_BYTES_PER_S,
           PARAM_N_("calibrate: measured bandwidth per GPU instead of the data sheet, 3.0TB/s"),
           "3TB/s", PARAM_M_ALL, PARAM_F_TUI, PARAM_S_DOUBLE, SC(measured_bytes_per_s)),
    STORED(PARAM_MEASURED_FLOPS, "measured-flops", PARAM_T_FLOPS, "F", NULL, PARAM_U_FLOP_PER_S,
           PARAM_N_("calibrate: measured FLOP/s per GPU instead of the data sheet, 700T"), "700T",
           PARAM_M_ALL, PARAM_F_TUI, PARAM_S_DOUBLE, SC(measured_flop_per_s)),
    ROW(PARAM_MEASURED_ALLREDUCE, "measured-allreduce", PARAM_T_PATH, "FILE", NULL, PARAM_U_NONE,
        PARAM_N_("calibrate: link bandwidth and latency from a saved all-reduce measurement"), NULL,
        PARAM_SCOPE_SCENARIO, PARAM_M_ALL, PARAM_F_ALIAS),
    /* serving */
    /* NAME[@VERSION]: the runtime and the release of its profile, both
     * resolved by the front end (tui/options_serving.c) */
    ENUM(PARAM_RUNTIME, "runtime", "R[@VERSION]", runtime_value, runtime_parse, "plain",
         PARAM_N_("plain (default) | vllm[@0.11|@0.21] | llama.cpp | ollama | sglang | trtllm: "
                  "whose memory accounting, as of which release"),
         "vllm@0.21", PARAM_M_INFER, 0, PARAM_S_NONE, 0),
    /* vLLM's, SGLang's and TensorRT-LLM's memory fraction: one field, 0 =
     * the runtime's default (engine_runtime_memory_fraction); saved under
     * the key of the scenario's runtime */
    RATIO(PARAM_GPU_MEMORY_UTILIZATION, "gpu-memory-utilization", NULL,
          PARAM_N_("vLLM: fraction of the memory CUDA reports it takes (default 0.9; 0.92 from "
                   "0.21)"),
          "0.85", PARAM_M_INFER, SC(serving.gpu_memory_utilization)),
    INT(PARAM_BLOCK_SIZE, "block-size", 1, 65536, "16", PARAM_U_TOKENS,
        PARAM_N_("vLLM: KV block in tokens (default 16)"), "32", PARAM_M_INFER, 0,
        SC(serving.block_size)),
    TOKENS(PARAM_MAX_NUM_BATCHED_TOKENS, "max-num-batched-tokens", 1, G30, NULL,
           PARAM_N_("vLLM: tokens per step (default 8192 on 70+ GiB GPUs but A100, else 2048)"),
           "4096", PARAM_M_INFER, 0, SC(serving.max_num_batched_tokens)),
    INT(PARAM_MAX_NUM_SEQS, "max-num-seqs", 1, G20, NULL, PARAM_U_COUNT,
        PARAM_N_("vLLM: sequences per step (default 1024, or 256)"), "128", PARAM_M_INFER, 0,
        SC(serving.max_num_seqs)),
    TOKENS(PARAM_MAX_MODEL_LEN, "max-model-len", 1, G30, NULL,
           PARAM_N_("vLLM: longest request (default --context, else the model's maximum)"), "8k",
           PARAM_M_INFER, 0, SC(serving.max_model_len)),
    RATIO(PARAM_MEM_FRACTION_STATIC, "mem-fraction-static", NULL,
          PARAM_N_("SGLang: fraction of the free memory for weights and KV (default: its "
                   "heuristic)"),
          "0.8", PARAM_M_INFER, SC(serving.gpu_memory_utilization)),
    RATIO(PARAM_FREE_GPU_MEMORY_FRACTION, "free-gpu-memory-fraction", NULL,
          PARAM_N_("TensorRT-LLM: fraction of the memory left after the weights for KV (default "
                   "0.9)"),
          "0.85", PARAM_M_INFER, SC(serving.gpu_memory_utilization)),
    STORED(PARAM_CUDA_GRAPH_MEMORY, "cuda-graph-memory", PARAM_T_BYTES, "BYTES", NULL,
           PARAM_U_BYTES,
           PARAM_N_("vLLM 0.21+: CUDA-graph memory its log estimates (default vramlab's "
                    "estimate)"),
           "2GiB", PARAM_M_INFER, 0, PARAM_S_DOUBLE, SC(serving.cuda_graph_bytes)),
    [PARAM_REQUEST_RATE] = {PARAM_REQUEST_RATE, "request-rate", PARAM_T_NUMBER, false, "R", 0, 1e9,
                            NULL, NULL, NULL, PARAM_U_REQUESTS_PER_S,
                            PARAM_N_("requests per second arriving, for the steady state "
                                     "(default: saturated)"),
                            "2.5", PARAM_SCOPE_SCENARIO, PARAM_M_INFER, 0, PARAM_S_DOUBLE,
                            SC(serving.request_rate)},
    INT(PARAM_UBATCH, "ubatch", 1, G20, NULL, PARAM_U_TOKENS,
        PARAM_N_("llama.cpp/Ollama: physical batch (default 512)"), "256", PARAM_M_INFER, 0,
        SC(serving.ubatch)),
    [PARAM_FLASH_ATTENTION] = {PARAM_FLASH_ATTENTION, "flash-attention", PARAM_T_ENUM, false,
                               "on|off|auto", 0, 0, on_off_auto_value, on_off_auto_parse, "auto",
                               PARAM_U_NONE,
                               PARAM_N_("llama.cpp/Ollama: flash attention (auto: llama.cpp on, "
                                        "Ollama off)"),
                               "off", PARAM_SCOPE_SCENARIO, PARAM_M_INFER, 0, PARAM_S_NONE, 0},
    [PARAM_FIT] = {PARAM_FIT, "fit", PARAM_T_SWITCH, true, "on|off", 0, 0, on_off_value,
                   switch_parse, "on", PARAM_U_NONE,
                   PARAM_N_("llama.cpp: put as many layers on the GPU as fit, 1 GiB free (default "
                            "on)"),
                   "off", PARAM_SCOPE_SCENARIO, PARAM_M_INFER, 0, PARAM_S_BOOL, SC(serving.fit)},
    [PARAM_GPU_LAYERS] = {PARAM_GPU_LAYERS, "gpu-layers", PARAM_T_INT, false, "N", 0, G20, NULL,
                          NULL, NULL, PARAM_U_COUNT,
                          PARAM_N_("layers on the GPUs, the rest in host RAM (llama.cpp -ngl "
                                   "N+1)"),
                          "20", PARAM_SCOPE_SCENARIO, PARAM_M_INFER, 0, PARAM_S_NONE, 0},
    [PARAM_N_CPU_MOE] = {PARAM_N_CPU_MOE, "n-cpu-moe", PARAM_T_INT, false, "N", 0, G20, NULL, NULL,
                         NULL, PARAM_U_COUNT,
                         PARAM_N_("MoE experts of the first N layers in host RAM (llama.cpp "
                                  "--n-cpu-moe)"),
                         "4", PARAM_SCOPE_SCENARIO, PARAM_M_INFER, 0, PARAM_S_U32,
                         SC(serving.cpu_moe_layers)},
    STORED(PARAM_HOST_BANDWIDTH, "host-bandwidth", PARAM_T_BANDWIDTH, "BW", NULL,
           PARAM_U_BYTES_PER_S, PARAM_N_("host RAM bandwidth for offloaded layers (default 80GB/s)"),
           "100GB/s", PARAM_M_INFER, 0, PARAM_S_DOUBLE, SC(serving.host_bytes_per_s)),
    ROW(PARAM_HOST_CPU, "host-cpu", PARAM_T_ID, "ID", NULL, PARAM_U_NONE,
        PARAM_N_("host CPU from the catalog: its memory bandwidth"), "epyc-9654",
        PARAM_SCOPE_SCENARIO, PARAM_M_INFER, PARAM_F_ALIAS),
    [PARAM_CONCURRENCY] = {PARAM_CONCURRENCY, "concurrency", PARAM_T_INT, false, "N", 1, G16, NULL,
                           NULL, NULL, PARAM_U_COUNT,
                           PARAM_N_("sequences of --context tokens at once (inference's --batch)"),
                           "4", PARAM_SCOPE_SCENARIO, PARAM_M_INFER, PARAM_F_ALIAS, PARAM_S_NONE,
                           0},
    FLAG(PARAM_MAX_CONCURRENCY, "max-concurrency",
         PARAM_N_("run at the most concurrent sequences that fit"), PARAM_SCOPE_SCENARIO,
         PARAM_M_INFER, PARAM_F_ALIAS, PARAM_S_NONE, 0),
    FLAG(PARAM_KEEP_EMBEDDINGS_16BIT, "keep-embeddings-16bit",
         PARAM_N_("embedding and output head in 16-bit under a quantized format"),
         PARAM_SCOPE_SCENARIO, PARAM_M_INFER, 0, PARAM_S_BOOL, SC(serving.keep_embeddings_16bit)),
    [PARAM_RANK] = {PARAM_RANK, "rank", PARAM_T_ENUM, false, "R", 0, 0, rank_value, NULL,
                    "throughput", PARAM_U_NONE,
                    PARAM_N_("search: throughput (default) | latency | memory"), "latency",
                    PARAM_SCOPE_SESSION, PARAM_M_ALL, 0, PARAM_S_NONE, 0},
    /* a custom architecture */
    INT(PARAM_LAYERS, "layers", 1, G30, NULL, PARAM_U_COUNT,
        PARAM_N_("custom model: transformer layers"), "40", PARAM_M_ALL, PARAM_F_ARCH,
        SC(model.layers)),
    INT(PARAM_HIDDEN, "hidden", 1, G30, NULL, PARAM_U_COUNT, PARAM_N_("custom model: hidden size"),
        "5120", PARAM_M_ALL, PARAM_F_ARCH, SC(model.hidden)),
    INT(PARAM_HEADS, "heads", 1, G30, NULL, PARAM_U_COUNT,
        PARAM_N_("custom model: attention heads"), "64", PARAM_M_ALL, PARAM_F_ARCH,
        SC(model.heads)),
    INT(PARAM_KV_HEADS, "kv-heads", 1, G30, NULL, PARAM_U_COUNT,
        PARAM_N_("custom model: KV heads (default heads)"), "8", PARAM_M_ALL, PARAM_F_ARCH,
        SC(model.kv_heads)),
    INT(PARAM_HEAD_DIM, "head-dim", 1, G30, NULL, PARAM_U_COUNT,
        PARAM_N_("custom model: head size (default hidden/heads)"), "96", PARAM_M_ALL,
        PARAM_F_ARCH, SC(model.head_dim)),
    INT(PARAM_FFN, "ffn", 1, G30, NULL, PARAM_U_COUNT,
        PARAM_N_("custom model: MLP size (default 4*hidden)"), "13824", PARAM_M_ALL, PARAM_F_ARCH,
        SC(model.ffn)),
    INT(PARAM_VOCAB, "vocab", 1, G30, NULL, PARAM_U_COUNT,
        PARAM_N_("custom model: vocabulary size"), "50257", PARAM_M_ALL, PARAM_F_ARCH,
        SC(model.vocab)),
    [PARAM_TIED] = {PARAM_TIED, "tied", PARAM_T_SWITCH, true, "yes|no", 0, 0, yes_no_value,
                    switch_parse, "no", PARAM_U_NONE,
                    PARAM_N_("custom model: head tied to the embedding"), "yes",
                    PARAM_SCOPE_SCENARIO, PARAM_M_ALL, PARAM_F_ARCH, PARAM_S_BOOL,
                    SC(model.tied)},
    [PARAM_GATED] = {PARAM_GATED, "gated", PARAM_T_SWITCH, true, "yes|no", 0, 0, yes_no_value,
                     switch_parse, "no", PARAM_U_NONE,
                     PARAM_N_("custom model: gated (SwiGLU) MLP"), "yes", PARAM_SCOPE_SCENARIO,
                     PARAM_M_ALL, PARAM_F_ARCH, PARAM_S_BOOL, SC(model.gated)},
    [PARAM_BIAS] = {PARAM_BIAS, "bias", PARAM_T_ENUM, true, "none|qkv|all", 0, 0, bias_value, NULL,
                    "none", PARAM_U_NONE, PARAM_N_("custom model: biases (flag alone: all)"),
                    "qkv", PARAM_SCOPE_SCENARIO, PARAM_M_ALL, PARAM_F_ARCH, PARAM_S_ENUM,
                    SC(model.bias)},
    ENUM(PARAM_NORM, "norm", "rms|layer", norm_value, NULL, "rms",
         PARAM_N_("custom model: RMSNorm or LayerNorm"), "layer", PARAM_M_ALL, PARAM_F_ARCH, PARAM_S_ENUM,
         SC(model.norm)),
    [PARAM_POS_EMBEDDINGS] = {PARAM_POS_EMBEDDINGS, "pos-embeddings", PARAM_T_INT, false, "N", 0,
                              G30, NULL, NULL, "0", PARAM_U_TOKENS,
                              PARAM_N_("custom model: learned positions"), "2048",
                              PARAM_SCOPE_SCENARIO, PARAM_M_ALL, PARAM_F_ARCH, PARAM_S_U32,
                              SC(model.pos_embeddings)},
    [PARAM_EXPERTS] = {PARAM_EXPERTS, "experts", PARAM_T_INT, false, "N", 0, G30, NULL, NULL, "0",
                       PARAM_U_COUNT, PARAM_N_("custom model: MoE experts"), "8",
                       PARAM_SCOPE_SCENARIO, PARAM_M_ALL, PARAM_F_ARCH, PARAM_S_U32,
                       SC(model.experts)},
    INT(PARAM_ACTIVE_EXPERTS, "active-experts", 1, G30, NULL, PARAM_U_COUNT,
        PARAM_N_("custom model: experts per token"), "4", PARAM_M_ALL, PARAM_F_ARCH,
        SC(model.active_experts)),
    [PARAM_SHARED_EXPERTS] = {PARAM_SHARED_EXPERTS, "shared-experts", PARAM_T_INT, false, "N", 0,
                              G30, NULL, NULL, "0", PARAM_U_COUNT,
                              PARAM_N_("custom model: shared experts"), "1", PARAM_SCOPE_SCENARIO,
                              PARAM_M_ALL, PARAM_F_ARCH, PARAM_S_U32, SC(model.shared_experts)},
    /* a custom GPU */
    STORED(PARAM_GPU_MEMORY, "gpu-memory", PARAM_T_BYTES, "BYTES", NULL, PARAM_U_BYTES,
           PARAM_N_("custom GPU: memory, 80GiB"), "96GiB", PARAM_M_ALL, PARAM_F_CUSTOM_GPU,
           PARAM_S_DOUBLE, SC(gpu.memory_bytes)),
    STORED(PARAM_GPU_BANDWIDTH, "gpu-bandwidth", PARAM_T_BANDWIDTH, "BW", NULL,
           PARAM_U_BYTES_PER_S, PARAM_N_("custom GPU: bandwidth, 3.35TB/s"), "4TB/s", PARAM_M_ALL,
           PARAM_F_CUSTOM_GPU, PARAM_S_DOUBLE, SC(gpu.bandwidth_bytes_per_s)),
    STORED(PARAM_GPU_FLOPS, "gpu-flops", PARAM_T_FLOPS, "F", NULL, PARAM_U_FLOP_PER_S,
           PARAM_N_("custom GPU: 16-bit FLOP/s, 989T"), "1000T", PARAM_M_ALL, PARAM_F_CUSTOM_GPU,
           PARAM_S_NONE, 0),
    /* output and front ends */
    FLAG(PARAM_JSON, "json", PARAM_N_("print one JSON object"), PARAM_SCOPE_OUTPUT, PARAM_M_ALL, 0,
         PARAM_S_NONE, 0),
    FLAG(PARAM_EXPLAIN, "explain", PARAM_N_("plan: each figure's {key}, formula, values, source"),
         PARAM_SCOPE_OUTPUT, PARAM_M_ALL, 0, PARAM_S_NONE, 0),
    FLAG(PARAM_NO_COLOR, "no-color", PARAM_N_("explorer: no colours"), PARAM_SCOPE_EXPLORER,
         PARAM_M_ALL, 0, PARAM_S_NONE, 0),
    FLAG(PARAM_NO_MOUSE, "no-mouse", PARAM_N_("explorer: no mouse"), PARAM_SCOPE_EXPLORER,
         PARAM_M_ALL, 0, PARAM_S_NONE, 0),
    FLAG(PARAM_ASCII, "ascii", PARAM_N_("explorer: ASCII drawing only"), PARAM_SCOPE_EXPLORER,
         PARAM_M_ALL, 0, PARAM_S_NONE, 0),
    [PARAM_THEME] = {PARAM_THEME, "theme", PARAM_T_ENUM, false, "NAME", 0, 0, theme_value, theme_parse,
                     "dark", PARAM_U_NONE,
                     PARAM_N_("explorer: dark | light | high-contrast | mono"), "light",
                     PARAM_SCOPE_EXPLORER, PARAM_M_ALL, 0, PARAM_S_NONE, 0},
    ROW(PARAM_SCENARIO, "scenario", PARAM_T_PATH, "FILE", NULL, PARAM_U_NONE,
        PARAM_N_("start from a scenario file (docs/lessons.md)"), NULL, PARAM_SCOPE_SESSION,
        PARAM_M_ALL, 0),
    ROW(PARAM_LESSON, "lesson", PARAM_T_PATH, "FILE|NAME", NULL, PARAM_U_NONE,
        PARAM_N_("explorer: step through a lesson"), "seed-000", PARAM_SCOPE_EXPLORER, PARAM_M_ALL,
        0),
    FLAG(PARAM_FRESH, "fresh", PARAM_N_("explorer: do not restore the last scenario"),
         PARAM_SCOPE_EXPLORER, PARAM_M_ALL, 0, PARAM_S_NONE, 0),
    FLAG(PARAM_PRESENT, "present", PARAM_N_("explorer: start in presentation mode"),
         PARAM_SCOPE_EXPLORER, PARAM_M_ALL, 0, PARAM_S_NONE, 0),
    FLAG(PARAM_NOTES, "notes",
         PARAM_N_("with --lesson: the presenter notes of the step the room sees, not the explorer"),
         PARAM_SCOPE_EXPLORER, PARAM_M_ALL, 0, PARAM_S_NONE, 0),
    FLAG(PARAM_HELP, "help", PARAM_N_("show this help"), PARAM_SCOPE_HELP, PARAM_M_ALL, 0,
         PARAM_S_NONE, 0),
};

/* ---- lookups ---------------------------------------------------------------------- */

/* The row of a parameter. */
const struct param_info *param_info(enum param_id id) {
    return (unsigned)id < PARAM_COUNT ? &params[id] : NULL;
}

/* The row named name (len bytes), or NULL. */
const struct param_info *param_find(const char *name, size_t len) {
    for (size_t i = 0; i < PARAM_COUNT; i++)
        if (strlen(params[i].name) == len && strncmp(params[i].name, name, len) == 0)
            return &params[i];
    return NULL;
}

/* Whether a row is saved in a scenario file. */
bool param_in_file(const struct param_info *p) {
    return p && (p->scope == PARAM_SCOPE_SCENARIO || p->scope == PARAM_SCOPE_DISPLAY);
}

/* The row's i-th value name. */
const char *param_value_name(const struct param_info *p, unsigned i) {
    return p && p->value ? p->value(i) : NULL;
}

/* Parse an ENUM or SWITCH value. */
int param_value_parse(const struct param_info *p, const char *s, int *out) {
    if (!p || !s)
        return -1;
    if (p->parse)
        return p->parse(s, out);
    for (unsigned i = 0; p->value && p->value(i); i++)
        if (!strcmp(s, p->value(i))) {
            *out = (int)i;
            return 0;
        }
    return -1;
}

/* The row's plain field as a number. */
bool param_get(const struct engine_scenario *sc, enum param_id id, double *out) {
    const struct param_info *p = param_info(id);
    const char *at;
    if (!p || p->store == PARAM_S_NONE)
        return false;
    at = (const char *)sc + p->offset;
    switch (p->store) {
    case PARAM_S_U32:
        *out = *(const uint32_t *)(const void *)at;
        return true;
    case PARAM_S_DOUBLE:
        *out = *(const double *)(const void *)at;
        return true;
    case PARAM_S_BOOL:
        *out = *(const bool *)(const void *)at ? 1 : 0;
        return true;
    case PARAM_S_ENUM:
        *out = *(const int *)(const void *)at;
        return true;
    default:
        return false;
    }
}

/* Store a number into the row's plain field. */
bool param_set(struct engine_scenario *sc, enum param_id id, double v) {
    const struct param_info *p = param_info(id);
    char *at;
    if (!p || p->store == PARAM_S_NONE)
        return false;
    at = (char *)sc + p->offset;
    switch (p->store) {
    case PARAM_S_U32:
        *(uint32_t *)(void *)at = (uint32_t)v;
        return true;
    case PARAM_S_DOUBLE:
        *(double *)(void *)at = v;
        return true;
    case PARAM_S_BOOL:
        *(bool *)(void *)at = v != 0;
        return true;
    case PARAM_S_ENUM:
        *(int *)(void *)at = (int)v;
        return true;
    default:
        return false;
    }
}
