/*
 * options.c: the scenario options shared by `vramlab plan|search` and the
 * explorer (product.md "Scenario options"), and the catalog loading every
 * command does.
 *
 * Options are a table {name, argument kind, help} (tmux's options-table,
 * in tui/options_table.c with the helpers both passes use).
 * Parsing is two passes: the first records the last value of each option
 * (GNU style: `--opt value` or `--opt=value`, in any order); the second
 * builds the scenario in a fixed order (mode, model, overrides, formats,
 * GPU, layout, workload) so that, e.g., `--layers 40 --model x` overrides the
 * catalog model whatever the order on the command line.
 *
 * Defaults (documented in the man page): model llama-3.1-8b; weight format
 * fp16 for inference, bf16 for training and LoRA, nf4 for QLoRA; KV cache
 * fp16; GPU h100-sxm; one GPU; recompute selective, but full (gradient
 * checkpointing, as the QLoRA paper) for LoRA and QLoRA. With only --gpus N, TP is the largest divisor
 * of N that fits in a node (--gpus-per-node, else the GPU's) and divides
 * the attention heads; PP is 1; the rest is DP.
 *
 * A custom architecture (--layers ... without --model) starts from a plain
 * transformer: ungated MLP, untied head, no biases, RMSNorm, rotary
 * positions, FFN 4*hidden, as many KV heads as heads, head_dim
 * hidden/heads; the flags add what the model has.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "tui/cli.h"
#include "tui/commands.h"
#include "tui/i18n.h"
#include "tui/options_internal.h"

#define OPT_TABLE_LEN opt_table_len

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

/* Tell the user an option is unknown, with the closest names. */
static void opt_unknown(const char *arg) {
    const char *names[OPT_COUNT];
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

/* Whether the option --name was given (before "--"; either form). */
bool options_flag_given(int argc, char **argv, const char *name) {
    struct opt_seen s;
    const struct opt_def *d = opt_find(name, strlen(name));

    memset(&s, 0, sizeof(s));
    if (!d || opt_scan(argc, argv, true, &s) != 0)
        return false;
    return s.set[d->id];
}

/* Notes about options given but without effect in this scenario (see
 * commands.h): static, translated strings. */
size_t options_ignored_notes(int argc, char **argv, const struct options *o, const char **out,
                             size_t n) {
    const struct engine_scenario *sc = &o->sc;
    struct opt_seen s;
    size_t k = 0;

    memset(&s, 0, sizeof(s));
    if (opt_scan(argc, argv, true, &s) != 0)
        return 0;
    bool lora = sc->mode == ENGINE_MODE_LORA || sc->mode == ENGINE_MODE_QLORA;
    const char *note[24];
    size_t m = 0;
    if (sc->mode == ENGINE_MODE_TRAIN && s.set[OPT_FORMAT])
        note[m++] = _("--format has no effect in full training: the --optimizer recipe sets "
                      "the bytes");
    if (sc->mode == ENGINE_MODE_INFER && s.set[OPT_ZERO] && sc->zero > 0)
        note[m++] = _("--zero has no effect in inference: ZeRO shards training state "
                      "(gradients, optimizer)");
    if (s.set[OPT_HOST_LINK_BW] && sc->offload == ENGINE_OFFLOAD_NONE)
        note[m++] = _("--host-link-bw has no effect without --offload cpu or nvme");
    if (sc->mode == ENGINE_MODE_INFER && s.set[OPT_MEMORY_CONVENTION])
        note[m++] = _("--memory-convention has no effect in inference: it counts training "
                      "states");
    if (!lora && s.set[OPT_LORA_RANK])
        note[m++] = _("--lora-rank has no effect outside --mode lora or qlora");
    if (s.set[OPT_SEQUENCE_PARALLEL] && sc->tp == 1)
        note[m++] = _("--sequence-parallel has no effect with TP 1: it splits activations "
                      "across the tensor-parallel GPUs");
    if (s.set[OPT_INTERLEAVE] && sc->interleave > 1 && (sc->pp == 1 || sc->mode == ENGINE_MODE_INFER))
        note[m++] = _("--interleave has no effect without a training pipeline (--pp above 1)");
    enum engine_runtime rt = sc->serving.runtime;
    bool infer = sc->mode == ENGINE_MODE_INFER;
    bool ggml = rt == ENGINE_RUNTIME_LLAMACPP || rt == ENGINE_RUNTIME_OLLAMA;
    if (!infer && (s.set[OPT_RUNTIME] || s.set[OPT_GPU_LAYERS] || s.set[OPT_CONCURRENCY] ||
                   s.set[OPT_N_CPU_MOE]))
        note[m++] = _("--runtime, --gpu-layers, --n-cpu-moe and --concurrency are inference "
                      "settings: no effect in training");
    bool paged = rt == ENGINE_RUNTIME_VLLM || rt == ENGINE_RUNTIME_SGLANG ||
                 rt == ENGINE_RUNTIME_TRTLLM;
    if (infer && rt != ENGINE_RUNTIME_VLLM &&
        (s.set[OPT_GPU_MEMORY_UTILIZATION] || s.set[OPT_BLOCK_SIZE] ||
         s.set[OPT_MAX_MODEL_LEN] || s.set[OPT_CUDA_GRAPH_MEMORY]))
        note[m++] = _("--gpu-memory-utilization, --block-size, --max-model-len and "
                      "--cuda-graph-memory are vLLM's: they need --runtime vllm");
    if (infer && !paged && (s.set[OPT_MAX_NUM_BATCHED_TOKENS] || s.set[OPT_MAX_NUM_SEQS]))
        note[m++] = _("--max-num-batched-tokens and --max-num-seqs need --runtime vllm, sglang "
                      "or trtllm");
    if (infer && rt != ENGINE_RUNTIME_SGLANG && s.set[OPT_MEM_FRACTION_STATIC])
        note[m++] = _("--mem-fraction-static is SGLang's: it needs --runtime sglang");
    if (infer && rt != ENGINE_RUNTIME_TRTLLM && s.set[OPT_FREE_GPU_MEMORY_FRACTION])
        note[m++] = _("--free-gpu-memory-fraction is TensorRT-LLM's: it needs --runtime trtllm");
    if (infer && paged && s.set[OPT_RESERVE])
        note[m++] = _("--reserve has no effect with vLLM, SGLang or TensorRT-LLM: each counts "
                      "its own start-up memory");
    if (infer && !ggml && (s.set[OPT_UBATCH] || s.set[OPT_FLASH_ATTENTION] || s.set[OPT_FIT]))
        note[m++] = _("--ubatch, --flash-attention and --fit are llama.cpp's: they need "
                      "--runtime llama.cpp or ollama");
    if (s.set[OPT_KEEP_EMBEDDINGS_16BIT] &&
        (!infer || engine_format_bits(&sc->weight_format) >= 16))
        note[m++] = _("--keep-embeddings-16bit has no effect: the weights are not quantized "
                      "(or this is training)");
    if (s.set[OPT_RANK] && !s.set[OPT_GPUS])
        note[m++] = _("--rank orders 'vramlab search' layouts: no effect on one scenario");
    for (size_t i = 0; i < m && k < n; i++)
        out[k++] = note[i];
    return k;
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
    o->recompute_given = s.set[OPT_RECOMPUTE];
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
    if (o->has_system && !s.set[OPT_GPUS_PER_NODE])
        o->sc.gpus_per_node = o->system.nvlink_domain;
    if (opt_layout(&s, o) != 0 || opt_workload(&s, o) != 0 || opt_serving(&s, cat, o) != 0)
        return VRAMLAB_EXIT_USAGE;
    opt_train_batch_defaults(&s, o);
    return 0;
}

/* Load the default catalog, the user's files, then --catalog FILE, keeping
 * the messages about broken files in *diag (see commands.h). */
int options_load_catalog_diag(int argc, char **argv, struct catalog *cat,
                              struct catalog_diag *diag) {
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
    if (catalog_load_default(cat, diag) != 0)
        rc = VRAMLAB_EXIT_CATALOG;
    if (rc == 0)
        catalog_load_user(cat, diag);
    if (rc == 0 && file && catalog_load_file(cat, file, diag) != 0)
        rc = VRAMLAB_EXIT_CATALOG;
    return rc;
}

/* Print a catalog's messages to stderr, each line ending in a newline. */
void options_print_diag(const struct catalog_diag *d) {
    if (!d->text || !*d->text)
        return;
    fputs(d->text, stderr);
    if (d->text[strlen(d->text) - 1] != '\n')
        fputc('\n', stderr);
}

/* Load the catalog as every command does and print its messages. */
int options_load_catalog(int argc, char **argv, struct catalog *cat) {
    struct catalog_diag d = {0};
    int rc = options_load_catalog_diag(argc, argv, cat, &d);
    options_print_diag(&d);
    catalog_diag_free(&d);
    return rc;
}
