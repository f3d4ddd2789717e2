/*
 * options.c: the scenario options shared by `vramlab plan|search` and the
 * explorer (product.md "Scenario options"), and the catalog loading every
 * command does.
 *
 * Options are the parameter table's rows (engine/param_table.h, after
 * tmux's options-table), scanned by the one scanner (kernels/argv.h); the
 * value readers are in tui/options_values.c.
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

#include "kernels/argv.h"
#include "tui/cli.h"
#include "tui/commands.h"
#include "tui/i18n.h"
#include "tui/options_internal.h"

/* gettext for the scanner's messages (see commands.h). */
const char *options_tr(const char *msgid) {
    return _(msgid);
}

/* The scanner's rows of some parameters (see commands.h). */
void options_argv_rows(const enum param_id *ids, size_t n, struct argv_option *out) {
    for (size_t i = 0; i < n; i++) {
        const struct param_info *p = param_info(ids[i]);
        out[i].name = p->name;
        out[i].arg = p->type == PARAM_T_FLAG ? ARGV_NONE
                     : p->value_optional     ? ARGV_OPTIONAL
                                             : ARGV_REQUIRED;
        out[i].metavar = p->metavar;
    }
}

/* The scanner's view of the parameter table (kernels/argv.h), made once. */
static const struct argv_spec *opt_spec(bool skip_unknown) {
    static struct argv_option options[PARAM_COUNT];
    static struct argv_spec spec[2];
    if (!spec[0].options) {
        enum param_id ids[PARAM_COUNT];
        for (int i = 0; i < PARAM_COUNT; i++)
            ids[i] = (enum param_id)i;
        options_argv_rows(ids, PARAM_COUNT, options);
        for (int k = 0; k < 2; k++)
            spec[k] = (struct argv_spec){options, PARAM_COUNT, false, k == 1, options_tr};
    }
    return &spec[skip_unknown];
}

/* One help line of a parameter. */
static void options_print_line(FILE *f, const struct param_info *p) {
    char left[48];
    if (p->type == PARAM_T_FLAG)
        snprintf(left, sizeof(left), "--%s", p->name);
    else if (p->value_optional)
        snprintf(left, sizeof(left), "--%s[=%s]", p->name, p->metavar);
    else
        snprintf(left, sizeof(left), "--%s %s", p->name, p->metavar);
    fprintf(f, "  %-26s %s\n", left, _(p->help));
}

/* Append the --names of the scenario rows of one type to buf: "--a, --b". */
static void options_names_of(enum param_type t, char *buf, size_t len) {
    size_t used = strlen(buf);
    for (int i = 0; i < PARAM_COUNT && used < len; i++) {
        const struct param_info *p = param_info((enum param_id)i);
        if (p->type != t || p->scope != PARAM_SCOPE_SCENARIO)
            continue;
        /* a new line of two spaces before 78 columns */
        const char *nl = strrchr(buf, '\n');
        size_t col = used - (nl ? (size_t)(nl - buf) + 1 : 0);
        const char *sep = !used ? "  " : col + strlen(p->name) + 4 > 76 ? ",\n  " : ", ";
        int w = snprintf(buf + used, len - used, "%s--%s", sep, p->name);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

/* The multiplier rule of each kind of size (engine/param_table.h). */
static void options_print_sizes(FILE *f) {
    char tokens[512] = "", amounts[512] = "";
    options_names_of(PARAM_T_TOKENS, tokens, sizeof(tokens));
    options_names_of(PARAM_T_AMOUNT, amounts, sizeof(amounts));
    fputs(_("\nSizes:\n"), f);
    fprintf(f,
            _("  tokens of a sequence or a batch count k = 1024 and M = 1024k, as model cards\n"
              "  do (128K = 131,072 tokens):\n%s, --global-batch N-tokens\n"),
            tokens);
    fprintf(f,
            _("  parameter counts and token budgets count K = 10^3, M = 10^6, B = 10^9 and\n"
              "  T = 10^12 (15.6T tokens):\n%s\n"),
            amounts);
    fputs(_("  sizes with a unit say it: GB = 10^9 bytes, GiB = 2^30 bytes, TB/s = 10^12 B/s\n"),
          f);
}

/* Whether the command line sets any scenario option (anything that
 * changes the scenario, as opposed to the session: theme, colours,
 * catalog, units). */
bool options_has_scenario_flags(const struct options *o) {
    for (int i = 0; i < PARAM_COUNT; i++)
        if (o->given.set[i] && param_info((enum param_id)i)->scope == PARAM_SCOPE_SCENARIO)
            return true;
    return false;
}

/* Print the options of a command's --help (see commands.h). */
void options_print_help(FILE *f, unsigned what) {
    for (int i = 0; i < PARAM_COUNT; i++) {
        const struct param_info *p = param_info((enum param_id)i);
        if (p->scope == PARAM_SCOPE_EXPLORER && (what & OPTIONS_HELP_EXPLORER))
            options_print_line(f, p);
    }
    for (int i = 0; i < PARAM_COUNT; i++) {
        const struct param_info *p = param_info((enum param_id)i);
        if (p->scope == PARAM_SCOPE_SCENARIO || p->scope == PARAM_SCOPE_DISPLAY ||
            p->scope == PARAM_SCOPE_SESSION || p->scope == PARAM_SCOPE_HELP ||
            (p->id == PARAM_JSON && (what & OPTIONS_HELP_JSON)) ||
            (p->id == PARAM_EXPLAIN && (what & OPTIONS_HELP_EXPLAIN)))
            options_print_line(f, p);
    }
    options_print_sizes(f);
}

/* Record one option's value (the last one wins). */
static int opt_seen_visit(void *ctx, int i, const char *value) {
    struct options_given *s = ctx;
    if (i < 0)
        return 0;
    s->set[i] = true;
    s->val[i] = value;
    return 0;
}

/* First pass: record each option's last value. Returns 0 or -1. */
static int opt_scan(int argc, char **argv, bool allow_unknown, struct options_given *s) {
    char err[512];
    if (argv_scan(opt_spec(allow_unknown), argc, argv, opt_seen_visit, s, err, sizeof(err)) != 0) {
        fprintf(stderr, "vramlab: %s\n", err);
        return -1;
    }
    return 0;
}

/* Notes about options given but without effect in this scenario (see
 * commands.h): static, translated strings. */
size_t options_ignored_notes(const struct options *o, const char **out, size_t n) {
    const struct engine_scenario *sc = &o->sc;
    const struct options_given s = o->given;
    size_t k = 0;

    bool lora = sc->mode == ENGINE_MODE_LORA || sc->mode == ENGINE_MODE_QLORA;
    const char *note[24];
    size_t m = 0;
    if (sc->mode == ENGINE_MODE_TRAIN && s.set[PARAM_FORMAT] && !engine_train_fp8(sc))
        note[m++] = _("--format has no effect in full training but fp8 or mxfp8 (FP8 GEMMs): "
                      "the --optimizer recipe sets the bytes");
    if (s.set[PARAM_MOE_IMBALANCE] && (engine_ep(sc) == 1 || sc->mode == ENGINE_MODE_INFER))
        note[m++] = _("--moe-imbalance has no effect without expert parallelism in training "
                      "(--ep above 1)");
    if (s.set[PARAM_ATTENTION_EFFICIENCY] && (sc->mode == ENGINE_MODE_INFER || sc->mfu > 0))
        note[m++] = _("--attention-efficiency has no effect on inference or a given --mfu");
    if (sc->mode == ENGINE_MODE_INFER && s.set[PARAM_ZERO] && sc->zero > 0)
        note[m++] = _("--zero has no effect in inference: ZeRO shards training state "
                      "(gradients, optimizer)");
    if (s.set[PARAM_HOST_LINK_BW] && sc->offload == ENGINE_OFFLOAD_NONE)
        note[m++] = _("--host-link-bw has no effect without --offload cpu or nvme");
    if (sc->mode == ENGINE_MODE_INFER && s.set[PARAM_MEMORY_CONVENTION])
        note[m++] = _("--memory-convention has no effect in inference: it counts training "
                      "states");
    if (!lora && s.set[PARAM_LORA_RANK])
        note[m++] = _("--lora-rank has no effect outside --mode lora or qlora");
    if (s.set[PARAM_SEQUENCE_PARALLEL] && sc->tp == 1)
        note[m++] = _("--sequence-parallel has no effect with TP 1: it splits activations "
                      "across the tensor-parallel GPUs");
    if (s.set[PARAM_INTERLEAVE] && sc->interleave > 1 && (sc->pp == 1 || sc->mode == ENGINE_MODE_INFER))
        note[m++] = _("--interleave has no effect without a training pipeline (--pp above 1)");
    enum engine_runtime rt = sc->serving.runtime;
    bool infer = sc->mode == ENGINE_MODE_INFER;
    bool ggml = rt == ENGINE_RUNTIME_LLAMACPP || rt == ENGINE_RUNTIME_OLLAMA;
    if (!infer && (s.set[PARAM_RUNTIME] || s.set[PARAM_GPU_LAYERS] || s.set[PARAM_CONCURRENCY] ||
                   s.set[PARAM_N_CPU_MOE]))
        note[m++] = _("--runtime, --gpu-layers, --n-cpu-moe and --concurrency are inference "
                      "settings: no effect in training");
    bool paged = rt == ENGINE_RUNTIME_VLLM || rt == ENGINE_RUNTIME_SGLANG ||
                 rt == ENGINE_RUNTIME_TRTLLM;
    if (infer && rt != ENGINE_RUNTIME_VLLM &&
        (s.set[PARAM_GPU_MEMORY_UTILIZATION] || s.set[PARAM_BLOCK_SIZE] ||
         s.set[PARAM_MAX_MODEL_LEN] || s.set[PARAM_CUDA_GRAPH_MEMORY]))
        note[m++] = _("--gpu-memory-utilization, --block-size, --max-model-len and "
                      "--cuda-graph-memory are vLLM's: they need --runtime vllm");
    if (infer && !paged && (s.set[PARAM_MAX_NUM_BATCHED_TOKENS] || s.set[PARAM_MAX_NUM_SEQS]))
        note[m++] = _("--max-num-batched-tokens and --max-num-seqs need --runtime vllm, sglang "
                      "or trtllm");
    if (infer && rt != ENGINE_RUNTIME_SGLANG && s.set[PARAM_MEM_FRACTION_STATIC])
        note[m++] = _("--mem-fraction-static is SGLang's: it needs --runtime sglang");
    if (infer && rt != ENGINE_RUNTIME_TRTLLM && s.set[PARAM_FREE_GPU_MEMORY_FRACTION])
        note[m++] = _("--free-gpu-memory-fraction is TensorRT-LLM's: it needs --runtime trtllm");
    if (infer && paged && s.set[PARAM_RESERVE])
        note[m++] = _("--reserve has no effect with vLLM, SGLang or TensorRT-LLM: each counts "
                      "its own start-up memory");
    if (infer && !ggml && (s.set[PARAM_UBATCH] || s.set[PARAM_FLASH_ATTENTION] || s.set[PARAM_FIT]))
        note[m++] = _("--ubatch, --flash-attention and --fit are llama.cpp's: they need "
                      "--runtime llama.cpp or ollama");
    if (s.set[PARAM_KEEP_EMBEDDINGS_16BIT] &&
        (!infer || engine_format_bits(&sc->weight_format) >= 16))
        note[m++] = _("--keep-embeddings-16bit has no effect: the weights are not quantized "
                      "(or this is training)");
    if (s.set[PARAM_RANK] && !s.set[PARAM_GPUS])
        note[m++] = _("--rank orders 'vramlab search' layouts: no effect on one scenario");
    for (size_t i = 0; i < m && k < n; i++)
        out[k++] = note[i];
    return k;
}

/* The first pass: argv scanned once into o (see commands.h). */
int options_scan(int argc, char **argv, bool allow_unknown, struct options *o) {
    const struct options_given *g = &o->given;

    memset(o, 0, sizeof(*o));
    engine_scenario_defaults(&o->sc);
    if (opt_scan(argc, argv, allow_unknown, &o->given) != 0)
        return VRAMLAB_EXIT_USAGE;
    o->help = g->set[PARAM_HELP];
    o->json = g->set[PARAM_JSON];
    o->explain = g->set[PARAM_EXPLAIN];
    o->no_color = g->set[PARAM_NO_COLOR];
    o->no_mouse = g->set[PARAM_NO_MOUSE];
    o->ascii = g->set[PARAM_ASCII];
    o->theme = g->set[PARAM_THEME] ? g->val[PARAM_THEME] : NULL;
    o->catalog_file = g->set[PARAM_CATALOG] ? g->val[PARAM_CATALOG] : NULL;
    o->scenario_file = g->set[PARAM_SCENARIO] ? g->val[PARAM_SCENARIO] : NULL;
    o->lesson = g->set[PARAM_LESSON] ? g->val[PARAM_LESSON] : NULL;
    o->fresh = g->set[PARAM_FRESH];
    o->recompute_given = g->set[PARAM_RECOMPUTE];
    o->present = g->set[PARAM_PRESENT];
    return 0;
}

/* Parse the scenario options into o (see commands.h). */
int options_parse(int argc, char **argv, const struct catalog *cat, struct options *o,
                  bool allow_unknown) {
    int rc = options_scan(argc, argv, allow_unknown, o);
    return rc != 0 ? rc : options_build(cat, o);
}

/* The second pass: the scenario from the scanned values (see commands.h). */
int options_build(const struct catalog *cat, struct options *o) {
    const struct options_given s = o->given;
    const char *fmt_id;
    int rc;

    if (o->help)
        return 0;
    int k;
    if (s.set[PARAM_THEME] && opt_enum(PARAM_THEME, s.val[PARAM_THEME], &k) != 0)
        return VRAMLAB_EXIT_USAGE;
    if (s.set[PARAM_UNITS]) {
        if (opt_enum(PARAM_UNITS, s.val[PARAM_UNITS], &k) != 0)
            return VRAMLAB_EXIT_USAGE;
        o->units = k ? UNITS_GIB : UNITS_GB;
    }
    if (s.set[PARAM_MODE]) {
        if (opt_enum(PARAM_MODE, s.val[PARAM_MODE], &k) != 0)
            return VRAMLAB_EXIT_USAGE;
        o->sc.mode = (enum engine_mode)k;
    }
    rc = opt_model(&s, cat, o);
    if (rc != 0)
        return rc;

    /* Formats: 16-bit by default, bf16 when training, NF4 under QLoRA. */
    fmt_id = o->sc.mode == ENGINE_MODE_INFER   ? "fp16"
             : o->sc.mode == ENGINE_MODE_QLORA ? "nf4"
                                               : "bf16";
    if (s.set[PARAM_FORMAT])
        fmt_id = s.val[PARAM_FORMAT];
    rc = opt_format(cat, "format", fmt_id, s.set[PARAM_FORMAT], &o->sc.weight_format);
    if (rc != 0)
        return rc;
    rc = opt_format(cat, "kv-format", s.set[PARAM_KV_FORMAT] ? s.val[PARAM_KV_FORMAT] : "fp16",
                    s.set[PARAM_KV_FORMAT], &o->sc.kv_format);
    if (rc != 0)
        return rc;

    rc = opt_gpu(&s, cat, o);
    if (rc != 0)
        return rc;
    if (s.set[PARAM_GPUS_PER_NODE] &&
        opt_uint(PARAM_GPUS_PER_NODE, s.val[PARAM_GPUS_PER_NODE], &o->sc.gpus_per_node))
        return VRAMLAB_EXIT_USAGE;
    if (o->has_system && !s.set[PARAM_GPUS_PER_NODE])
        o->sc.gpus_per_node = o->system.nvlink_domain;
    if (opt_layout(&s, o) != 0 || opt_workload(&s, o) != 0 || opt_serving(&s, cat, o) != 0)
        return VRAMLAB_EXIT_USAGE;
    opt_train_batch_defaults(&s, o);
    /* --max-concurrency: the batch becomes the most sequences of the
     * context that fit, here, so that plan and the explorer agree. */
    if (o->max_concurrency) {
        o->max_concurrency_batch = engine_max_batch(&o->sc);
        if (o->max_concurrency_batch > 0)
            o->sc.batch = o->max_concurrency_batch;
    }
    return 0;
}

/* Load the default catalog, the user's files, then --catalog FILE, keeping
 * the messages about broken files in *diag (see commands.h). */
int options_load_catalog_diag(const char *file, struct catalog *cat, struct catalog_diag *diag) {
    int rc = 0;

    catalog_init(cat);
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
int options_load_catalog(const char *file, struct catalog *cat) {
    struct catalog_diag d = {0};
    int rc = options_load_catalog_diag(file, cat, &d);
    options_print_diag(&d);
    catalog_diag_free(&d);
    return rc;
}
