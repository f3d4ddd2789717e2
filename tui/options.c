/*
 * options.c: the scenario options shared by `vramlab plan|search` and the
 * explorer (product.md "Scenario options"), and the catalog loading every
 * command does.
 *
 * Options are a table {name, argument kind, help} (tmux's options-table).
 * Parsing is two passes: the first records the last value of each option
 * (GNU style: `--opt value` or `--opt=value`, in any order); the second
 * builds the scenario in a fixed order (mode, model, overrides, formats,
 * GPU, layout, workload) so that, e.g., `--layers 40 --model x` overrides the
 * catalog model whatever the order on the command line.
 *
 * Defaults (documented in the man page): model llama-3.1-8b; weight format
 * fp16 for inference, bf16 for training and LoRA, nf4 for QLoRA; KV cache
 * fp16; GPU h100-sxm; one GPU. With only --gpus N, TP is the largest divisor
 * of N that fits in a node (--gpus-per-node, else the GPU's) and divides
 * the attention heads; PP is 1; the rest is DP.
 *
 * A custom architecture (--layers ... without --model) starts from a plain
 * transformer: ungated MLP, untied head, no biases, RMSNorm, rotary
 * positions, FFN 4*hidden, as many KV heads as heads, head_dim
 * hidden/heads; the flags add what the model has.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "tui/commands.h"
#include "tui/i18n.h"

enum opt_arg { ARG_NONE = 0, ARG_REQUIRED, ARG_OPTIONAL };

enum opt_id {
    OPT_MODEL = 0,
    OPT_PARAMS,
    OPT_MODEL_CONFIG,
    OPT_FORMAT,
    OPT_KV_FORMAT,
    OPT_GPU,
    OPT_GPUS,
    OPT_TP,
    OPT_PP,
    OPT_DP,
    OPT_ZERO,
    OPT_MODE,
    OPT_BATCH,
    OPT_CONTEXT,
    OPT_PROMPT,
    OPT_MICRO_BATCHES,
    OPT_RECOMPUTE,
    OPT_OPTIMIZER,
    OPT_MFU,
    OPT_TOKENS,
    OPT_UNITS,
    OPT_RESERVE,
    OPT_CATALOG,
    OPT_SEQUENCE_PARALLEL,
    OPT_INTERLEAVE,
    OPT_GPUS_PER_NODE,
    OPT_INTRA_BW,
    OPT_INTER_BW,
    OPT_ALLREDUCE_LATENCY,
    OPT_BW_EFFICIENCY,
    OPT_FLOPS_EFFICIENCY,
    OPT_LORA_RANK,
    OPT_PRICE,
    OPT_MEASURED_BW,
    OPT_MEASURED_FLOPS,
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
    OPT_COUNT
};

struct opt_def {
    enum opt_id id;
    const char *name;
    enum opt_arg arg;
    const char *metavar;
    const char *help;
};

/* The options table: every scenario option of product.md and more. */
static const struct opt_def opt_table[] = {
    {OPT_MODEL, "model", ARG_REQUIRED, "ID", N_("catalog model (default llama-3.1-8b)")},
    {OPT_PARAMS, "params", ARG_REQUIRED, "N", N_("bare model size instead: 70B, 405e9")},
    {OPT_MODEL_CONFIG, "model-config", ARG_REQUIRED, "FILE", N_("a Hugging Face config.json")},
    {OPT_FORMAT, "format", ARG_REQUIRED, "ID", N_("weight format (default fp16; bf16 training)")},
    {OPT_KV_FORMAT, "kv-format", ARG_REQUIRED, "ID", N_("KV cache format (default fp16)")},
    {OPT_GPU, "gpu", ARG_REQUIRED, "ID", N_("catalog GPU (default h100-sxm)")},
    {OPT_GPUS, "gpus", ARG_REQUIRED, "N", N_("number of GPUs (default tp*pp*dp, or 1)")},
    {OPT_TP, "tp", ARG_REQUIRED, "N", N_("tensor-parallel degree")},
    {OPT_PP, "pp", ARG_REQUIRED, "N", N_("pipeline-parallel degree")},
    {OPT_DP, "dp", ARG_REQUIRED, "N", N_("data-parallel degree")},
    {OPT_ZERO, "zero", ARG_REQUIRED, "0..3", N_("ZeRO stage")},
    {OPT_MODE, "mode", ARG_REQUIRED, "MODE", N_("infer | train | lora | qlora")},
    {OPT_BATCH, "batch", ARG_REQUIRED, "N", N_("sequences per replica (default 1)")},
    {OPT_CONTEXT, "context", ARG_REQUIRED, "N", N_("tokens per sequence (default 4096)")},
    {OPT_PROMPT, "prompt", ARG_REQUIRED, "N", N_("prefill tokens (default: the context)")},
    {OPT_MICRO_BATCHES, "micro-batches", ARG_REQUIRED, "N", N_("micro-batches per step")},
    {OPT_RECOMPUTE, "recompute", ARG_REQUIRED, "R", N_("none | selective | full")},
    {OPT_OPTIMIZER, "optimizer", ARG_REQUIRED, "RECIPE", N_("training recipe (default adam-mixed)")},
    {OPT_MFU, "mfu", ARG_REQUIRED, "X", N_("model FLOP utilisation (0.4 or 40%)")},
    {OPT_TOKENS, "tokens", ARG_REQUIRED, "N", N_("training tokens: 15.6T")},
    {OPT_UNITS, "units", ARG_REQUIRED, "U", N_("gb (1e9, default) | gib (2^30)")},
    {OPT_RESERVE, "reserve", ARG_REQUIRED, "BYTES", N_("per-GPU reserve: 1GB, 512MiB")},
    {OPT_CATALOG, "catalog", ARG_REQUIRED, "FILE", N_("extra catalog YAML file")},
    {OPT_SEQUENCE_PARALLEL, "sequence-parallel", ARG_NONE, NULL, N_("sequence parallelism with TP")},
    {OPT_INTERLEAVE, "interleave", ARG_REQUIRED, "V", N_("virtual pipeline stages per GPU")},
    {OPT_GPUS_PER_NODE, "gpus-per-node", ARG_REQUIRED, "N", N_("GPUs per node (default: the GPU's)")},
    {OPT_INTRA_BW, "intra-node-bw", ARG_REQUIRED, "BW", N_("per-GPU link bandwidth: 900GB/s")},
    {OPT_INTER_BW, "inter-node-bw", ARG_REQUIRED, "BW", N_("per-GPU network bandwidth: 50GB/s")},
    {OPT_ALLREDUCE_LATENCY, "allreduce-latency", ARG_REQUIRED, "T", N_("per all-reduce: 5us")},
    {OPT_BW_EFFICIENCY, "bw-efficiency", ARG_REQUIRED, "X", N_("fraction of data-sheet bandwidth")},
    {OPT_FLOPS_EFFICIENCY, "flops-efficiency", ARG_REQUIRED, "X", N_("fraction of data-sheet FLOP/s")},
    {OPT_LORA_RANK, "lora-rank", ARG_REQUIRED, "R", N_("LoRA rank")},
    {OPT_PRICE, "price", ARG_REQUIRED, "USD", N_("price per GPU-hour: 2.49 or $2.49/h")},
    {OPT_MEASURED_BW, "measured-bw", ARG_REQUIRED, "BW",
     N_("calibrate: measured bandwidth per GPU instead of the data sheet, 3.0TB/s")},
    {OPT_MEASURED_FLOPS, "measured-flops", ARG_REQUIRED, "F",
     N_("calibrate: measured FLOP/s per GPU instead of the data sheet, 700T")},
    {OPT_LAYERS, "layers", ARG_REQUIRED, "N", N_("custom model: transformer layers")},
    {OPT_HIDDEN, "hidden", ARG_REQUIRED, "N", N_("custom model: hidden size")},
    {OPT_HEADS, "heads", ARG_REQUIRED, "N", N_("custom model: attention heads")},
    {OPT_KV_HEADS, "kv-heads", ARG_REQUIRED, "N", N_("custom model: KV heads (default heads)")},
    {OPT_HEAD_DIM, "head-dim", ARG_REQUIRED, "N", N_("custom model: head size (default hidden/heads)")},
    {OPT_FFN, "ffn", ARG_REQUIRED, "N", N_("custom model: MLP size (default 4*hidden)")},
    {OPT_VOCAB, "vocab", ARG_REQUIRED, "N", N_("custom model: vocabulary size")},
    {OPT_TIED, "tied", ARG_OPTIONAL, "yes|no", N_("custom model: head tied to the embedding")},
    {OPT_GATED, "gated", ARG_OPTIONAL, "yes|no", N_("custom model: gated (SwiGLU) MLP")},
    {OPT_BIAS, "bias", ARG_OPTIONAL, "none|qkv|all", N_("custom model: biases (flag alone: all)")},
    {OPT_NORM, "norm", ARG_REQUIRED, "rms|layer", N_("custom model: RMSNorm or LayerNorm")},
    {OPT_POS_EMBEDDINGS, "pos-embeddings", ARG_REQUIRED, "N", N_("custom model: learned positions")},
    {OPT_EXPERTS, "experts", ARG_REQUIRED, "N", N_("custom model: MoE experts")},
    {OPT_ACTIVE_EXPERTS, "active-experts", ARG_REQUIRED, "N", N_("custom model: experts per token")},
    {OPT_SHARED_EXPERTS, "shared-experts", ARG_REQUIRED, "N", N_("custom model: shared experts")},
    {OPT_GPU_MEMORY, "gpu-memory", ARG_REQUIRED, "BYTES", N_("custom GPU: memory, 80GiB")},
    {OPT_GPU_BANDWIDTH, "gpu-bandwidth", ARG_REQUIRED, "BW", N_("custom GPU: bandwidth, 3.35TB/s")},
    {OPT_GPU_FLOPS, "gpu-flops", ARG_REQUIRED, "F", N_("custom GPU: 16-bit FLOP/s, 989T")},
    {OPT_JSON, "json", ARG_NONE, NULL, N_("print one JSON object")},
    {OPT_EXPLAIN, "explain", ARG_NONE, NULL, N_("plan: each figure's formula, values, source")},
    {OPT_NO_COLOR, "no-color", ARG_NONE, NULL, N_("explorer: no colours")},
    {OPT_NO_MOUSE, "no-mouse", ARG_NONE, NULL, N_("explorer: no mouse")},
    {OPT_ASCII, "ascii", ARG_NONE, NULL, N_("explorer: ASCII drawing only")},
    {OPT_THEME, "theme", ARG_REQUIRED, "NAME", N_("explorer: dark | light | high-contrast")},
    {OPT_SCENARIO, "scenario", ARG_REQUIRED, "FILE", N_("start from a scenario file (docs/lessons.md)")},
    {OPT_LESSON, "lesson", ARG_REQUIRED, "FILE|NAME", N_("explorer: step through a lesson")},
    {OPT_FRESH, "fresh", ARG_NONE, NULL, N_("explorer: do not restore the last scenario")},
    {OPT_PRESENT, "present", ARG_NONE, NULL, N_("explorer: start in presentation mode")},
    {OPT_HELP, "help", ARG_NONE, NULL, N_("show this help")},
};
#define OPT_TABLE_LEN (sizeof(opt_table) / sizeof(opt_table[0]))

/* What the first pass saw: the last value of each option. */
struct opt_seen {
    bool set[OPT_COUNT];
    const char *val[OPT_COUNT];
};

/* Print "vramlab: " and a formatted message to stderr. */
static void opt_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print "vramlab: " and a formatted message to stderr. */
static void opt_error(const char *fmt, ...) {
    va_list ap;
    fputs("vramlab: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, _(fmt), ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* Levenshtein distance between two short strings (capped at 63 chars). */
static size_t opt_distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    size_t row[64];

    if (la > 63)
        la = 63;
    if (lb > 63)
        lb = 63;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t best = diag + cost;
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* Write up to n names of `names` closest to `word` into out (a distance
 * below about a third of the length, or a prefix); returns how many. */
size_t options_closest(const char *word, const char *const *names, size_t n_names, const char **out,
                       size_t n) {
    size_t count = 0;
    size_t wl = strlen(word);
    size_t limit = wl / 3 + 1;

    if (limit < 2)
        limit = 2;
    /* Closest first: scan by increasing distance. */
    for (size_t d = 0; d <= limit && count < n; d++) {
        for (size_t i = 0; i < n_names && count < n; i++) {
            size_t dist = opt_distance(word, names[i]);
            bool prefix = wl >= 2 && strncmp(names[i], word, wl) == 0;
            if (prefix && dist > limit)
                dist = limit; /* "--micro" still finds "--micro-batches" */
            if (dist == d)
                out[count++] = names[i];
        }
    }
    return count;
}

/* The option named name (without dashes), or NULL. */
static const struct opt_def *opt_find(const char *name, size_t len) {
    for (size_t i = 0; i < OPT_TABLE_LEN; i++) {
        if (strlen(opt_table[i].name) == len && strncmp(opt_table[i].name, name, len) == 0)
            return &opt_table[i];
    }
    return NULL;
}

/* Tell the user an option is unknown, with the closest names. */
static void opt_unknown(const char *arg) {
    const char *names[OPT_TABLE_LEN];
    const char *close[3];
    char word[64];
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    size_t n;

    while (len > 0 && *arg == '-') {
        arg++;
        len--;
    }
    if (len >= sizeof(word))
        len = sizeof(word) - 1;
    memcpy(word, arg, len);
    word[len] = '\0';
    for (size_t i = 0; i < OPT_TABLE_LEN; i++)
        names[i] = opt_table[i].name;
    n = options_closest(word, names, OPT_TABLE_LEN, close, 3);
    if (n == 0) {
        opt_error("unknown option '--%s' (see --help)", word);
        return;
    }
    fprintf(stderr, _("vramlab: unknown option '--%s'; did you mean"), word);
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, "%s --%s", i ? "," : "", close[i]);
    fputs("?\n", stderr);
}

/* Whether an option belongs to the explorer's session only (printed by
 * options_print_explorer_help, not by the commands' --help). */
static bool options_is_session(enum opt_id id) {
    return id == OPT_LESSON || id == OPT_FRESH || id == OPT_PRESENT;
}

/* One help line of an option. */
static void options_print_line(FILE *f, const struct opt_def *d) {
    char left[48];
    if (d->arg == ARG_REQUIRED)
        snprintf(left, sizeof(left), "--%s %s", d->name, d->metavar);
    else if (d->arg == ARG_OPTIONAL)
        snprintf(left, sizeof(left), "--%s[=%s]", d->name, d->metavar);
    else
        snprintf(left, sizeof(left), "--%s", d->name);
    fprintf(f, "  %-26s %s\n", left, _(d->help));
}

/* Print the explorer's own options (lesson, presentation, restore). */
void options_print_explorer_help(FILE *f) {
    for (size_t i = 0; i < OPT_TABLE_LEN; i++) {
        if (options_is_session(opt_table[i].id))
            options_print_line(f, &opt_table[i]);
    }
}

/* Whether argv sets any scenario option (anything that changes the
 * scenario, as opposed to the session: theme, colours, catalog, ...). */
bool options_has_scenario_flags(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *name, *eq;
        const struct opt_def *d;
        if (!strcmp(arg, "--"))
            break;
        if (strncmp(arg, "--", 2) != 0)
            continue;
        name = arg + 2;
        eq = strchr(name, '=');
        d = opt_find(name, eq ? (size_t)(eq - name) : strlen(name));
        if (!d)
            continue;
        switch (d->id) {
        case OPT_CATALOG:
        case OPT_JSON:
        case OPT_EXPLAIN:
        case OPT_NO_COLOR:
        case OPT_NO_MOUSE:
        case OPT_ASCII:
        case OPT_THEME:
        case OPT_HELP:
        case OPT_LESSON:
        case OPT_FRESH:
        case OPT_PRESENT:
        case OPT_SCENARIO:
        case OPT_UNITS:
            break;
        default:
            return true;
        }
        if (d->arg == ARG_REQUIRED && !eq)
            i++; /* skip the value */
    }
    return false;
}

/* Print the scenario options table to f (for every command's --help). */
void options_print_help(FILE *f) {
    for (size_t i = 0; i < OPT_TABLE_LEN; i++) {
        const struct opt_def *d = &opt_table[i];
        if (d->id == OPT_HELP || d->id == OPT_NO_COLOR || d->id == OPT_NO_MOUSE ||
            d->id == OPT_ASCII || d->id == OPT_THEME || d->id == OPT_JSON || d->id == OPT_EXPLAIN ||
            options_is_session(d->id))
            continue;
        options_print_line(f, d);
    }
}

/* ---- value parsers: each names the flag on error ------------------------ */

/* A positive (or, with allow_zero, non-negative) integer up to max. */
static int opt_uint(const char *flag, const char *s, bool allow_zero, unsigned long max,
                    uint32_t *out) {
    char *end;
    unsigned long v;

    if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
        goto bad;
    v = strtoul(s, &end, 10);
    if (*end || v > max || (!allow_zero && v == 0))
        goto bad;
    *out = (uint32_t)v;
    return 0;
bad:
    if (allow_zero)
        opt_error("--%s: expected a non-negative integer up to %lu, found '%s'", flag, max,
                  s ? s : "");
    else
        opt_error("--%s: expected a positive integer up to %lu, found '%s'", flag, max,
                  s ? s : "");
    return -1;
}

/* A fraction in (0, 1], written 0.4 or 40%. */
static int opt_fraction(const char *flag, const char *s, double *out) {
    char *end;
    double v = strtod(s, &end);

    if (end != s && *end == '%' && end[1] == '\0') {
        v /= 100;
        end++;
    }
    if (end == s || *end || !(v > 0 && v <= 1)) {
        opt_error("--%s: expected a fraction in (0, 1] like 0.4 or 40%%, found '%s'", flag, s);
        return -1;
    }
    *out = v;
    return 0;
}

/* A yes/no value of an optional-argument flag ("" = yes). */
static int opt_bool(const char *flag, const char *s, bool *out) {
    if (!*s || !strcasecmp(s, "yes") || !strcasecmp(s, "true") || !strcmp(s, "1")) {
        *out = true;
        return 0;
    }
    if (!strcasecmp(s, "no") || !strcasecmp(s, "false") || !strcmp(s, "0")) {
        *out = false;
        return 0;
    }
    opt_error("--%s: expected yes or no, found '%s'", flag, s);
    return -1;
}

/* Apply one of catalog.h's strict unit parsers, naming the flag on error. */
static int opt_unit(const char *flag, const char *s,
                    int (*parse)(const char *, double *, char *, size_t), double *out) {
    char err[160];

    if (parse(s, out, err, sizeof(err)) != 0) {
        opt_error("--%s: %s", flag, err);
        return -1;
    }
    return 0;
}

/* A strictly positive rate in units (a calibration flag). */
static int opt_rate(const char *flag, const char *s,
                    int (*parse)(const char *, double *, char *, size_t), double *out) {
    if (opt_unit(flag, s, parse, out) != 0)
        return -1;
    if (!(*out > 0)) {
        opt_error(_("--%s: expected a rate above zero, found '%s'"), flag, s);
        return -1;
    }
    return 0;
}

/* A price: "$2.49/h" or a plain number of dollars per GPU-hour. */
static int opt_price(const char *s, double *out) {
    char err[160];
    char *end;
    double v = strtod(s, &end);

    if (end != s && !*end && v >= 0) {
        *out = v;
        return 0;
    }
    if (catalog_parse_price(s, out, err, sizeof(err)) != 0) {
        opt_error("--price: %s", err);
        return -1;
    }
    return 0;
}

/* Print an unknown-id error for a catalog kind with the closest ids. */
static void opt_unknown_id(const struct catalog *cat, enum catalog_kind kind, const char *flag,
                           const char *id) {
    static const char *const what[] = {N_("GPU"), N_("model"), N_("format")};
    const char *close[4];
    size_t n = catalog_suggest(cat, kind, id, close, 4);

    fprintf(stderr, _("vramlab: --%s: unknown %s '%s'"), flag, _(what[kind]), id);
    if (n > 0) {
        fputs(_("; closest:"), stderr);
        for (size_t i = 0; i < n; i++)
            fprintf(stderr, "%s %s", i ? "," : "", close[i]);
    }
    fprintf(stderr, _(" (see 'vramlab catalog %s')\n"),
            kind == CATALOG_GPU     ? "gpus"
            : kind == CATALOG_MODEL ? "models"
                                    : "formats");
}

/* ---- second pass: build the scenario ------------------------------------- */

/* Whether any custom-architecture flag was given. */
static bool opt_any_arch(const struct opt_seen *s) {
    for (int i = OPT_LAYERS; i <= OPT_SHARED_EXPERTS; i++) {
        if (s->set[i])
            return true;
    }
    return false;
}

/* Apply the architecture flags to m (a catalog model or a blank one). */
static int opt_apply_arch(const struct opt_seen *s, struct engine_model *m) {
    static const struct {
        enum opt_id id;
        size_t offset;
        bool allow_zero;
    } ints[] = {
        {OPT_LAYERS, offsetof(struct engine_model, layers), false},
        {OPT_HIDDEN, offsetof(struct engine_model, hidden), false},
        {OPT_HEADS, offsetof(struct engine_model, heads), false},
        {OPT_KV_HEADS, offsetof(struct engine_model, kv_heads), false},
        {OPT_HEAD_DIM, offsetof(struct engine_model, head_dim), false},
        {OPT_FFN, offsetof(struct engine_model, ffn), false},
        {OPT_VOCAB, offsetof(struct engine_model, vocab), false},
        {OPT_POS_EMBEDDINGS, offsetof(struct engine_model, pos_embeddings), true},
        {OPT_EXPERTS, offsetof(struct engine_model, experts), true},
        {OPT_ACTIVE_EXPERTS, offsetof(struct engine_model, active_experts), false},
        {OPT_SHARED_EXPERTS, offsetof(struct engine_model, shared_experts), true},
    };

    for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
        if (!s->set[ints[i].id])
            continue;
        if (opt_uint(opt_table[ints[i].id].name, s->val[ints[i].id], ints[i].allow_zero, 1u << 30,
                     (uint32_t *)((char *)m + ints[i].offset)) != 0)
            return -1;
    }
    if (s->set[OPT_TIED] && opt_bool("tied", s->val[OPT_TIED], &m->tied) != 0)
        return -1;
    if (s->set[OPT_GATED] && opt_bool("gated", s->val[OPT_GATED], &m->gated) != 0)
        return -1;
    if (s->set[OPT_BIAS]) {
        const char *v = s->val[OPT_BIAS];
        if (!*v || !strcmp(v, "all"))
            m->bias = ENGINE_BIAS_ALL;
        else if (!strcmp(v, "qkv"))
            m->bias = ENGINE_BIAS_QKV;
        else if (!strcmp(v, "none"))
            m->bias = ENGINE_BIAS_NONE;
        else {
            opt_error("--bias: expected none, qkv or all, found '%s'", v);
            return -1;
        }
    }
    if (s->set[OPT_NORM]) {
        const char *v = s->val[OPT_NORM];
        if (!strcmp(v, "rms"))
            m->norm = ENGINE_NORM_RMS;
        else if (!strcmp(v, "layer"))
            m->norm = ENGINE_NORM_LAYER;
        else {
            opt_error("--norm: expected rms or layer, found '%s'", v);
            return -1;
        }
    }
    /* A changed head count changes the default head size. */
    if ((s->set[OPT_HIDDEN] || s->set[OPT_HEADS]) && !s->set[OPT_HEAD_DIM] && m->heads > 0) {
        if (m->hidden % m->heads != 0) {
            opt_error("--heads %u does not divide --hidden %u: give --head-dim", m->heads,
                      m->hidden);
            return -1;
        }
        m->head_dim = m->hidden / m->heads;
    }
    if (s->set[OPT_HEADS] && !s->set[OPT_KV_HEADS] && m->kv_heads > m->heads)
        m->kv_heads = m->heads;
    if (m->experts > 0 && m->active_experts == 0)
        m->active_experts = m->experts < 2 ? m->experts : 2;
    if (m->experts > 0 && m->active_experts > m->experts) {
        opt_error("--active-experts %u exceeds --experts %u", m->active_experts, m->experts);
        return -1;
    }
    if (m->heads > 0 && m->kv_heads > 0 && m->heads % m->kv_heads != 0) {
        opt_error("--kv-heads %u does not divide --heads %u", m->kv_heads, m->heads);
        return -1;
    }
    m->params_published = 0; /* the shape changed: the count is ours now */
    return 0;
}

/* A custom model from the architecture flags alone. */
static int opt_custom_model(const struct opt_seen *s, struct engine_model *m) {
    static const enum opt_id required[] = {OPT_LAYERS, OPT_HIDDEN, OPT_HEADS, OPT_VOCAB};

    for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
        if (!s->set[required[i]]) {
            opt_error("a custom model needs --layers, --hidden, --heads and --vocab "
                      "(missing --%s), or --model ID / --params N",
                      opt_table[required[i]].name);
            return -1;
        }
    }
    memset(m, 0, sizeof(*m));
    m->has_arch = true;
    m->norm = ENGINE_NORM_RMS;
    m->bias = ENGINE_BIAS_NONE;
    if (opt_apply_arch(s, m) != 0)
        return -1;
    if (!s->set[OPT_KV_HEADS])
        m->kv_heads = m->heads;
    if (!s->set[OPT_HEAD_DIM])
        m->head_dim = m->hidden / m->heads;
    if (!s->set[OPT_FFN])
        m->ffn = 4 * m->hidden;
    m->max_context = 0;
    snprintf(m->id, sizeof(m->id), "custom");
    snprintf(m->name, sizeof(m->name), "custom %uL h%u", m->layers, m->hidden);
    snprintf(m->family, sizeof(m->family), "custom");
    m->source = "command-line architecture";
    return 0;
}

/* A config.json path: a directory stands for DIR/config.json. */
void options_config_path(const char *arg, char *buf, size_t len) {
    struct stat st;

    if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode))
        snprintf(buf, len, "%s/config.json", arg);
    else
        snprintf(buf, len, "%s", arg);
}

/* Choose the model: --model-config, --model, --params, an architecture, or
 * the default; then apply single-field overrides. Returns 0, 2 or 3. */
static int opt_model(const struct opt_seen *s, const struct catalog *cat, struct options *o) {
    struct engine_model *m = &o->sc.model;
    int sources = s->set[OPT_MODEL] + s->set[OPT_PARAMS] + s->set[OPT_MODEL_CONFIG];

    if (sources > 1) {
        opt_error("--model, --params and --model-config are exclusive: give one");
        return VRAMLAB_EXIT_USAGE;
    }
    if (s->set[OPT_PARAMS] && opt_any_arch(s)) {
        opt_error("--params gives a bare size; an architecture (--layers, --hidden, ...) "
                  "gives its own count: use one or the other");
        return VRAMLAB_EXIT_USAGE;
    }
    if (s->set[OPT_MODEL_CONFIG]) {
        struct catalog_diag d = {0};
        char path[4096];
        options_config_path(s->val[OPT_MODEL_CONFIG], path, sizeof(path));
        if (catalog_import_hf_config(path, m, &d) != 0) {
            fprintf(stderr, "%s", d.text ? d.text : _("vramlab: cannot read --model-config\n"));
            if (d.text && d.len > 0 && d.text[d.len - 1] != '\n')
                fputc('\n', stderr);
            catalog_diag_free(&d);
            return VRAMLAB_EXIT_CATALOG;
        }
        catalog_diag_free(&d);
        o->model_custom = true;
    } else if (s->set[OPT_PARAMS]) {
        double n;
        if (opt_unit("params", s->val[OPT_PARAMS], catalog_parse_count, &n) != 0)
            return VRAMLAB_EXIT_USAGE;
        if (!(n >= 1)) {
            opt_error("--params: expected a positive size like 70B, found '%s'",
                      s->val[OPT_PARAMS]);
            return VRAMLAB_EXIT_USAGE;
        }
        engine_model_from_size(m, n);
        snprintf(m->id, sizeof(m->id), "params-%s", s->val[OPT_PARAMS]);
        snprintf(m->name, sizeof(m->name), "%s-parameter model", s->val[OPT_PARAMS]);
        m->source = "bare size (--params): shape derived";
        o->model_custom = true;
        return 0;
    } else if (!s->set[OPT_MODEL] && opt_any_arch(s)) {
        o->model_custom = true;
        return opt_custom_model(s, m) == 0 ? 0 : VRAMLAB_EXIT_USAGE;
    } else {
        const char *id = s->set[OPT_MODEL] ? s->val[OPT_MODEL] : "llama-3.1-8b";
        const struct engine_model *cm = catalog_find_model(cat, id);
        if (!cm) {
            opt_unknown_id(cat, CATALOG_MODEL, "model", id);
            return s->set[OPT_MODEL] ? VRAMLAB_EXIT_USAGE : VRAMLAB_EXIT_CATALOG;
        }
        *m = *cm;
    }
    if (opt_any_arch(s)) {
        if (opt_apply_arch(s, m) != 0)
            return VRAMLAB_EXIT_USAGE;
        o->model_custom = true;
        size_t n = strlen(m->name);
        if (n + 11 < sizeof(m->name))
            memcpy(m->name + n, " (modified)", 12);
    }
    return 0;
}

/* Look up a format by id, with suggestions on failure. */
static int opt_format(const struct catalog *cat, const char *flag, const char *id, bool given,
                      struct engine_format *out) {
    const struct engine_format *f = catalog_find_format(cat, id);

    if (!f) {
        opt_unknown_id(cat, CATALOG_FORMAT, flag, id);
        return given ? VRAMLAB_EXIT_USAGE : VRAMLAB_EXIT_CATALOG;
    }
    *out = *f;
    return 0;
}

/* Choose the GPU (catalog or custom) and apply --gpu-* overrides. */
static int opt_gpu(const struct opt_seen *s, const struct catalog *cat, struct options *o) {
    struct engine_gpu *g = &o->sc.gpu;
    bool custom = s->set[OPT_GPU_MEMORY] || s->set[OPT_GPU_BANDWIDTH] || s->set[OPT_GPU_FLOPS];

    if (!s->set[OPT_GPU] && custom) {
        if (!s->set[OPT_GPU_MEMORY] || !s->set[OPT_GPU_BANDWIDTH] || !s->set[OPT_GPU_FLOPS]) {
            opt_error("a custom GPU needs --gpu-memory, --gpu-bandwidth and --gpu-flops "
                      "(or --gpu ID to override single fields)");
            return VRAMLAB_EXIT_USAGE;
        }
        memset(g, 0, sizeof(*g));
        snprintf(g->id, sizeof(g->id), "custom");
        snprintf(g->name, sizeof(g->name), "custom GPU");
        g->source = "command line";
        g->gpus_per_node = 1;
    } else {
        const char *id = s->set[OPT_GPU] ? s->val[OPT_GPU] : "h100-sxm";
        const struct engine_gpu *cg = catalog_find_gpu(cat, id);
        if (!cg) {
            opt_unknown_id(cat, CATALOG_GPU, "gpu", id);
            return s->set[OPT_GPU] ? VRAMLAB_EXIT_USAGE : VRAMLAB_EXIT_CATALOG;
        }
        *g = *cg;
    }
    if (s->set[OPT_GPU_MEMORY] &&
        opt_unit("gpu-memory", s->val[OPT_GPU_MEMORY], catalog_parse_bytes, &g->memory_bytes))
        return VRAMLAB_EXIT_USAGE;
    if (s->set[OPT_GPU_BANDWIDTH] && opt_unit("gpu-bandwidth", s->val[OPT_GPU_BANDWIDTH],
                                              catalog_parse_bandwidth, &g->bandwidth_bytes_per_s))
        return VRAMLAB_EXIT_USAGE;
    if (s->set[OPT_GPU_FLOPS]) {
        double f;
        if (opt_unit("gpu-flops", s->val[OPT_GPU_FLOPS], catalog_parse_flops, &f))
            return VRAMLAB_EXIT_USAGE;
        /* The 16-bit figure, and the column the weight format computes in. */
        g->flops[ENGINE_COMPUTE_FP16] = f;
        g->flops[ENGINE_COMPUTE_BF16] = f;
        g->flops[o->sc.weight_format.compute] = f;
    }
    if (custom)
        o->gpu_custom = true;
    return 0;
}

/* Largest t dividing gpus, at most per_node, dividing heads (when known). */
static uint32_t opt_default_tp(uint32_t gpus, uint32_t per_node, uint32_t heads) {
    for (uint32_t t = gpus < per_node ? gpus : per_node; t > 1; t--) {
        if (gpus % t == 0 && (heads == 0 || heads % t == 0))
            return t;
    }
    return 1;
}

/* Work out G, t, p, d from what was given; check the combination. */
static int opt_layout(const struct opt_seen *s, struct options *o) {
    struct engine_scenario *sc = &o->sc;
    uint32_t g = 1, t = 1, p = 1, d = 1;
    uint32_t per_node = sc->gpus_per_node ? sc->gpus_per_node : sc->gpu.gpus_per_node;

    if (per_node == 0)
        per_node = 1;
    if (s->set[OPT_GPUS] && opt_uint("gpus", s->val[OPT_GPUS], false, 1u << 24, &g))
        return -1;
    if (s->set[OPT_TP] && opt_uint("tp", s->val[OPT_TP], false, 1u << 20, &t))
        return -1;
    if (s->set[OPT_PP] && opt_uint("pp", s->val[OPT_PP], false, 1u << 20, &p))
        return -1;
    if (s->set[OPT_DP] && opt_uint("dp", s->val[OPT_DP], false, 1u << 24, &d))
        return -1;

    if (!s->set[OPT_GPUS]) {
        g = t * p * d;
    } else if (!s->set[OPT_TP] && !s->set[OPT_PP] && !s->set[OPT_DP]) {
        t = opt_default_tp(g, per_node, sc->model.heads);
        d = g / t;
    } else if (!s->set[OPT_DP]) {
        if (g % (t * p) != 0) {
            opt_error("--gpus %u is not a multiple of --tp %u x --pp %u", g, t, p);
            return -1;
        }
        d = g / (t * p);
    } else if (!s->set[OPT_TP] && g % (p * d) == 0) {
        t = g / (p * d);
    } else if (!s->set[OPT_PP] && g % (t * d) == 0) {
        p = g / (t * d);
    }
    if ((uint64_t)t * p * d != g) {
        opt_error("--tp %u x --pp %u x --dp %u = %llu, but --gpus is %u", t, p, d,
                  (unsigned long long)t * p * d, g);
        return -1;
    }
    if (sc->model.heads > 0 && sc->model.heads % t != 0) {
        opt_error("--tp %u does not divide the model's %u attention heads", t, sc->model.heads);
        return -1;
    }
    /* Uneven stages are allowed (the most loaded one is reported), as
     * Llama 3.1 405B's 126 layers on 16 stages; more stages than layers not. */
    if (sc->model.layers > 0 && p > sc->model.layers) {
        opt_error("--pp %u exceeds the model's %u layers", p, sc->model.layers);
        return -1;
    }
    sc->gpus = g;
    sc->tp = t;
    sc->pp = p;
    sc->dp = d;
    return 0;
}

/* Workload, training and communication options. */
static int opt_workload(const struct opt_seen *s, struct options *o) {
    struct engine_scenario *sc = &o->sc;

    if (s->set[OPT_ZERO] && opt_uint("zero", s->val[OPT_ZERO], true, 3, &sc->zero))
        return -1;
    if (s->set[OPT_BATCH] && opt_uint("batch", s->val[OPT_BATCH], false, 1u << 24, &sc->batch))
        return -1;
    if (s->set[OPT_CONTEXT] &&
        opt_uint("context", s->val[OPT_CONTEXT], false, 1u << 30, &sc->context))
        return -1;
    if (s->set[OPT_PROMPT] && opt_uint("prompt", s->val[OPT_PROMPT], true, 1u << 30, &sc->prompt))
        return -1;
    if (s->set[OPT_MICRO_BATCHES] &&
        opt_uint("micro-batches", s->val[OPT_MICRO_BATCHES], false, 1u << 24, &sc->micro_batches))
        return -1;
    if (s->set[OPT_INTERLEAVE] &&
        opt_uint("interleave", s->val[OPT_INTERLEAVE], false, 1024, &sc->interleave))
        return -1;
    if (s->set[OPT_LORA_RANK] &&
        opt_uint("lora-rank", s->val[OPT_LORA_RANK], false, 1u << 20, &sc->lora_rank))
        return -1;
    if (s->set[OPT_RECOMPUTE] && engine_recompute_parse(s->val[OPT_RECOMPUTE], &sc->recompute)) {
        opt_error("--recompute: expected none, selective or full, found '%s'",
                  s->val[OPT_RECOMPUTE]);
        return -1;
    }
    if (s->set[OPT_OPTIMIZER] && engine_recipe_parse(s->val[OPT_OPTIMIZER], &sc->recipe)) {
        fprintf(stderr, _("vramlab: --optimizer: unknown recipe '%s'; one of:"),
                s->val[OPT_OPTIMIZER]);
        for (int r = 0; r < ENGINE_RECIPE_COUNT; r++)
            fprintf(stderr, "%s %s", r ? "," : "", engine_recipe_info((enum engine_recipe)r)->id);
        fputc('\n', stderr);
        return -1;
    }
    if (s->set[OPT_MFU] && opt_fraction("mfu", s->val[OPT_MFU], &sc->mfu))
        return -1;
    if (s->set[OPT_BW_EFFICIENCY] &&
        opt_fraction("bw-efficiency", s->val[OPT_BW_EFFICIENCY], &sc->bw_efficiency))
        return -1;
    if (s->set[OPT_FLOPS_EFFICIENCY] &&
        opt_fraction("flops-efficiency", s->val[OPT_FLOPS_EFFICIENCY], &sc->flops_efficiency))
        return -1;
    if (s->set[OPT_TOKENS] &&
        opt_unit("tokens", s->val[OPT_TOKENS], catalog_parse_count, &sc->training_tokens))
        return -1;
    if (s->set[OPT_RESERVE] &&
        opt_unit("reserve", s->val[OPT_RESERVE], catalog_parse_bytes, &sc->reserve_bytes))
        return -1;
    if (s->set[OPT_INTRA_BW] && opt_unit("intra-node-bw", s->val[OPT_INTRA_BW],
                                         catalog_parse_bandwidth, &sc->intra_node_bytes_per_s))
        return -1;
    if (s->set[OPT_INTER_BW] && opt_unit("inter-node-bw", s->val[OPT_INTER_BW],
                                         catalog_parse_bandwidth, &sc->inter_node_bytes_per_s))
        return -1;
    if (s->set[OPT_ALLREDUCE_LATENCY] &&
        opt_unit("allreduce-latency", s->val[OPT_ALLREDUCE_LATENCY], catalog_parse_seconds,
                 &sc->allreduce_latency_s))
        return -1;
    if (s->set[OPT_PRICE] && opt_price(s->val[OPT_PRICE], &sc->price_per_hour))
        return -1;
    /* Calibration (vramlab measure, or the explorer's Measure pane): a rate
     * of zero would silently mean "the data sheet", so it is refused. */
    if (s->set[OPT_MEASURED_BW] &&
        opt_rate("measured-bw", s->val[OPT_MEASURED_BW], catalog_parse_bandwidth,
                 &sc->measured_bytes_per_s))
        return -1;
    if (s->set[OPT_MEASURED_FLOPS] &&
        opt_rate("measured-flops", s->val[OPT_MEASURED_FLOPS], catalog_parse_flops,
                 &sc->measured_flop_per_s))
        return -1;
    sc->sequence_parallel = sc->sequence_parallel || s->set[OPT_SEQUENCE_PARALLEL];
    return 0;
}

/* First pass: record each option's last value. Returns 0 or -1. */
static int opt_scan(int argc, char **argv, bool allow_unknown, struct opt_seen *s) {
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *name, *eq;
        const struct opt_def *d;

        if (!strcmp(arg, "--")) {
            if (!allow_unknown && i + 1 < argc) {
                opt_error("unexpected argument '%s'", argv[i + 1]);
                return -1;
            }
            break;
        }
        if (!strcmp(arg, "-h")) {
            s->set[OPT_HELP] = true;
            continue;
        }
        if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0') {
            if (allow_unknown)
                continue;
            opt_error("unexpected argument '%s' (options start with --; see --help)", arg);
            return -1;
        }
        name = arg + 2;
        eq = strchr(name, '=');
        d = opt_find(name, eq ? (size_t)(eq - name) : strlen(name));
        if (!d) {
            if (allow_unknown)
                continue;
            opt_unknown(arg);
            return -1;
        }
        s->set[d->id] = true;
        if (d->arg == ARG_NONE) {
            if (eq) {
                opt_error("--%s takes no value", d->name);
                return -1;
            }
            s->val[d->id] = "";
        } else if (eq) {
            s->val[d->id] = eq + 1;
        } else if (d->arg == ARG_OPTIONAL) {
            s->val[d->id] = "";
        } else if (i + 1 < argc) {
            s->val[d->id] = argv[++i];
        } else {
            opt_error("--%s needs a value (%s)", d->name, d->metavar);
            return -1;
        }
    }
    return 0;
}

/* Parse the scenario options into o (see commands.h). */
int options_parse(int argc, char **argv, const struct catalog *cat, struct options *o,
                  bool allow_unknown) {
    struct opt_seen s;
    const char *fmt_id;
    int rc;

    memset(&s, 0, sizeof(s));
    memset(o, 0, sizeof(*o));
    engine_scenario_defaults(&o->sc);
    if (opt_scan(argc, argv, allow_unknown, &s) != 0)
        return VRAMLAB_EXIT_USAGE;

    o->help = s.set[OPT_HELP];
    o->json = s.set[OPT_JSON];
    o->explain = s.set[OPT_EXPLAIN];
    o->no_color = s.set[OPT_NO_COLOR];
    o->no_mouse = s.set[OPT_NO_MOUSE];
    o->ascii = s.set[OPT_ASCII];
    o->theme = s.set[OPT_THEME] ? s.val[OPT_THEME] : NULL;
    o->catalog_file = s.set[OPT_CATALOG] ? s.val[OPT_CATALOG] : NULL;
    o->scenario_file = s.set[OPT_SCENARIO] ? s.val[OPT_SCENARIO] : NULL;
    o->lesson = s.set[OPT_LESSON] ? s.val[OPT_LESSON] : NULL;
    o->fresh = s.set[OPT_FRESH];
    o->present = s.set[OPT_PRESENT];
    if (o->help)
        return 0;
    if (s.set[OPT_UNITS]) {
        if (!strcasecmp(s.val[OPT_UNITS], "gb"))
            o->units = UNITS_GB;
        else if (!strcasecmp(s.val[OPT_UNITS], "gib"))
            o->units = UNITS_GIB;
        else {
            opt_error("--units: expected gb or gib, found '%s'", s.val[OPT_UNITS]);
            return VRAMLAB_EXIT_USAGE;
        }
    }
    if (s.set[OPT_MODE] && engine_mode_parse(s.val[OPT_MODE], &o->sc.mode) != 0) {
        opt_error("--mode: expected infer, train, lora or qlora, found '%s'", s.val[OPT_MODE]);
        return VRAMLAB_EXIT_USAGE;
    }
    rc = opt_model(&s, cat, o);
    if (rc != 0)
        return rc;

    /* Formats: 16-bit by default, bf16 when training, NF4 under QLoRA. */
    fmt_id = o->sc.mode == ENGINE_MODE_INFER   ? "fp16"
             : o->sc.mode == ENGINE_MODE_QLORA ? "nf4"
                                               : "bf16";
    if (s.set[OPT_FORMAT])
        fmt_id = s.val[OPT_FORMAT];
    rc = opt_format(cat, "format", fmt_id, s.set[OPT_FORMAT], &o->sc.weight_format);
    if (rc != 0)
        return rc;
    rc = opt_format(cat, "kv-format", s.set[OPT_KV_FORMAT] ? s.val[OPT_KV_FORMAT] : "fp16",
                    s.set[OPT_KV_FORMAT], &o->sc.kv_format);
    if (rc != 0)
        return rc;

    rc = opt_gpu(&s, cat, o);
    if (rc != 0)
        return rc;
    if (s.set[OPT_GPUS_PER_NODE] &&
        opt_uint("gpus-per-node", s.val[OPT_GPUS_PER_NODE], false, 1u << 16, &o->sc.gpus_per_node))
        return VRAMLAB_EXIT_USAGE;
    if (opt_layout(&s, o) != 0 || opt_workload(&s, o) != 0)
        return VRAMLAB_EXIT_USAGE;
    return 0;
}

/* Load the default catalog, the user's files, then --catalog FILE. */
int options_load_catalog(int argc, char **argv, struct catalog *cat) {
    struct catalog_diag d = {0};
    const char *file = NULL;
    int rc = 0;

    catalog_init(cat);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            break;
        if (!strcmp(argv[i], "--catalog") && i + 1 < argc)
            file = argv[++i];
        else if (!strncmp(argv[i], "--catalog=", 10))
            file = argv[i] + 10;
    }
    if (catalog_load_default(cat, &d) != 0)
        rc = VRAMLAB_EXIT_CATALOG;
    if (rc == 0)
        catalog_load_user(cat, &d);
    if (rc == 0 && file && catalog_load_file(cat, file, &d) != 0)
        rc = VRAMLAB_EXIT_CATALOG;
    if (d.text && *d.text) {
        fputs(d.text, stderr);
        if (d.text[strlen(d.text) - 1] != '\n')
            fputc('\n', stderr);
    }
    catalog_diag_free(&d);
    return rc;
}
