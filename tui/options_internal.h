/*
 * options_internal.h: what tui/options.c (the first pass, help) and
 * tui/options_build.c (value parsers, the second pass that builds the
 * scenario) share. The table and the helpers both use are in
 * tui/options_table.c, below both. Not for other modules: they use
 * tui/commands.h.
 */
#ifndef VRAMLAB_OPTIONS_INTERNAL_H
#define VRAMLAB_OPTIONS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tui/commands.h"

enum opt_arg { ARG_NONE = 0, ARG_REQUIRED, ARG_OPTIONAL };

enum opt_id {
    OPT_MODEL = 0,
    OPT_PARAMS,
    OPT_MODEL_CONFIG,
    OPT_FORMAT,
    OPT_KV_FORMAT,
    OPT_GPU,
    OPT_SYSTEM,
    OPT_GPUS,
    OPT_TP,
    OPT_PP,
    OPT_DP,
    OPT_ZERO,
    OPT_MEMORY_CONVENTION,
    OPT_OFFLOAD,
    OPT_HOST_LINK_BW,
    OPT_MODE,
    OPT_BATCH,
    OPT_CONTEXT,
    OPT_PROMPT,
    OPT_MICRO_BATCHES,
    OPT_GLOBAL_BATCH,
    OPT_MICRO_BATCH_SIZE,
    OPT_RECOMPUTE,
    OPT_OPTIMIZER,
    OPT_MFU,
    OPT_TOKENS,
    OPT_THROUGHPUT,
    OPT_DATASET,
    OPT_DATASET_TOKENS,
    OPT_EPOCHS,
    OPT_UNITS,
    OPT_RESERVE,
    OPT_CATALOG,
    OPT_SEQUENCE_PARALLEL,
    OPT_INTERLEAVE,
    OPT_EP,
    OPT_RECOMPUTE_METHOD,
    OPT_RECOMPUTE_NUM_LAYERS,
    OPT_GPUS_PER_NODE,
    OPT_INTRA_BW,
    OPT_INTER_BW,
    OPT_ALLREDUCE_LATENCY,
    OPT_BW_EFFICIENCY,
    OPT_FLOPS_EFFICIENCY,
    OPT_FLOPS_MODEL,
    OPT_LORA_RANK,
    OPT_PRICE,
    OPT_MEASURED_BW,
    OPT_MEASURED_FLOPS,
    OPT_MEASURED_ALLREDUCE,
    /* serving (tui/options_serving.c): runtimes, concurrency, offload */
    OPT_RUNTIME,
    OPT_GPU_MEMORY_UTILIZATION,
    OPT_BLOCK_SIZE,
    OPT_MAX_NUM_BATCHED_TOKENS,
    OPT_MAX_NUM_SEQS,
    OPT_MAX_MODEL_LEN,
    OPT_MEM_FRACTION_STATIC,
    OPT_FREE_GPU_MEMORY_FRACTION,
    OPT_CUDA_GRAPH_MEMORY,
    OPT_REQUEST_RATE,
    OPT_UBATCH,
    OPT_FLASH_ATTENTION,
    OPT_FIT,
    OPT_GPU_LAYERS,
    OPT_N_CPU_MOE,
    OPT_HOST_BANDWIDTH,
    OPT_HOST_CPU,
    OPT_CONCURRENCY,
    OPT_MAX_CONCURRENCY,
    OPT_KEEP_EMBEDDINGS_16BIT,
    OPT_RANK,
    /* custom architecture (first to last: keep together) */
    OPT_LAYERS,
    OPT_HIDDEN,
    OPT_HEADS,
    OPT_KV_HEADS,
    OPT_HEAD_DIM,
    OPT_FFN,
    OPT_VOCAB,
    OPT_TIED,
    OPT_GATED,
    OPT_BIAS,
    OPT_NORM,
    OPT_POS_EMBEDDINGS,
    OPT_EXPERTS,
    OPT_ACTIVE_EXPERTS,
    OPT_SHARED_EXPERTS,
    /* custom GPU */
    OPT_GPU_MEMORY,
    OPT_GPU_BANDWIDTH,
    OPT_GPU_FLOPS,
    /* output and front ends */
    OPT_JSON,
    OPT_EXPLAIN,
    OPT_NO_COLOR,
    OPT_NO_MOUSE,
    OPT_ASCII,
    OPT_THEME,
    OPT_SCENARIO,
    OPT_LESSON,
    OPT_FRESH,
    OPT_PRESENT,
    OPT_HELP,
    OPT_MODEL_FILE,
    OPT_COUNT
};

struct opt_def {
    enum opt_id id;
    const char *name;
    enum opt_arg arg;
    const char *metavar;
    const char *help;
};

/* What the first pass saw: the last value of each option. */
struct opt_seen {
    bool set[OPT_COUNT];
    const char *val[OPT_COUNT];
};

/* The table (tui/options_table.c), in enum order. */
extern const struct opt_def opt_table[];
extern const size_t opt_table_len;
/* The option named name (len bytes, without dashes), or NULL. */
const struct opt_def *opt_find(const char *name, size_t len);
/* The name (without dashes) of an option. */
const char *opt_name(enum opt_id id);

/* Print "vramlab: " and a formatted message to stderr. */
void opt_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A token count: an integer, or 8k, 128K, 1.5k, 1M (k = 1024, M = 1024k). */
int opt_tokens(const char *flag, const char *s, bool allow_zero, uint32_t *out);
/* A positive (or, with allow_zero, non-negative) integer up to max. */
int opt_uint(const char *flag, const char *s, bool allow_zero, unsigned long max, uint32_t *out);
/* Choose the model: --model-config, --model, --params or an architecture. */
int opt_model(const struct opt_seen *s, const struct catalog *cat, struct options *o);
/* Look up a format by id, with suggestions on failure. */
int opt_format(const struct catalog *cat, const char *flag, const char *id, bool given,
               struct engine_format *out);
/* Choose the GPU (catalog or custom) and apply --gpu-* overrides. */
int opt_gpu(const struct opt_seen *s, const struct catalog *cat, struct options *o);
/* Work out G, t, p, d from what was given; check the combination. */
int opt_layout(const struct opt_seen *s, struct options *o);
/* Workload, training and communication options. */
int opt_workload(const struct opt_seen *s, struct options *o);
/* Training batch defaults once the layout is settled: with neither
 * --global-batch nor --micro-batches, the model's published global batch
 * (catalog global_batch_tokens) sets the micro-batches. */
void opt_train_batch_defaults(const struct opt_seen *s, struct options *o);
/* Value parsers of tui/options_build.c that the serving options share. */
int opt_fraction(const char *flag, const char *s, double *out);
int opt_unit(const char *flag, const char *s,
             int (*parse)(const char *, double *, char *, size_t), double *out);
/* --memory-convention, --offload, --host-link-bw (tui/options_build.c). */
int opt_zero_offload(const struct opt_seen *s, struct options *o);
int opt_rate(const char *flag, const char *s,
             int (*parse)(const char *, double *, char *, size_t), double *out);
/* Runtime, concurrency and offload options, after the workload
 * (tui/options_serving.c); and the runtime's defaults for what was not
 * given (its context, reserve). Returns 0 or -1 (message printed). */
int opt_serving(const struct opt_seen *s, const struct catalog *cat, struct options *o);

#endif
