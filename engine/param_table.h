/*
 * param_table.h: the parameter table, every scenario parameter (and every other
 * option of vramlab's commands) once, modelled on tmux's options-table.c.
 *
 * One row per parameter: its long name (the command-line option and the
 * scenario-file key), its type (with the multiplier rule of a size), its
 * range, its default, its unit, a translatable help line, which modes use
 * it, whether the explorer sets it, and where it lives in struct
 * engine_scenario when it is one plain field there. Everything else is
 * generated from it: the one argv parser (tui/options.c over
 * kernels/argv.c), `--help` and the man page's option list, the scenario
 * reader and writer (last.yaml included), the TUI field list's parameters
 * (tui/state_fields.c), the lesson step reader (a step's scenario is a
 * scenario file's mapping). tests/test_params.c walks the table.
 *
 * Multiplier rules (one per type, stated in --help):
 *  - PARAM_T_TOKENS, tokens of a sequence or a batch: binary, k = 1024 and
 *    M = 1024k, as model cards mean "128K context" (131,072 tokens);
 *  - PARAM_T_AMOUNT, parameter counts and token budgets: decimal, K = 10^3,
 *    M = 10^6, B = 10^9, T = 10^12 ("15.6T tokens", "70B");
 *  - sizes with a unit (bytes, bytes/s, FLOP/s, seconds, prices): the unit
 *    says it, GB = 10^9 and GiB = 2^30 (catalog/units.c, docs/catalog.md).
 *
 * Pure data and lookups: no I/O, no allocation. The help texts are msgids
 * marked with PARAM_N_ (po/Makevars); the front end translates them.
 */
#ifndef VRAMLAB_PARAM_TABLE_H
#define VRAMLAB_PARAM_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/engine.h"

/* Marks a translatable string for xgettext (the front end calls gettext). */
#define PARAM_N_(s) s

/* Every parameter, in the order of --help and of a saved scenario. */
enum param_id {
    PARAM_MODEL = 0,
    PARAM_PARAMS,
    PARAM_MODEL_CONFIG,
    PARAM_MODEL_FILE,
    PARAM_FORMAT,
    PARAM_KV_FORMAT,
    PARAM_GPU,
    PARAM_DEVICE,
    PARAM_SYSTEM,
    PARAM_GPUS,
    PARAM_TP,
    PARAM_PP,
    PARAM_DP,
    PARAM_ZERO,
    PARAM_MEMORY_CONVENTION,
    PARAM_OFFLOAD,
    PARAM_HOST_LINK_BW,
    PARAM_MODE,
    PARAM_BATCH,
    PARAM_CONTEXT,
    PARAM_PROMPT,
    PARAM_MICRO_BATCHES,
    PARAM_GLOBAL_BATCH,
    PARAM_MICRO_BATCH_SIZE,
    PARAM_RECOMPUTE,
    PARAM_OPTIMIZER,
    PARAM_MFU,
    PARAM_TOKENS,
    PARAM_THROUGHPUT,
    PARAM_DATASET,
    PARAM_DATASET_TOKENS,
    PARAM_EPOCHS,
    PARAM_UNITS,
    PARAM_RESERVE,
    PARAM_CATALOG,
    PARAM_SEQUENCE_PARALLEL,
    PARAM_INTERLEAVE,
    PARAM_EP,
    PARAM_RECOMPUTE_METHOD,
    PARAM_RECOMPUTE_NUM_LAYERS,
    PARAM_CP,
    PARAM_MOE_IMBALANCE,
    PARAM_RECOMPUTE_MODULES,
    PARAM_FINE_TUNE,
    PARAM_ATTENTION_EFFICIENCY,
    PARAM_GPUS_PER_NODE,
    PARAM_INTRA_BW,
    PARAM_INTER_BW,
    PARAM_ALLREDUCE_LATENCY,
    PARAM_BW_EFFICIENCY,
    PARAM_FLOPS_EFFICIENCY,
    PARAM_FLOPS_MODEL,
    PARAM_LORA_RANK,
    PARAM_PRICE,
    PARAM_MEASURED_BW,
    PARAM_MEASURED_FLOPS,
    PARAM_MEASURED_ALLREDUCE,
    /* serving: runtimes, concurrency, offload */
    PARAM_RUNTIME,
    PARAM_GPU_MEMORY_UTILIZATION,
    PARAM_BLOCK_SIZE,
    PARAM_MAX_NUM_BATCHED_TOKENS,
    PARAM_MAX_NUM_SEQS,
    PARAM_MAX_MODEL_LEN,
    PARAM_MEM_FRACTION_STATIC,
    PARAM_FREE_GPU_MEMORY_FRACTION,
    PARAM_CUDA_GRAPH_MEMORY,
    PARAM_REQUEST_RATE,
    PARAM_UBATCH,
    PARAM_FLASH_ATTENTION,
    PARAM_FIT,
    PARAM_GPU_LAYERS,
    PARAM_N_CPU_MOE,
    PARAM_HOST_BANDWIDTH,
    PARAM_HOST_CPU,
    PARAM_CONCURRENCY,
    PARAM_MAX_CONCURRENCY,
    PARAM_KEEP_EMBEDDINGS_16BIT,
    PARAM_RANK,
    /* custom architecture (first to last: keep together) */
    PARAM_LAYERS,
    PARAM_HIDDEN,
    PARAM_HEADS,
    PARAM_KV_HEADS,
    PARAM_HEAD_DIM,
    PARAM_FFN,
    PARAM_VOCAB,
    PARAM_TIED,
    PARAM_GATED,
    PARAM_BIAS,
    PARAM_NORM,
    PARAM_POS_EMBEDDINGS,
    PARAM_EXPERTS,
    PARAM_ACTIVE_EXPERTS,
    PARAM_SHARED_EXPERTS,
    /* custom GPU */
    PARAM_GPU_MEMORY,
    PARAM_GPU_BANDWIDTH,
    PARAM_GPU_FLOPS,
    /* output and front ends */
    PARAM_JSON,
    PARAM_EXPLAIN,
    PARAM_NO_COLOR,
    PARAM_NO_MOUSE,
    PARAM_ASCII,
    PARAM_THEME,
    PARAM_SCENARIO,
    PARAM_LESSON,
    PARAM_FRESH,
    PARAM_PRESENT,
    PARAM_NOTES,
    PARAM_HELP,
    PARAM_COUNT
};

/* What a value is, and so how it is read and written. */
enum param_type {
    PARAM_T_FLAG = 0,  /* no value on the command line; true/false in a file */
    PARAM_T_SWITCH,    /* an optional yes/no (on/off) value; alone: yes */
    PARAM_T_INT,       /* a whole number in [min, max] */
    PARAM_T_TOKENS,    /* a whole number of tokens in [min, max]; k = 1024, M = 1024k */
    PARAM_T_AMOUNT,    /* a count; K, M, B, T decimal */
    PARAM_T_RATIO,     /* a fraction in (min, max], 0.4 or 40% */
    PARAM_T_NUMBER,    /* a decimal number in [min, max] */
    PARAM_T_BYTES,     /* bytes with a unit: 80GiB, 1GB */
    PARAM_T_BANDWIDTH, /* bytes/s with a unit: 3.35TB/s */
    PARAM_T_FLOPS,     /* FLOP/s with a unit: 989T */
    PARAM_T_SECONDS,   /* seconds with a unit: 5us */
    PARAM_T_PRICE,     /* US dollars per GPU-hour: 2.49 or $2.49/h */
    PARAM_T_ENUM,      /* one of the row's values */
    PARAM_T_ID,        /* a catalog id */
    PARAM_T_PATH,      /* a file */
    PARAM_T_TEXT,      /* its own syntax, said in the help */
    PARAM_T_COUNT
};

/* The unit a value is in, once read (base units). */
enum param_unit {
    PARAM_U_NONE = 0,
    PARAM_U_COUNT,       /* plain number of things (GPUs, layers, sequences) */
    PARAM_U_TOKENS,
    PARAM_U_PARAMETERS,
    PARAM_U_BYTES,
    PARAM_U_BYTES_PER_S,
    PARAM_U_FLOP_PER_S,
    PARAM_U_SECONDS,
    PARAM_U_TOKENS_PER_S,
    PARAM_U_USD_PER_HOUR,
    PARAM_U_RATIO,
    PARAM_U_REQUESTS_PER_S,
};

/* Which part of a run a parameter belongs to. */
enum param_scope {
    PARAM_SCOPE_SCENARIO = 0, /* the scenario: saved, restored, in lessons */
    PARAM_SCOPE_DISPLAY,      /* how figures are shown (units): saved, kept by the session */
    PARAM_SCOPE_SESSION,      /* the run itself: --catalog, --scenario, --rank */
    PARAM_SCOPE_OUTPUT,       /* the commands' output: --json, --explain */
    PARAM_SCOPE_EXPLORER,     /* the explorer's session: --theme, --lesson, ... */
    PARAM_SCOPE_HELP,
};

/* The modes a parameter means something in (bit 1 << enum engine_mode). */
#define PARAM_M_INFER    (1u << ENGINE_MODE_INFER)
#define PARAM_M_TRAIN    (1u << ENGINE_MODE_TRAIN)
#define PARAM_M_LORA     (1u << ENGINE_MODE_LORA)
#define PARAM_M_QLORA    (1u << ENGINE_MODE_QLORA)
#define PARAM_M_TRAINING (PARAM_M_TRAIN | PARAM_M_LORA | PARAM_M_QLORA)
#define PARAM_M_ALL      (PARAM_M_INFER | PARAM_M_TRAINING)

/* Flags of a row. */
enum {
    PARAM_F_TUI = 1u << 0,    /* the explorer sets it (a field or a key); else CLI-only */
    PARAM_F_ALIAS = 1u << 1,  /* sets what other rows hold: saved as those */
    PARAM_F_ARCH = 1u << 2,   /* a custom architecture's field */
    PARAM_F_CUSTOM_GPU = 1u << 3, /* a custom GPU's figure */
};

/* How a row's value is stored in struct engine_scenario, when it is one
 * plain field there (PARAM_S_NONE: the front end resolves it). */
enum param_store {
    PARAM_S_NONE = 0,
    PARAM_S_U32,
    PARAM_S_DOUBLE,
    PARAM_S_BOOL,
    PARAM_S_ENUM, /* a C enum, read and written as int */
};

struct param_info {
    enum param_id id;
    const char *name;    /* the long option without dashes; the file key is the same */
    enum param_type type;
    bool value_optional; /* --name alone is allowed (a SWITCH, --bias, --fit) */
    const char *metavar; /* shown in --help: N, BW, FILE; NULL for a flag */
    double min, max;     /* INT, TOKENS: the whole numbers allowed; RATIO: (min, max] */
    /* ENUM and SWITCH: the i-th accepted name (NULL past the last), and
     * an optional parser that also takes aliases ("inference"); 0 or -1. */
    const char *(*value)(unsigned i);
    int (*parse)(const char *s, int *out);
    const char *def;     /* the default as it would be written; NULL: derived (the help says) */
    enum param_unit unit;
    const char *help;    /* one line, PARAM_N_() */
    const char *example; /* a valid value: tests, the man page */
    enum param_scope scope;
    unsigned modes;      /* PARAM_M_* */
    unsigned flags;      /* PARAM_F_* */
    enum param_store store;
    size_t offset;       /* of the field in struct engine_scenario (store != NONE) */
};

/* The row of a parameter (the table is in enum order). */
const struct param_info *param_info(enum param_id id);
/* The row named name (len bytes, without dashes), or NULL. */
const struct param_info *param_find(const char *name, size_t len);
/* Whether a row is saved in a scenario file (scenario and display scopes). */
bool param_in_file(const struct param_info *p);
/* The row's i-th accepted value name (ENUM, SWITCH), or NULL. */
const char *param_value_name(const struct param_info *p, unsigned i);
/* Parse an ENUM or SWITCH value to its index (aliases too); 0, or -1. */
int param_value_parse(const struct param_info *p, const char *s, int *out);
/* The row's plain field read as a number (enums and bools as 0, 1, ...);
 * false when the row is not stored in the scenario. */
bool param_get(const struct engine_scenario *sc, enum param_id id, double *out);
/* Store a number into the row's plain field (converted to its type);
 * false when the row is not stored in the scenario. */
bool param_set(struct engine_scenario *sc, enum param_id id, double v);

#endif
